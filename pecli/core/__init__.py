"""The maths: frequencies, angles, kernels, tables, conventions, Fourier features (pure NumPy).

Arrays in, arrays out. Nothing here reads or writes files, draws, or knows the command line;
every other layer imports from here, and this layer imports from no other.
"""
