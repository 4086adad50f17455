"""Input and output: reading tables and data, output formats, atomic files, stdout, signals.

No maths: this layer moves arrays between :mod:`pecli.core` and files, pipes and streams.
"""
