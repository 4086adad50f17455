"""Find transformers' rotary model types and the rotary modules their models construct.

Used by ``generate_model_zoo.py``. A model type is *rotary* when the model transformers builds
from its config constructs a rotary module (an ``nn.Module`` of the modeling code whose class
name says Rotary / RoPE / Rope). To see which modules, with which arguments, the model is built
on the meta device while every such class's ``__init__`` is wrapped to record its arguments;
each recorded construction is then repeated on the CPU with the same arguments, so the module
holds real ``inv_freq`` buffers, made exactly the way the modeling code makes them.
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
import transformers
from transformers import PreTrainedConfig, PreTrainedModel
from transformers.models.auto import modeling_auto
from transformers.models.auto.configuration_auto import (
    CONFIG_MAPPING_NAMES,
    model_type_to_module_name,
)

MODELS = Path(transformers.__file__).parent / "models"
#: A rotary class name: "Rotary", "RoPE" or "Rope" as a word of the CamelCase name (not the
#: "rope" inside "SolarOpen"), and not an attention module that takes rotary tables.
ROTARY_NAME = re.compile(r"(Rotary|RoPE|Rope)(?![a-z])(?!.*Attention$)")
#: What the modeling sources are grepped for, to find the candidates.
ROTARY_SOURCE = re.compile(
    r"RotaryEmbedding|ROPE_INIT_FUNCTIONS|apply_rotary_pos_emb|rotary", re.IGNORECASE
)


@dataclass
class Construction:
    """One rotary module the model constructed: its class, arguments and where it sits."""

    cls: type
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    paths: list[str] = field(default_factory=list)

    def call(self, config: PreTrainedConfig) -> str:
        """The constructor call, with config arguments named by their path in ``config``."""
        parts = [describe(a, config) for a in self.args]
        parts += [f"{k}={describe(v, config)}" for k, v in self.kwargs.items()]
        return f"{self.cls.__name__}({', '.join(parts)})"


_RECORD: list[tuple[type, Any, tuple[Any, ...], dict[str, Any]]] = []
_PATCHED: set[type] = set()


def _wrap(cls: type) -> None:
    original = cls.__init__

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        _RECORD.append((cls, self, args, kwargs))
        original(self, *args, **kwargs)

    cls.__init__ = init  # type: ignore[misc]
    cls._model_zoo_original_init = original  # type: ignore[attr-defined]
    _PATCHED.add(cls)


def watch_rotary_classes() -> None:
    """Wrap the ``__init__`` of every rotary class of the modeling modules imported so far."""
    for name, module in list(sys.modules.items()):
        if not name.startswith("transformers.models.") or module is None:
            continue
        for attr, obj in list(vars(module).items()):
            if (
                inspect.isclass(obj)
                and issubclass(obj, torch.nn.Module)
                and (ROTARY_NAME.search(attr) or attr in EXTRA_ROTARY)
                and obj.__name__ == attr
                and not issubclass(obj, PreTrainedModel)
                and obj not in _PATCHED
            ):
                _wrap(obj)


def candidates() -> dict[str, list[str]]:
    """Every model type whose modeling files mention rotary embeddings, with those files."""
    found = {}
    for model_type in CONFIG_MAPPING_NAMES:
        folder = MODELS / model_type_to_module_name(model_type).replace(".", "/")
        hits = [
            f.name
            for f in sorted(folder.glob("modeling_*.py"))
            if ROTARY_SOURCE.search(f.read_text(encoding="utf-8"))
        ]
        if hits:
            found[model_type] = hits
    return found


def config_class(model_type: str) -> type[PreTrainedConfig]:
    """The config class of a model type."""
    return getattr(transformers, CONFIG_MAPPING_NAMES[model_type])  # type: ignore[no-any-return]


def model_class(model_type: str) -> type[PreTrainedModel]:
    """The model class transformers builds for ``model_type``.

    AutoModel's, else any auto mapping's, else the modeling module's model class whose
    ``config_class`` is the type's config class
    (base model before heads).
    """
    maps = [modeling_auto.MODEL_MAPPING_NAMES] + [
        getattr(modeling_auto, n)
        for n in sorted(dir(modeling_auto))
        if n.startswith("MODEL_FOR_") and n.endswith("_MAPPING_NAMES")
    ]
    package = "transformers.models." + model_type_to_module_name(model_type)
    modules = [
        importlib.import_module(f"{package}.{f.stem}")
        for f in sorted((MODELS / package.split(".", 2)[2].replace(".", "/")).glob("modeling_*.py"))
    ]
    for mapping in maps:
        name = mapping.get(model_type)
        if isinstance(name, (list, tuple)):
            name = name[0]
        if name:
            for module in [transformers, *modules]:
                if hasattr(module, name):
                    return getattr(module, name)  # type: ignore[no-any-return]
    cfg_cls = config_class(model_type)
    owners = [
        obj
        for module in modules
        for name, obj in vars(module).items()
        if inspect.isclass(obj)
        and issubclass(obj, PreTrainedModel)
        and obj.__module__ == module.__name__
        and getattr(obj, "config_class", None) is cfg_cls
        and not name.endswith("PreTrainedModel")
    ]
    if not owners:
        raise LookupError(f"no model class takes {cfg_cls.__name__}")
    owners.sort(key=lambda c: ("For" in c.__name__, c.__name__))
    return owners[0]


def sub_configs(config: PreTrainedConfig, prefix: str = "") -> list[tuple[str, PreTrainedConfig]]:
    """``config`` and every config nested in it, each with its attribute path ("" = root)."""
    found = [(prefix, config)]
    for key, value in vars(config).items():
        if isinstance(value, PreTrainedConfig):
            found += sub_configs(value, f"{prefix}.{key}" if prefix else key)
        elif isinstance(value, dict):
            for label, inner in value.items():
                if isinstance(inner, PreTrainedConfig):
                    path = f"{prefix}.{key}" if prefix else key
                    found += sub_configs(inner, f"{path}[{label!r}]")
    return found


def config_path(target: Any, config: PreTrainedConfig) -> str | None:
    """The path of ``target`` in ``config``'s tree: by identity, else by equal contents."""
    tree = sub_configs(config)
    for path, sub in tree:
        if sub is target:
            return path
    for path, sub in tree:
        if type(sub) is type(target) and sub.to_dict() == target.to_dict():
            return path
    return None


def describe(value: Any, config: PreTrainedConfig) -> str:
    """A readable form of one constructor argument."""
    if isinstance(value, PreTrainedConfig):
        path = config_path(value, config)
        if path is None:
            return f"<a {type(value).__name__} not in the config tree>"
        return f"config.{path}" if path else "config"
    if isinstance(value, torch.device):
        return f"device({str(value)!r})"
    return repr(value)


def one_line(exc: BaseException) -> str:
    """An exception as one line of at most 300 characters: its type and its message."""
    return " ".join(f"{type(exc).__name__}: {exc}".split())[:300]


def import_modeling(config: PreTrainedConfig) -> None:
    """Import the modeling modules of every model type in ``config``'s tree.

    So that the rotary classes of sub-models (a composite's text model) are watched before the
    build.
    """
    for _, sub in sub_configs(config):
        sub_type = getattr(sub, "model_type", None)
        if sub_type not in CONFIG_MAPPING_NAMES:
            continue
        package = "transformers.models." + model_type_to_module_name(sub_type)
        for f in sorted(
            (MODELS / package.split(".", 2)[2].replace(".", "/")).glob("modeling_*.py")
        ):
            try:
                importlib.import_module(f"{package}.{f.stem}")
            except Exception:  # a sub-model needing an absent package fails later, with its reason
                continue


def build_on_meta(model_type: str, config: PreTrainedConfig) -> tuple[Any, list[Construction]]:
    """Build the model on the meta device; return it and the rotary modules it constructed."""
    cls = model_class(model_type)
    import_modeling(config)
    watch_rotary_classes()
    _RECORD.clear()
    try:
        with torch.device("meta"):
            model = cls(config)
    finally:
        record = list(_RECORD)
        _RECORD.clear()
    names = {id(m): n for n, m in model.named_modules()}
    constructions: list[Construction] = []
    for rcls, instance, args, kwargs in record:
        path = names.get(id(instance))
        if path is None:
            continue  # built and thrown away (a temporary inside another constructor)
        for c in constructions:
            if c.cls is rcls and _same(c.args, args) and _same(c.kwargs, kwargs):
                c.paths.append(path)
                break
        else:
            constructions.append(Construction(rcls, args, kwargs, [path]))
    return model, constructions


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, PreTrainedConfig) or isinstance(b, PreTrainedConfig):
        return a is b
    try:
        return bool(a == b)
    except Exception:
        return a is b


def construct_on_cpu(construction: Construction) -> torch.nn.Module:
    """Repeat one recorded construction on the CPU (same class, same arguments)."""
    kwargs = {
        k: (torch.device("cpu") if isinstance(v, torch.device) else v)
        for k, v in construction.kwargs.items()
    }
    with torch.device("cpu"):
        return construction.cls(*construction.args, **kwargs)  # type: ignore[no-any-return]


#: Rotary modules whose class name does not say so.
EXTRA_ROTARY = ("RoFormerSinusoidalPositionalEmbedding",)


def _direct(model_type: str, config: PreTrainedConfig) -> list[Construction]:
    """Construct the rotary classes of the type's modeling modules directly.

    Each is built from the config in the tree whose class its ``__init__`` annotates (when the
    model itself cannot be built).
    """
    package = "transformers.models." + model_type_to_module_name(model_type)
    folder = MODELS / package.split(".", 2)[2].replace(".", "/")
    tree = sub_configs(config)
    found = []
    for f in sorted(folder.glob("modeling_*.py")):
        module = importlib.import_module(f"{package}.{f.stem}")
        for name, obj in vars(module).items():
            if not (
                inspect.isclass(obj)
                and issubclass(obj, torch.nn.Module)
                and obj.__module__ == module.__name__
                and not issubclass(obj, PreTrainedModel)
                and (ROTARY_NAME.search(name) or name in EXTRA_ROTARY)
            ):
                continue
            init = getattr(obj, "_model_zoo_original_init", obj.__init__)
            params = list(inspect.signature(init).parameters.values())[1:]
            if not params or params[0].name != "config":
                continue
            wanted = params[0].annotation
            wanted = wanted if isinstance(wanted, str) else getattr(wanted, "__name__", "")
            # the annotated class first, then text configs (composites annotate the root
            # config where their models pass text_config), then the root
            order = [t for t in tree if type(t[1]).__name__ == wanted]
            if order or type(tree[0][1]).__name__.replace("Config", "") in name:
                # composites annotate the root config where their models pass text_config
                order += [t for t in tree if t[0].endswith("text_config") and t not in order]
                order += [t for t in tree[:1] if t not in order]
            errors = []
            for path, sub in order:
                try:
                    with torch.device("cpu"):
                        obj(sub)
                except Exception as exc:
                    errors.append(f"{path or 'config'}: {type(exc).__name__}: {exc}"[:200])
                    continue
                found.append(Construction(obj, (sub,), {}, [f"(not built: {path or 'config'})"]))
                break
            else:
                if order:
                    raise RuntimeError(f"{name} cannot be constructed: " + "; ".join(errors))
    return found


def constructions(
    model_type: str, config: PreTrainedConfig
) -> tuple[Any, list[Construction], dict[str, str]]:
    """The rotary modules of the model for ``config``.

    Recorded while building it on the meta device, or, when the model cannot be built from this
    config, constructed directly.
    """
    cls = model_class(model_type)
    how = {"model_class": f"{cls.__module__}.{cls.__name__}"}
    try:
        model, found = build_on_meta(model_type, config)
    except Exception as exc:
        reason = one_line(exc)
        for path, sub in sub_configs(config)[1:]:
            sub_type = getattr(sub, "model_type", None)
            if sub_type not in CONFIG_MAPPING_NAMES or sub_type == model_type:
                continue
            try:
                model, found = build_on_meta(sub_type, sub)
            except Exception:
                continue
            if not found:
                continue
            sub_cls = model_class(sub_type)
            how["build"] = (
                f"meta, {sub_cls.__name__} from config.{path} alone: the whole model cannot be "
                f"built from this config ({reason})"
            )
            how["call"] = (
                f"{sub_cls.__name__}(config.{path}) built under torch.device('meta') with every "
                "rotary class's __init__ recorded; each recorded construction repeated on the "
                "CPU with the same arguments; forward(x float32, position_ids int64 [positions]) "
                "per rotary label"
            )
            how["paths_in"] = f"{sub_cls.__name__}(config.{path})"
            return model, found, how
        how["build"] = f"direct: the model cannot be built from this config ({reason})"
        how["call"] = (
            "each rotary class of the modeling module constructed on the CPU from the config "
            "its __init__ annotates"
        )
        return None, _direct(model_type, config), how
    how["build"] = "meta"
    how["call"] = (
        f"{cls.__name__}(config) built under torch.device('meta') with every rotary class's "
        "__init__ recorded; each recorded construction repeated on the CPU with the same "
        "arguments; forward(x float32, position_ids int64 [positions]) per rotary label"
    )
    return model, found, how
