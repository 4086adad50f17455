"""The named conventions: what each library does, as the knobs of :func:`pecli.encoding_table`.

A *convention* adds to a layout (:mod:`.layouts`) the frequency schedule, the first position,
an optional all-zero padding row (fairseq), what happens to an odd width ``d``, and the
factors some libraries put on the angles (diffusers' ``scale``, MLX's ``full_turns``) or on
the values (MLX's ``sqrt(2/d)``). Every preset was read from the library's own source
(docs/conventions.md names the file and function of each).

References
----------
.. [1] A. Vaswani et al., "Attention Is All You Need", NeurIPS 2017, §3.5.
.. [2] A. Vaswani et al., "Tensor2Tensor for Neural Machine Translation", 2018
   (``get_timing_signal_1d``).

"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["ALIASES", "PRESETS", "Convention"]


@dataclass(frozen=True)
class Convention:
    """One way of building the table: the knobs of :func:`pecli.encoding_table`.

    Attributes
    ----------
    name : str
        The preset's name (``"custom"`` once a knob is changed).
    schedule : str
        ``paper``, ``tensor2tensor`` or ``shift:S``.
    layout : str
        ``interleaved``, ``sin-cos`` or ``cos-sin``.
    start : int
        Position of the first row.
    padding_idx : int or None
        Row that is all zeros (fairseq), or None.
    odd_d : str
        What an odd ``d`` does: ``error``, ``zero`` (a zero last column), ``sine``
        (``ceil(d/2)`` sines, frequencies ``C^(-2j/d)``) or ``sine-d+1`` (frequencies of
        ``d + 1`` channels, the last cosine dropped).
    angle_scale : float
        Factor ``k`` of every angle ``k·p·ω`` (diffusers' ``scale``; MLX's ``max_freq``).
    full_turns : bool
        Angles in turns: ``2π·k·p·ω`` (MLX's ``full_turns``).
    amplitude : float or str
        Factor of every value: a number or ``"sqrt(2/d)"`` (MLX's default ``scale``).
    users : str
        Who uses it.

    """

    name: str
    schedule: str
    layout: str
    start: int
    padding_idx: int | None = None
    odd_d: str = "error"
    angle_scale: float = 1.0
    full_turns: bool = False
    amplitude: float | str = 1.0
    users: str = ""

    @property
    def pad_odd_d(self) -> bool:
        """An odd ``d`` ends with a zero column (``odd_d == "zero"``)."""
        return self.odd_d == "zero"

    def factors(self) -> list[str]:
        """The factors set away from the plain formula: ``angle_scale`` and the like.

        Commands that model only ``sin(p·ω)`` (``plot-waves``, ``precision``) refuse them.
        """
        knobs = {
            "angle_scale": self.angle_scale != 1.0,
            "full_turns": self.full_turns,
            "amplitude": self.amplitude != 1.0,
        }
        return [knob for knob, on in knobs.items() if on]

    def check_plain(self, command: str) -> None:
        """Raise :class:`ParameterError` if :meth:`factors` is not empty (``command`` names who).

        The parameter named is the factor when one was given (a ``custom`` convention), else
        ``convention``.
        """
        from ...errors import ParameterError

        factors = self.factors()
        if factors:
            parameter = factors[0] if self.name == "custom" else "convention"
            named = ", ".join(f"`{factor}`" for factor in factors)
            rule = f"sets {named}, which {command} does not model (sin(p·ω) alone)"
            raise ParameterError(parameter, rule, self.name)

    def table_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for :func:`pecli.encoding_table` / :func:`pecli.table_blocks`."""
        return {
            "schedule": self.schedule,
            "layout": self.layout,
            "start": self.start,
            "padding_idx": self.padding_idx,
            "odd_d": self.odd_d,
            "angle_scale": self.angle_scale,
            "full_turns": self.full_turns,
            "amplitude": self.amplitude,
        }


def _preset(name: str, schedule: str, layout: str, odd_d: str, users: str, **kw: Any) -> Convention:
    return Convention(name, schedule, layout, kw.pop("start", 0), odd_d=odd_d, users=users, **kw)


#: The named conventions of docs/conventions.md, by name.
PRESETS: dict[str, Convention] = {
    c.name: c
    for c in (
        _preset("vaswani", "paper", "interleaved", "error", "the article (§3.5)", start=1),
        _preset(
            "pytorch",
            "paper",
            "interleaved",
            "error",
            "PyTorch tutorial, Annotated Transformer, SpeechT5 ScaledPositionalEncoding, "
            "ESPnet PositionalEncoding",
        ),
        _preset("hf-marian", "paper", "sin-cos", "sine", "HF Marian, the TensorFlow tutorial"),
        _preset(
            "tensor2tensor",
            "tensor2tensor",
            "sin-cos",
            "zero",
            "tensor2tensor get_timing_signal_1d, Marian C++",
        ),
        _preset(
            "fairseq",
            "tensor2tensor",
            "sin-cos",
            "zero",
            "fairseq, HF M2M100 / Speech2Text / SpeechT5 SinusoidalPositionalEmbedding",
            padding_idx=1,
        ),
        _preset(
            "diffusers",
            "tensor2tensor",
            "sin-cos",
            "zero",
            "diffusers get_timestep_embedding (its flip_sin_to_cos, downscale_freq_shift "
            "and scale are options)",
        ),
        _preset(
            "whisper",
            "tensor2tensor",
            "sin-cos",
            "error",
            "OpenAI Whisper sinusoids, HF WhisperEncoder",
        ),
        _preset(
            "distilbert",
            "paper",
            "interleaved",
            "sine",
            "DistilBERT/XLM create_sinusoidal_embeddings, keras-hub SinePositionEncoding "
            "(start_index = `start`)",
        ),
        _preset(
            "positional-encodings",
            "paper",
            "interleaved",
            "sine-d+1",
            "tatp22 positional-encodings PositionalEncoding1D",
        ),
        _preset(
            "ldm",
            "paper",
            "cos-sin",
            "zero",
            "LDM / sgm timestep_embedding, Stable Diffusion UNet (diffusers "
            "flip_sin_to_cos=True, downscale_freq_shift=0)",
        ),
        _preset("musicgen", "tensor2tensor", "cos-sin", "zero", "HF MusicGen"),
        _preset(
            "lucidrains",
            "tensor2tensor",
            "sin-cos",
            "error",
            "lucidrains SinusoidalPosEmb (denoising-diffusion-pytorch; odd d: d - 1 columns)",
        ),
        _preset(
            "mlx",
            "tensor2tensor",
            "sin-cos",
            "error",
            "MLX nn.SinusoidalPositionalEncoding (C = max_freq/min_freq, `angle_scale` max_freq)",
            amplitude="sqrt(2/d)",
        ),
    )
}

#: Other names a user looks for, and the preset that makes their table.
ALIASES: dict[str, str] = {
    "annotated-transformer": "pytorch",
    "speecht5": "pytorch",
    "espnet": "pytorch",
    "xlm": "distilbert",
    "keras-hub": "distilbert",
    "tatp22": "positional-encodings",
    "m2m100": "fairseq",
    "speech2text": "fairseq",
    "stable-diffusion": "ldm",
    "sgm": "ldm",
    "denoising-diffusion-pytorch": "lucidrains",
}
