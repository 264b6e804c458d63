"""``compile``'s choices in a ``.keras`` file (Keras's ``compile_config``), and back.

Saving a compiled model writes its optimizer (a Keras optimizer class), losses, metrics and
loss weights as Keras does; loading with ``compile=True`` compiles the model with them.
Everything resolves through kgraph's closed catalogs (``kgraph.optimizers``, ``losses``,
``metrics``) and ``custom_objects``. The optimizer's moving state (step count, learning
rate, moments) travels in the weights file, as Keras's optimizer variables.

>>> import kgraph as kg
>>> x = kg.Input(shape=(2,))
>>> model = kg.Model(x, kg.layers.Dense(1)(x))
>>> model.compile(optimizer=kg.optimizers.SGD(0.1), loss="mse", metrics=["mae"])
>>> config = compile_config(model)
>>> config["optimizer"]["class_name"], config["loss"], config["metrics"]
('SGD', 'mse', ['mae'])
"""

from __future__ import annotations

import warnings

from kgraph import losses, metrics, optimizers
from kgraph.base import catalog

__all__ = ["compile_config", "compile_from_config", "compile_loaded"]


def _tree(value, fn):
    """``fn`` on each leaf of a structure of losses or metrics (a serialized object, a dict
    with ``class_name``, is a leaf)."""
    if isinstance(value, dict) and "class_name" not in value:
        return {k: _tree(v, fn) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_tree(v, fn) for v in value]
    return fn(value)


def _serialize(value, kinds, what):
    if value is None or isinstance(value, str):
        return value
    if hasattr(value, "get_config"):
        return kinds.serialize(value)
    name = getattr(value, "__name__", None)
    if name is None:
        raise TypeError(f"cannot describe the {what} {value!r}")
    registered = catalog.get_registered_name(value)
    if registered != name:  # registered under a package: Keras's function config
        return {"module": "builtins", "class_name": "function", "config": registered,
                "registered_name": "function"}
    return name


def _function_name(value):
    """The name a Keras function config (``class_name`` "function") gives, else None."""
    if isinstance(value, dict) and value.get("class_name") == "function" and isinstance(
            value.get("config"), str):
        return value["config"]
    return None


def compile_config(model):
    """Keras's ``compile_config`` of ``model``, or None (not compiled, or compiled with
    what a file cannot describe, such as a plain optax transformation: then a warning)."""
    setup = getattr(model, "_training_setup", None)
    config = getattr(setup, "config", None)
    if config is None:
        return None
    optimizer = config["optimizer"]
    if not hasattr(optimizer, "get_config"):
        warnings.warn("The model was compiled with an optax transformation, which a .keras "
                      "file cannot describe: the file holds no training configuration (use "
                      "a kgraph.optimizers class, e.g. kg.optimizers.Adam, to keep it).",
                      stacklevel=3)
        return None
    _warn_unkept(config, setup)
    try:
        return {"optimizer": optimizers.serialize(optimizer),
                "loss": _tree(config["loss"], lambda v: _serialize(v, losses, "loss")),
                "loss_weights": config["loss_weights"],
                "metrics": _tree(config["metrics"] or None,
                                 lambda v: _serialize(v, metrics, "metric")),
                "weighted_metrics": _tree(config["weighted_metrics"] or None,
                                          lambda v: _serialize(v, metrics, "metric")),
                "run_eagerly": False, "steps_per_execution": setup.steps_per_execution,
                "jit_compile": True}
    except TypeError as err:
        warnings.warn(f"The model's training configuration is not saved: {err}.",
                      stacklevel=3)
        return None


def _warn_unkept(config, setup) -> None:
    """A warning naming kgraph's own ``compile`` options, which Keras's ``compile_config``
    has no place for (Keras would refuse them when loading the file)."""
    unkept = {name: config.get(name) for name in ("precision", "remat")
              if config.get(name) is not None}
    if config.get("placement") is not None:
        unkept["mesh"] = "..."
    if not config.get("scan_blocks", True):
        unkept["scan_blocks"] = False
    if getattr(setup, "seed", 0):
        unkept["seed"] = setup.seed
    if unkept:
        shown = ", ".join(f"{k}={v!r}" if v != "..." else k for k, v in unkept.items())
        warnings.warn(f"kgraph's compile options {shown} are not stored in the file (Keras's "
                      "compile_config has no place for them): pass them to compile again "
                      "after loading.", stacklevel=4)


def compile_from_config(model, config, custom_objects=None) -> None:
    """``model.compile`` with a file's ``compile_config``; a configuration kgraph cannot
    rebuild leaves the model uncompiled, with a warning saying why (as Keras)."""
    if config == {}:  # what Keras writes for a model that was never compiled
        return
    if not isinstance(config, dict):
        warnings.warn("The file's compile_config is not a dict; the model is not compiled.",
                      stacklevel=3)
        return
    def named(v):  # a function saved by its name: custom_objects' (or a scope's), as Keras
        found = catalog.get_registered_object(v, custom_objects)
        return v if found is None else found

    try:
        def metric(v):
            v = _function_name(v) or v
            if v is None or isinstance(v, str):
                return v if v is None else named(v)
            return metrics.deserialize(v, custom_objects)

        def loss(v):
            v = _function_name(v) or v
            if v is None or isinstance(v, str):
                return v if v is None else named(v)
            return losses.deserialize(v, custom_objects)

        model.compile(
            optimizer=optimizers.deserialize(config.get("optimizer", "rmsprop"),
                                             custom_objects),
            loss=_tree(config.get("loss"), loss),
            metrics=_tree(config.get("metrics"), metric),
            weighted_metrics=_tree(config.get("weighted_metrics"), metric),
            loss_weights=config.get("loss_weights"),
            steps_per_execution=int(config.get("steps_per_execution") or 1))
    except (TypeError, ValueError, KeyError) as err:
        warnings.warn(f"The model could not be compiled from the file's compile_config "
                      f"({type(err).__name__}: {err}); compile it again to train it.",
                      stacklevel=3)


def _overrides(model, name) -> bool:
    """Whether ``model``'s class defines its own ``name`` (not kgraph's method)."""
    owner = next((c for c in type(model).__mro__ if name in c.__dict__), None)
    return owner is not None and owner.__module__.split(".")[0] != "kgraph"


def compile_loaded(model, config, custom_objects=None) -> None:
    """Compile a loaded model from its file's ``compile_config``, as Keras's loaders do:
    through the model's own ``compile_from_config`` when its class overrides it or
    ``compile`` (which warns and leaves the model uncompiled, as Keras), else directly."""
    if _overrides(model, "compile") or _overrides(model, "compile_from_config"):
        with catalog.CustomObjectScope(custom_objects or {}):
            model.compile_from_config(config)
        return
    compile_from_config(model, config, custom_objects)
