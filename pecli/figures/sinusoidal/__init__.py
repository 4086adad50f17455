"""The figures of the sinusoidal encoding.

The article's two (:mod:`.article`, :mod:`.waves`), similarity against offset, wavelengths by
pair, and the Fourier features' periodicity.
"""
