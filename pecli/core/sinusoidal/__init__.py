"""The sinusoidal positional encoding of Transformers (Vaswani et al. 2017, §3.5) and its kin.

:mod:`.encoding` builds tables and single positions over :mod:`.filling`, from the frequencies
of :mod:`.frequencies` and the knobs of :mod:`.knobs`; :mod:`.conventions` holds each
library's preset; :mod:`.apply` adds a table to data, :mod:`.similarity` gives the similarity of
two positions against their offset and :mod:`.fourier` the Fourier feature map γ of NeRF (the
same exact angles, :mod:`pecli.core.angles`, taken at values instead of positions).
"""
