"""``python -m pecli``."""

from .cli import main

main()
