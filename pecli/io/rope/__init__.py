"""Rotary embeddings: caches written (:mod:`.output`), q/k rows permuted (:mod:`.permute`)."""
