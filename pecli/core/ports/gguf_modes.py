"""llama.cpp's rope type of each GGUF architecture: which channels it pairs, or none.

One record per type (``llama_rope_type`` in ``include/llama.h``: NONE, then ggml's modes) with
the ``general.architecture`` names that rotate in it: every architecture llama.cpp's
``llama_model_rope_type`` (``src/llama-model.cpp``) lists at ggml-org/llama.cpp 00395eb2, its
names from ``src/llama-arch.cpp`` ``LLM_ARCH_NAMES``. Used by ``gguf show``, ``gguf check`` and
``rope layers`` on a GGUF. Pure Python; no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "ARCH_MODES",
    "MODES",
    "ROPE_MODES",
    "SECTIONS_MODES",
    "RopeMode",
    "mode_words",
    "rope_mode",
]


@dataclass(frozen=True)
class RopeMode:
    """One of llama.cpp's rope types and the architectures that rotate in it.

    Attributes
    ----------
    name : str
        ``NONE``, ``NORM``, ``NEOX``, … (``LLAMA_ROPE_TYPE_*`` in ``llama.h``: ``NONE`` = -1,
        the others ggml's ``GGML_ROPE_TYPE_*`` in ``ggml.h``).
    value : int
        Its value there.
    pairs : str
        Which channels form a pair, in words.
    architectures : tuple of str
        The GGUF ``general.architecture`` names llama.cpp rotates in this mode.

    """

    name: str
    value: int
    pairs: str
    architectures: tuple[str, ...] = ()


#: llama.cpp's rope types, one record each (``llama_rope_type`` in ``include/llama.h``: NONE, then
#: ggml's modes); a new architecture is a name in one record. The whole population of
#: ``llama_model_rope_type`` at ggml-org/llama.cpp 00395eb285c7c6821ff372e3ca41dae9da33c2c7
#: (``src/llama-model.cpp``, names from ``src/llama-arch.cpp`` ``LLM_ARCH_NAMES``), in its order;
#: tests/fixtures/libraries/gguf/llama_cpp_rope_types.json holds that list and
#: tests/ports/test_gguf_rope_types.py holds this table to it. Where llama.cpp's type depends on
#: the file (glm4, glm4moe, hunyuan_vl) the record holds the type without M-RoPE sections and
#: :data:`SECTIONS_MODES` the one with them.
MODES = {
    m.name: m
    for m in (
        RopeMode(
            "NONE",
            -1,
            "no rotary embedding: no channel rotates (learned, ALiBi or relative positions, "
            "or recurrent layers)",
            (
                "clip",
                "gpt2",
                "gptj",
                "mpt",
                "refact",
                "bloom",
                "mamba",
                "mamba2",
                "jamba",
                "jina-bert-v2",
                "t5",
                "t5encoder",
                "jais",
                "rwkv6",
                "rwkv6qwen2",
                "rwkv7",
                "arwkv7",
                "wavtokenizer-dec",
                "nemotron_h",
                "nemotron_h_moe",
                "kimi-linear",
            ),
        ),
        RopeMode(
            "NORM",
            0,
            "consecutive pairs (2j, 2j+1): the converter permuted q_proj/k_proj rows from "
            "transformers' half-split layout (LlamaModel.permute), or wrote rows already "
            "paired so as they are (deepseek2)",
            (
                "llama",
                "llada",
                "llama4",
                "deci",
                "baichuan",
                "starcoder",
                "internlm2",
                "minicpm",
                "xverse",
                "command-r",
                "cohere2",
                "cohere2moe",
                "olmo",
                "arctic",
                "deepseek",
                "deepseek2",
                "deepseek2-ocr",
                "deepseek32",
                "deepseek4",
                "plm",
                "chatglm",
                "granite",
                "granitemoe",
                "granitehybrid",
                "chameleon",
                "bailingmoe",
                "neo-bert",
                "smollm3",
                "arcee",
                "ernie4_5",
                "ernie4_5-moe",
                "mistral3",
                "eagle3",
                "mistral4",
                "llama-embed",
                "maincoder",
                "glm-dsa",
                "glm4",
            ),
        ),
        RopeMode(
            "NEOX",
            2,
            "half-split pairs (j, j + n_rot/2), transformers' rotate_half layout; no permutation",
            (
                "falcon",
                "falcon-h1",
                "grok",
                "dbrx",
                "bert",
                "jina-bert-v3",
                "modern-bert",
                "nomic-bert",
                "nomic-bert-moe",
                "eurobert",
                "stablelm",
                "bitnet",
                "qwen",
                "qwen2",
                "dream",
                "qwen2moe",
                "qwen3",
                "qwen3moe",
                "llada-moe",
                "rnd1",
                "olmo2",
                "olmoe",
                "phi2",
                "phi3",
                "phimoe",
                "plamo",
                "plamo2",
                "plamo3",
                "gemma",
                "gemma2",
                "gemma3",
                "gemma3n",
                "gemma4",
                "gemma4-assistant",
                "gemma-embedding",
                "starcoder2",
                "openelm",
                "gptneox",
                "codeshell",
                "orion",
                "nemotron",
                "exaone",
                "exaone4",
                "exaone-moe",
                "minicpm3",
                "bailingmoe2",
                "dots1",
                "hunyuan-moe",
                "jais2",
                "gpt-oss",
                "hunyuan-dense",
                "hy_v3",
                "lfm2",
                "lfm2moe",
                "smallthinker",
                "seed_oss",
                "grovemoe",
                "apertus",
                "minimax-m2",
                "cogvlm",
                "pangu-embedded",
                "afmoe",
                "laguna",
                "qwen3next",
                "mimo2",
                "step35",
                "talkie",
                "mellum",
                "dflash",
                "glm4moe",
                "hunyuan_vl",
            ),
        ),
        RopeMode(
            "MROPE",
            8,
            "half-split pairs, sections of the pairs driven by time, height, width",
            ("qwen2vl", "paddleocr"),
        ),
        RopeMode("VISION", 24, "half-split pairs, the exponent restarting in each section"),
        RopeMode(
            "IMROPE",
            40,
            "half-split pairs, time/height/width interleaved pair by pair",
            ("qwen3vl", "qwen3vlmoe", "qwen35", "qwen35moe"),
        ),
    )
}
#: The rope type of the architectures whose type llama.cpp takes from the file: this one when
#: ``{arch}.rope.dimension_sections`` has sections 0 and 1 both > 0
#: (``llama_hparams::use_mrope``), their :data:`MODES` record's otherwise.
SECTIONS_MODES = {"glm4": "MROPE", "glm4moe": "MROPE", "hunyuan_vl": "MROPE"}
#: ggml's rope modes by name: their values.
ROPE_MODES = {name: mode.value for name, mode in MODES.items()}
#: The mode each GGUF ``general.architecture`` implies.
ARCH_MODES = {arch: mode.name for mode in MODES.values() for arch in mode.architectures}


def rope_mode(
    arch: str | None, sections: Sequence[int] | None = None
) -> tuple[str, int, str] | None:
    """The rope mode llama.cpp uses for a GGUF architecture: name, value, pair layout.

    ``sections`` is the file's ``{arch}.rope.dimension_sections``, if any: with sections 0 and
    1 both > 0, glm4, glm4moe and hunyuan_vl rotate in M-RoPE (:data:`SECTIONS_MODES`).

    Examples
    --------
    >>> rope_mode("llama")[:2], rope_mode("qwen2")[:2], rope_mode("qwen3vl")[:2]
    (('NORM', 0), ('NEOX', 2), ('IMROPE', 40))
    >>> rope_mode("glm4")[:2], rope_mode("glm4", [8, 12, 12, 0])[:2], rope_mode("gpt2")[:2]
    (('NORM', 0), ('MROPE', 8), ('NONE', -1))
    >>> rope_mode("mystery") is None
    True

    """
    name = ARCH_MODES.get(arch or "")
    if arch in SECTIONS_MODES and _use_mrope(sections):
        name = SECTIONS_MODES[arch]
    return None if name is None else (name, MODES[name].value, MODES[name].pairs)


def mode_words(arch: str | None, sections: Sequence[int] | None = None) -> str | None:
    """:func:`rope_mode` in words, as ``rope layers`` and ``gguf check`` note it; None if unknown.

    >>> mode_words("qwen2").split(",")[0], mode_words("gpt2").split(",")[0]
    ('qwen2: llama.cpp rotates in mode NEOX (2)', "gpt2: llama.cpp's rope type is NONE (-1)")
    """
    mode = rope_mode(arch, sections)
    if mode is None:
        return None
    name, value, pairs = mode
    if name == "NONE":
        return f"{arch}: llama.cpp's rope type is NONE ({value}), {pairs}"
    return f"{arch}: llama.cpp rotates in mode {name} ({value}), {pairs}"


def _use_mrope(sections: Sequence[int] | None) -> bool:
    """llama.cpp's ``use_mrope``: sections 0 and 1 both > 0."""
    try:
        return sections is not None and int(sections[0]) > 0 and int(sections[1]) > 0
    except (IndexError, TypeError, ValueError):
        return False
