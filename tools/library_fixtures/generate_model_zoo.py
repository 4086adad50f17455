"""The model zoo as a test corpus: every rotary model type of transformers (area ``model_zoo``).

For every model type whose model, built by transformers from the type's config, constructs a
rotary module (``model_zoo_build``), and for the hub-style configs of ``model_zoo_variants``:

* ``<name>.json``: the config as given (hub configs), the config.json transformers'
  ``save_pretrained`` writes for it, every rotary module the model constructs (class, the
  constructor call with its config arguments named by path, where the module sits in the
  model), per rotary label its ``rope_type``, ``attention_scaling``, the rotated width and the
  names of its arrays; the per-layer plan observed by running the model (``model_zoo_layers``);
  the query temperature where the model has one; facts worth knowing; provenance.
* ``<name>.npz``: per module and label ``inv_freq`` (float32, as the module holds it) and
  ``cos`` / ``sin`` at :data:`model_zoo_rotary.POSITIONS` (float32, as the forward returns them).
* ``index.json``: every model type of transformers' config mapping that its modeling files
  mention rotary embeddings for, with its status (generated, or why not) and its fixtures.
"""

from __future__ import annotations

import importlib.metadata
import json
import sys
import tempfile
import traceback
import warnings
from pathlib import Path
from typing import Any

# transformers imports torchvision when it is installed; none of this needs it
sys.modules.setdefault("torchvision", None)  # type: ignore[arg-type]

import model_zoo_build as build  # noqa: E402
import model_zoo_layers as layers  # noqa: E402
import model_zoo_rotary as rotary  # noqa: E402
import model_zoo_variants as variants  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
import transformers  # noqa: E402
from transformers.utils import logging as hf_logging  # noqa: E402

VERSIONS = {
    "transformers": transformers.__version__,
    "torch": torch.__version__,
    "numpy": np.__version__,
    "python": sys.version.split()[0],
}


def saved_config(config: transformers.PreTrainedConfig) -> dict[str, Any]:
    """The config.json ``save_pretrained`` writes for ``config``."""
    with tempfile.TemporaryDirectory() as folder:
        config.save_pretrained(folder)
        return json.loads((Path(folder) / "config.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def _jsonable(value: Any) -> Any:
    if isinstance(value, float) and not np.isfinite(value):
        return repr(value)
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def _module_record(
    index: int, construction: build.Construction, config: Any, arrays: dict[str, np.ndarray]
) -> dict[str, Any]:
    """One rotary module: how it was constructed, and per label its tables (into ``arrays``)."""
    configs = [
        a
        for a in [*construction.args, *construction.kwargs.values()]
        if isinstance(a, transformers.PreTrainedConfig)
    ]
    record: dict[str, Any] = {
        "class": construction.cls.__name__,
        "module": construction.cls.__module__,
        "call": construction.call(config),
        "config_path": build.config_path(configs[0], config) if configs else None,
        "paths": construction.paths,
        "tables": [],
    }
    try:
        module = build.construct_on_cpu(construction)
        record["forward"] = rotary.forward_kind(module)
        record["buffers"] = sorted(n for n, _ in module.named_buffers(recurse=False))
        tables = rotary.run(module)
    except Exception as exc:  # the module cannot run on this config: say so, keep the rest
        record["error"] = build.one_line(exc)
        tables = []
    for table in tables:
        key = f"m{index}.{table['label'] or '_'}"
        entry = {k: v for k, v in table.items() if not isinstance(v, np.ndarray)}
        entry["arrays"] = {}
        for name, value in table.items():
            if isinstance(value, np.ndarray):
                arrays[f"{key}.{name}"] = value
                entry["arrays"][name] = f"{key}.{name}"
        record["tables"].append(entry)
    return record


def describe_config(
    name: str, model_type: str, config: Any, kind: str, source: str, given: dict[str, Any] | None
) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """Everything recorded for one config: the JSON document and its arrays."""
    doc: dict[str, Any] = {
        "name": name,
        "kind": kind,
        "model_type": model_type,
        "config_class": type(config).__name__,
        "source": source,
    }
    if given is not None:
        doc["given_config"] = given
    doc["config_json"] = saved_config(config)
    arrays: dict[str, np.ndarray] = {"positions": np.asarray(rotary.POSITIONS, dtype=np.int64)}
    doc["positions"] = list(rotary.POSITIONS)
    doc["position_dtype"] = "int64 (position_ids as the models make them, from cache_position)"
    model, constructions, how = build.constructions(model_type, config)
    doc["model_class"] = how["model_class"]
    doc["build"] = how["build"]
    if "paths_in" in how:
        doc["module_paths_in"] = how["paths_in"]
    doc["modules"] = [_module_record(i, c, config, arrays) for i, c in enumerate(constructions)]
    doc["layers"] = layers.plan(model_type, config, model, constructions)
    doc["facts"] = variants.facts(name, doc)
    doc["provenance"] = {
        "library": "transformers",
        "version": VERSIONS["transformers"],
        "versions": VERSIONS,
        "call": how["call"],
        "generator": "tools/library_fixtures/generate_model_zoo.py",
    }
    return _jsonable(doc), arrays


def write(out: Path, doc: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
    """Write ``<name>.json`` and ``<name>.npz``."""
    out.mkdir(parents=True, exist_ok=True)
    name = doc["name"]
    (out / f"{name}.json").write_text(
        json.dumps(doc, indent=1, sort_keys=False) + "\n", encoding="utf-8"
    )
    np.savez_compressed(out / f"{name}.npz", **arrays)


def _raised_in(exc: BaseException) -> str:
    """Where an exception was raised: the innermost frame, its path from the package folder."""
    frame = traceback.extract_tb(exc.__traceback__)[-1]
    path = frame.filename.split("site-packages/")[-1].split("library_fixtures/")[-1]
    return f"{path}:{frame.lineno} {frame.name}"


def _attempt(
    out: Path,
    name: str,
    model_type: str,
    make: Any,
    kind: str,
    source: str,
    given: dict[str, Any] | None,
) -> dict[str, Any]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            config = make()
            doc, arrays = describe_config(name, model_type, config, kind, source, given)
    except Exception as exc:  # recorded in the index, with the reason
        return {"name": name, "error": build.one_line(exc), "raised_in": _raised_in(exc)}
    if not any(m["tables"] for m in doc["modules"]):
        return {
            "name": name,
            "modules": [m["class"] for m in doc["modules"]],
            "module_errors": [m["error"] for m in doc["modules"] if "error" in m],
            "build": doc["build"],
            "no_tables": True,
        }
    write(out, doc, arrays)
    return {"name": name, "written": True, "modules": [m["class"] for m in doc["modules"]]}


def generate(out: Path) -> None:
    """Write the model-zoo fixtures and their index into ``out``."""
    hf_logging.set_verbosity_error()
    torch.set_num_threads(1)  # tiny matrices: more threads only fight over a shared machine
    torch.manual_seed(0)
    for old in list(out.glob("*.json")) + list(out.glob("*.npz")):
        old.unlink()
    index: dict[str, Any] = {"versions": VERSIONS, "model_types": {}, "fixtures": {}}
    found = build.candidates()
    for model_type, files in found.items():
        entry: dict[str, Any] = {
            "config_class": build.CONFIG_MAPPING_NAMES[model_type],
            "modeling_files": files,
        }
        result = _attempt(
            out,
            f"default__{model_type}",
            model_type,
            build.config_class(model_type),
            "default",
            f"{build.CONFIG_MAPPING_NAMES[model_type]}() defaults",
            None,
        )
        entry["default"] = result
        index["model_types"][model_type] = entry
        print(model_type, entry["default"], flush=True)
    for variant in variants.VARIANTS:
        result = _attempt(
            out,
            variant.name,
            variant.model_type,
            variant.make,
            variant.kind,
            variant.source,
            variant.given,
        )
        if "error" in result and variant.name in variants.FACTS:
            result["facts"] = variants.FACTS[variant.name]
        index["model_types"].setdefault(variant.model_type, {}).setdefault("variants", []).append(
            result
        )
        print(variant.name, result, flush=True)
    variants.classify(index)
    for path in sorted(out.glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        index["fixtures"][doc["name"]] = {"model_type": doc["model_type"], "kind": doc["kind"]}
    (out / "index.json").write_text(json.dumps(index, indent=1) + "\n", encoding="utf-8")
    print(
        "model_zoo:", importlib.metadata.version("transformers"), len(index["fixtures"]), "fixtures"
    )
