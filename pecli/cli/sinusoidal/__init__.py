"""The sinusoidal encoding's commands.

compute, add, fourier, the plots, wavelengths, conventions, precision and identify;
:mod:`.options` holds their convention options.
"""
