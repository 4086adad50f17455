"""Every command of ``pecli``: one record each, from which the CLI's tables derive.

A record names the command, the module registering it (under ``pecli.cli``), the first
paragraph of its help (what ``pecli --help`` lists, for a top-level command or group) and, for
a subcommand whose group spreads over several modules, its group. From :data:`COMMANDS`
come :data:`LISTING` and, in :mod:`pecli.cli`, ``COMMAND_MODULES``, ``GROUP_MODULES``,
``SUBCOMMAND_MODULES`` and the modules ``pecli rope`` imports: adding a command is one record
here plus its module, its docs section and its tests (docs/architecture.md, "Adding a
command").

``pecli``, ``pecli --help`` and ``-h`` build their listing from this table alone, so they
import no command module and no NumPy: about a third of the time of ``python -c "import
numpy, typer"`` (importing the 47 command modules for their docstrings made it 1.2-1.3
times that). Rich is not involved: the help is click's plain text. The listing shows only
the start of each paragraph (click's short help), cut to the terminal's width; the whole
paragraph is kept so every width lists what the commands themselves say.

The help text is a copy: ``tests/house/test_lazy_imports.py`` fails, printing the records to
paste here, as soon as a command's help and this table disagree (a command added, renamed or
reworded), and when a record's module does not register its command. Until then a run whose
listing misses a command lists the whole application (see :func:`pecli.cli.chosen`).
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["COMMANDS", "LISTING", "Command"]


class Command(NamedTuple):
    """One command of ``pecli``.

    Attributes
    ----------
    name : str
        The command's name on the command line (``"compute"``, ``"cache"`` of ``pecli rope``).
    module : str
        The module under ``pecli.cli`` that registers it (``"sinusoidal.compute"``); a run of
        the command imports this module alone.
    help : str
        The first paragraph of its help, whitespace collapsed, as ``pecli --help`` lists it
        (top-level commands and groups; empty for a subcommand).
    group : bool
        True for a command group (``rope``, ``gguf``, ``alibi``): its module registers the
        group with all its commands.
    parent : str
        For a subcommand of a group spread over several modules, the group's name; its module
        registers the subcommand alone, so ``pecli rope cache`` does not import the other
        rope commands.

    Examples
    --------
    >>> {c.name: c.module for c in COMMANDS if c.parent == "rope"}["cache"]
    'rope.cache'

    """

    name: str
    module: str
    help: str = ""
    group: bool = False
    parent: str = ""


#: Every command and group in the order ``pecli --help`` lists them, then the subcommands of
#: the groups spread over several modules, in the order ``pecli GROUP --help`` lists them.
COMMANDS = (
    Command(
        "add",
        "sinusoidal.apply",
        "Add the positional encoding to an (n, d) data matrix: x_pos + pe(pos).",
    ),
    Command(
        "compute",
        "sinusoidal.compute",
        (
            "Compute the table pe(start) … pe(start + n - 1) and write it as CSV, "
            "npy or safetensors."
        ),
    ),
    Command(
        "conventions",
        "sinusoidal.conventions",
        "List the named conventions (--convention NAME) and who uses each.",
    ),
    Command(
        "diff",
        "ports.diff",
        "Compare two tables or caches entry by entry and name the likely cause of a difference.",
    ),
    Command(
        "plot-waves",
        "sinusoidal.plots",
        (
            "Draw the sine component of chosen pairs i against position (the "
            "article's first figure)."
        ),
    ),
    Command(
        "heatmap",
        "sinusoidal.plots",
        (
            "Draw pe(start) … pe(start + n - 1) as columns of a heatmap (the "
            "article's second figure)."
        ),
    ),
    Command(
        "fourier",
        "sinusoidal.fourier",
        "Fourier features γ(x) = [sin x, cos x, …, sin kx, cos kx] of values (NeRF, §5.1).",
    ),
    Command(
        "plot-fourier",
        "sinusoidal.fourier",
        "Draw γ(x) over several periods and, below, a random network f applied to γ(x).",
    ),
    Command(
        "grid",
        "grids.commands",
        "Compute the sinusoidal table of an H × W grid of patches (ViT, MAE, DiT, …).",
    ),
    Command(
        "plot-grid",
        "grids.commands",
        "Draw channels of a 2-D grid table as H × W images, or the patches' similarity.",
    ),
    Command(
        "identify",
        "sinusoidal.identify",
        "Recognise the convention of a table: layout, schedule, base C, first position, storage.",
    ),
    Command(
        "precision",
        "sinusoidal.precision",
        "Error of the table computed the way frameworks do (float32 angles, fp16, bf16).",
    ),
    Command(
        "plot-similarity",
        "sinusoidal.spectra",
        "Draw the similarity pe(p)·pe(p+k) / (|pe(p)| |pe(p+k)|) against the offset k.",
    ),
    Command(
        "plot-spectrum",
        "sinusoidal.spectra",
        "Draw the wavelength λ_i = 2π/ω_i of every pair i on a log scale.",
    ),
    Command(
        "wavelengths",
        "sinusoidal.wavelengths",
        "The angular frequency ω_i and wavelength λ_i = 2π C^(2(i-1)/d) of every pair i.",
    ),
    Command(
        "t5-buckets",
        "zoo",
        "T5's bucket of each relative position memory − query (key − query), as T5 computes it.",
    ),
    Command(
        "plot-alibi",
        "zoo",
        "Draw one head's ALiBi bias matrix beside every head's slope (log scale).",
    ),
    Command(
        "plot-t5-buckets",
        "zoo",
        "Draw T5's bucket of each relative position memory − query: the staircase.",
    ),
    Command(
        "timestep",
        "zoo",
        "The timestep (or noise-level) embedding a diffusion model computes for each t or σ.",
    ),
    Command(
        "random-fourier",
        "zoo",
        (
            "The random Fourier features a network computes, its frequencies read "
            "from its checkpoint."
        ),
    ),
    Command(
        "xpos",
        "zoo",
        (
            "The xPos scale ζ_i^((t - c)/γ) of each position t and channel, ζ_i = "
            "(2i + 0.4d)/(1.4d)."
        ),
    ),
    Command(
        "gguf",
        "ports.gguf",
        (
            "GGUF files (llama.cpp): rope metadata and frequency tensors, checked "
            "against a model's config.json."
        ),
        group=True,
    ),
    Command(
        "rope",
        "rope.commands",
        "Rotary position embeddings (RoPE): frequencies, caches, configs, permutation.",
        group=True,
    ),
    Command(
        "alibi",
        "zoo",
        (
            "ALiBi (attention with linear biases): slopes for any head count, the "
            "bias tensors of BLOOM, Falcon, MPT and the paper, and which ALiBi a "
            "tensor is."
        ),
        group=True,
    ),
    Command("freqs", "rope.app", parent="rope"),
    Command("config", "rope.app", parent="rope"),
    Command("mrope-ids", "multiaxis.mrope", parent="rope"),
    Command("axes", "multiaxis.axes", parent="rope"),
    Command("axis-map", "multiaxis.axis_map", parent="rope"),
    Command("plot-axes", "multiaxis.axis_map", parent="rope"),
    Command("learned-axes", "multiaxis.learned", parent="rope"),
    Command("cache", "rope.cache", parent="rope"),
    Command("engines", "ports.engines", parent="rope"),
    Command("identify", "rope.identify", parent="rope"),
    Command("identify-axes", "multiaxis.identify", parent="rope"),
    Command("probe", "rope.probe", parent="rope"),
    Command("irope", "ports.irope", parent="rope"),
    Command("layers", "rope.layers", parent="rope"),
    Command("permute", "rope.permute", parent="rope"),
    Command("precision", "rope.precision", parent="rope"),
)

#: Each top-level command and group with the first paragraph of its help, in listed order.
LISTING = {c.name: c.help for c in COMMANDS if not c.parent}
