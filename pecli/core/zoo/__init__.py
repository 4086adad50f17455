"""The rest of the position zoo: ALiBi, T5 relative-position buckets, xPos (docs/zoo.md).

Each module is pure NumPy (arrays in, arrays out) and names the library function it follows:
:mod:`.alibi` (slopes and bias tensors), :mod:`.alibi_fit` (which slopes / which bias),
:mod:`.t5_buckets` (``_relative_position_bucket``) and :mod:`.xpos` (the xPos scales).
"""
