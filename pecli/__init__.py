"""pecli: the sinusoidal positional encoding of Transformers, computed, exported and drawn.

The maths (:mod:`pecli.core`) is pure NumPy, arrays in and arrays out; above it sit input and
output (:mod:`pecli.io`), analyses (:mod:`pecli.analysis`), figures (:mod:`pecli.figures`,
which import matplotlib only when used) and the command line (:mod:`pecli.cli`), a thin
wrapper (docs/architecture.md).

* the encoding: :func:`positional_encoding`, :func:`encoding_table`, :func:`table_blocks`,
  :func:`angular_frequencies`, :func:`wavelengths` (docs/encoding.md);
* applying it to data, ``x_pos + pe(pos)``: :func:`add_encoding` (also as :func:`add`);
* the Fourier feature map γ: :func:`fourier_features`, :func:`fourier_frequencies`
  (docs/fourier.md);
* 2-D / N-D tables of grids of patches, as each vision library builds them:
  :func:`grid_table`, :func:`grid_blocks`, :func:`grid_column_names`, :data:`GRID_PRESETS`
  (docs/grids.md).
* rotary embeddings: :class:`RopeSpec`, :func:`rope_frequencies`, :class:`CacheSpec`,
  :func:`rope_cache`, :func:`spec_from_config`, :func:`qk_permutation` (docs/rope.md).

References
----------
.. [1] A. Vaswani et al., "Attention Is All You Need", NeurIPS 2017, §3.5.
.. [2] B. Mildenhall et al., "NeRF: Representing Scenes as Neural Radiance Fields for View
   Synthesis", ECCV 2020, §5.1.

"""

from typing import TYPE_CHECKING

import lazy_loader

if TYPE_CHECKING:  # pragma: no cover - what the lazy attributes below resolve to
    from .core.errors import ParameterError
    from .core.grids import GRID_PRESETS, grid_blocks, grid_column_names, grid_table
    from .core.rope import RopeSpec, rope_frequencies
    from .core.rope.cache import CacheSpec, rope_cache
    from .core.rope.config import spec_from_config
    from .core.rope.permute import qk_permutation
    from .core.sinusoidal.apply import add, add_encoding
    from .core.sinusoidal.conventions import ALIASES, PRESETS, Convention, convention, layout_views
    from .core.sinusoidal.encoding import (
        DEFAULT_BASE,
        angular_frequencies,
        component_names,
        encoding_table,
        positional_encoding,
        table_blocks,
        wavelengths,
    )
    from .core.sinusoidal.fourier import feature_names, fourier_features, fourier_frequencies

# Submodules load on first use (lazy_loader, scientific-python's SPEC 1 on lazy loading), so
# ``pecli --help`` and other commands import only the parts they run.
__getattr__, __dir__, _ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "core.sinusoidal.apply": ["add", "add_encoding"],
        "core.sinusoidal.conventions": [
            "ALIASES",
            "PRESETS",
            "Convention",
            "convention",
            "layout_views",
        ],
        "core.sinusoidal.encoding": [
            "DEFAULT_BASE",
            "angular_frequencies",
            "component_names",
            "encoding_table",
            "positional_encoding",
            "table_blocks",
            "wavelengths",
        ],
        "core.errors": ["ParameterError"],
        "core.sinusoidal.fourier": ["feature_names", "fourier_features", "fourier_frequencies"],
        "core.grids": ["GRID_PRESETS", "grid_blocks", "grid_column_names", "grid_table"],
        "core.rope": ["RopeSpec", "rope_frequencies"],
        "core.rope.cache": ["CacheSpec", "rope_cache"],
        "core.rope.config": ["spec_from_config"],
        "core.rope.permute": ["qk_permutation"],
    },
)

__version__ = "0.1.0"

__all__ = [
    "ALIASES",
    "DEFAULT_BASE",
    "GRID_PRESETS",
    "PRESETS",
    "CacheSpec",
    "Convention",
    "ParameterError",
    "RopeSpec",
    "__version__",
    "add",
    "add_encoding",
    "angular_frequencies",
    "component_names",
    "convention",
    "encoding_table",
    "feature_names",
    "fourier_features",
    "fourier_frequencies",
    "grid_blocks",
    "grid_column_names",
    "grid_table",
    "layout_views",
    "positional_encoding",
    "qk_permutation",
    "rope_cache",
    "rope_frequencies",
    "spec_from_config",
    "table_blocks",
    "wavelengths",
]
