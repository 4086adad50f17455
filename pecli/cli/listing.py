"""What ``pecli --help`` lists: each command's name and the first paragraph of its help.

``pecli``, ``pecli --help`` and ``-h`` build their listing from this table alone, so they
import no command module and no NumPy: about a third of the time of ``python -c "import
numpy, typer"`` (importing the 47 command modules for their docstrings made it 1.2-1.3
times that). Rich is not involved: the help is click's plain text. The listing shows only
the start of each paragraph (click's short help), cut to the terminal's width; the whole
paragraph is kept so every width lists what the commands themselves say.

The text is a copy: ``tests/house/test_lazy_imports.py`` fails, printing the table to paste here,
as soon as a command's help and this table disagree (a command added, renamed or reworded).
Until then a run whose listing misses a command lists the whole application (see
:func:`pecli.cli.chosen`).
"""

from __future__ import annotations

__all__ = ["LISTING"]

#: Every command and group in the order ``pecli --help`` lists them, with the first paragraph
#: of its help (whitespace collapsed, as click's short help reads it).
LISTING = {
    "add": "Add the positional encoding to an (n, d) data matrix: x_pos + pe(pos).",
    "compute": "Compute the table pe(start) … pe(start + n - 1) and write it as CSV, npy or "
    "safetensors.",
    "conventions": "List the named conventions (--convention NAME) and who uses each.",
    "diff": "Compare two tables or caches entry by entry and name the likely cause of a "
    "difference.",
    "plot-waves": "Draw the sine component of chosen pairs i against position (the article's "
    "first figure).",
    "heatmap": "Draw pe(start) … pe(start + n - 1) as columns of a heatmap (the article's "
    "second figure).",
    "fourier": "Fourier features γ(x) = [sin x, cos x, …, sin kx, cos kx] of values (NeRF, §5.1).",
    "plot-fourier": "Draw γ(x) over several periods and, below, a random network f applied to "
    "γ(x).",
    "grid": "Compute the sinusoidal table of an H × W grid of patches (ViT, MAE, DiT, …).",
    "plot-grid": "Draw channels of a 2-D grid table as H × W images, or the patches' similarity.",
    "identify": "Recognise the convention of a table: layout, schedule, base C, first "
    "position, storage.",
    "precision": "Error of the table computed the way frameworks do (float32 angles, fp16, bf16).",
    "plot-similarity": "Draw the similarity pe(p)·pe(p+k) / (|pe(p)| |pe(p+k)|) against the "
    "offset k.",
    "plot-spectrum": "Draw the wavelength λ_i = 2π/ω_i of every pair i on a log scale.",
    "wavelengths": "The angular frequency ω_i and wavelength λ_i = 2π C^(2(i-1)/d) of every "
    "pair i.",
    "t5-buckets": "T5's bucket of each relative position memory − query (key − query), as T5 "
    "computes it.",
    "plot-alibi": "Draw one head's ALiBi bias matrix beside every head's slope (log scale).",
    "plot-t5-buckets": "Draw T5's bucket of each relative position memory − query: the staircase.",
    "timestep": "The timestep (or noise-level) embedding a diffusion model computes for each t "
    "or σ.",
    "random-fourier": "The random Fourier features a network computes, its frequencies read "
    "from its checkpoint.",
    "xpos": "The xPos scale ζ_i^((t - c)/γ) of each position t and channel, ζ_i = (2i + "
    "0.4d)/(1.4d).",
    "gguf": "GGUF files (llama.cpp): rope metadata and frequency tensors, checked against a "
    "model's config.json.",
    "rope": "Rotary position embeddings (RoPE): frequencies, caches, configs, permutation.",
    "alibi": "ALiBi (attention with linear biases): slopes for any head count, the bias "
    "tensors of BLOOM, Falcon, MPT and the paper, and which ALiBi a tensor is.",
}
