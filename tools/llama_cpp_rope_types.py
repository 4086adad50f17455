"""Extract llama.cpp's rope type of every GGUF architecture, for pecli's fixture.

Reads two files of a llama.cpp source tree (or copies of them): ``src/llama-arch.cpp``, whose
``LLM_ARCH_NAMES`` map gives each ``LLM_ARCH_*`` its ``general.architecture`` string, and
``src/llama-model.cpp``, whose ``llama_model_rope_type`` switch gives each ``LLM_ARCH_*`` its
``LLAMA_ROPE_TYPE_*``: NONE, NORM, NEOX, MROPE, IMROPE (``include/llama.h``), or, for a few
architectures, ``model->hparams.use_mrope() ? A : B`` (MROPE when the GGUF's
``rope.dimension_sections`` has sections 0 and 1 both > 0, ``llama_hparams::use_mrope``; B
otherwise). Writes them as JSON with their provenance; the test
(tests/ports/test_gguf_rope_types.py) compares pecli's ``MODES`` with that file, offline.

It refuses (status 2, one line on stderr) a switch statement it does not know, an
architecture with no name, a name with no rope type: llama.cpp lists every architecture in
the switch ("all model arches should be listed explicitly here"), so a gap is a misread.

Usage: python tools/llama_cpp_rope_types.py SRC_DIR --commit SHA [-o OUT.json]
(SRC_DIR holds ``llama-arch.cpp`` and ``llama-model.cpp``; stdout without ``-o``.)
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

_NAME = re.compile(r'\{\s*(LLM_ARCH_\w+)\s*,\s*"([^"]+)"\s*\}')
_CASE = re.compile(r"^case\s+(LLM_ARCH_\w+)\s*:$")
_RETURN = re.compile(r"^return\s+LLAMA_ROPE_TYPE_([A-Z]+)\s*;$")
_SECTIONS = re.compile(
    r"^return\s+model->hparams\.use_mrope\(\)\s*\?\s*LLAMA_ROPE_TYPE_([A-Z]+)\s*:"
    r"\s*LLAMA_ROPE_TYPE_([A-Z]+)\s*;$"
)


class Misread(ValueError):
    """The source is not shaped as this script reads it."""


def arch_names(text: str) -> dict[str, str]:
    """``LLM_ARCH_*`` → its ``general.architecture`` name, from ``LLM_ARCH_NAMES``."""
    start = text.find("LLM_ARCH_NAMES = {")
    if start < 0:
        raise Misread("llama-arch.cpp: no LLM_ARCH_NAMES map")
    block = text[start : text.index("};", start)]
    return dict(_NAME.findall(block))


def rope_types(text: str) -> dict[str, tuple[str, str | None]]:
    """``LLM_ARCH_*`` → (rope type, rope type with M-RoPE sections or None)."""
    start = text.find("llama_rope_type llama_model_rope_type(")
    if start < 0:
        raise Misread("llama-model.cpp: no llama_model_rope_type")
    body = text[start : text.index("\n}\n", start)]
    types: dict[str, tuple[str, str | None]] = {}
    pending: list[str] = []
    for raw in body.splitlines()[2:]:  # after the signature and `switch (model->arch) {`
        line = raw.split("//", 1)[0].strip()
        if not line:
            continue
        case, plain, sections = _CASE.match(line), _RETURN.match(line), _SECTIONS.match(line)
        if case:
            pending.append(case.group(1))
        elif plain or sections:
            if not pending:
                raise Misread(f"llama-model.cpp: a return with no case: {line}")
            kind = (plain.group(1), None) if plain else (sections.group(2), sections.group(1))
            types.update(dict.fromkeys(pending, kind))
            pending = []
        elif line.startswith("GGML_ABORT") and pending == ["LLM_ARCH_UNKNOWN"]:
            pending = []
        elif line == "}":
            break
        else:
            raise Misread(f"llama-model.cpp: a statement this script does not read: {line}")
    return types


def table(src: Path, commit: str, read_from: str = "a checkout") -> dict[str, object]:
    """The fixture: every architecture name with its rope type(s), and the provenance."""
    names = arch_names((src / "llama-arch.cpp").read_text(encoding="utf-8"))
    types = rope_types((src / "llama-model.cpp").read_text(encoding="utf-8"))
    names.pop("LLM_ARCH_UNKNOWN", None)
    if set(names) != set(types):
        raise Misread(
            f"names without a rope type: {sorted(set(names) - set(types))}; "
            f"rope types without a name: {sorted(set(types) - set(names))}"
        )
    rows = sorted((names[a], *types[a]) for a in names)
    return {
        "library": "llama.cpp",
        "repository": "ggml-org/llama.cpp",
        "commit": commit,
        "call": (
            "src/llama-model.cpp llama_model_rope_type(model) for model->arch = each "
            "LLM_ARCH_* of src/llama-arch.cpp LLM_ARCH_NAMES (but LLM_ARCH_UNKNOWN); "
            "with_sections: the type when hparams.use_mrope() (rope.dimension_sections "
            "[0] > 0 and [1] > 0), null when the type does not depend on it"
        ),
        "script": "tools/llama_cpp_rope_types.py",
        "read_from": read_from,
        "columns": ["name", "rope_type", "with_sections"],
        "architectures": [list(row) for row in rows],
    }


def dumps(data: dict[str, object]) -> str:
    """JSON with one architecture a line (a diff names the architectures that moved)."""
    head = {k: v for k, v in data.items() if k != "architectures"}
    listed = data["architectures"]
    assert isinstance(listed, list)
    rows = ",\n".join("  " + json.dumps(row) for row in listed)
    return json.dumps(head, indent=1)[:-2] + ',\n "architectures": [\n' + rows + "\n ]\n}\n"


def main(argv: list[str] | None = None) -> int:
    """Write the fixture (status 0), or say on stderr what was misread (status 2)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("src", type=Path, help="folder holding llama-arch.cpp, llama-model.cpp")
    parser.add_argument("--commit", required=True, help="the llama.cpp commit they are from")
    parser.add_argument("--read-from", default="a checkout", help="how the files were got")
    parser.add_argument("-o", "--output", type=Path, help="JSON file (default stdout)")
    args = parser.parse_args(argv)
    try:
        data = table(args.src, args.commit, args.read_from)
    except (Misread, OSError) as error:
        print(f"llama_cpp_rope_types: {error}", file=sys.stderr)
        return 2
    text = dumps(data)
    if args.output:
        args.output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
