"""Position schemes of the zoo read back: which ALiBi made a slope vector or a bias tensor."""
