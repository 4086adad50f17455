"""Rotary embeddings read back: inv_freq vectors, cos/sin caches, their phases and precision."""
