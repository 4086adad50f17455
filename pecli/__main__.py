"""``python -m pecli``."""

from ._entry import main

main()
