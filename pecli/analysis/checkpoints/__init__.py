"""Checkpoints read back: each table-shaped tensor judged, and pecli's own metadata checked."""
