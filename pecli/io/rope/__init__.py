"""Rotary embeddings: checkpoints whose q/k rows are rewritten (:mod:`.permute`)."""
