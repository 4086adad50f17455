"""Grid tables read back: which preset, axis order and grid a 2-D / N-D table is."""
