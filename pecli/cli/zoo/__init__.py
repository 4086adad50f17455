"""The zoo on the command line: alibi, t5-buckets, xpos, timestep, random-fourier, plots."""

from . import (  # noqa: F401  (registers the commands)
    alibi,
    alibi_identify,
    plots,
    random_fourier,
    t5,
    timestep,
    xpos,
)
