"""pecli: the sinusoidal positional encoding of Transformers, computed, exported and drawn.

The library is pure NumPy (arrays in, arrays out); the command line (:mod:`pecli.cli`) is a
thin wrapper over it, and figures (:mod:`pecli.figures`) import matplotlib only when used.

References
----------
.. [1] A. Vaswani et al., "Attention Is All You Need", NeurIPS 2017, §3.5.

"""

from .conventions import PRESETS, Convention, convention, layout_views
from .encoding import (
    DEFAULT_BASE,
    angular_frequencies,
    component_names,
    encoding_table,
    positional_encoding,
    table_blocks,
    wavelengths,
)
from .errors import ParameterError

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_BASE",
    "PRESETS",
    "Convention",
    "ParameterError",
    "__version__",
    "angular_frequencies",
    "component_names",
    "convention",
    "encoding_table",
    "layout_views",
    "positional_encoding",
    "table_blocks",
    "wavelengths",
]
