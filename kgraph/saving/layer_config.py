"""One layer to its config (``serialize_layer``) and back (``deserialize_layer``).

A layer serializes to ``{"module", "class_name", "config", "registered_name"}`` (plus
``"build_config"`` when its input shape is known), as Keras 3.

>>> import kgraph as kg
>>> config = serialize_layer(kg.layers.Dense(2, name="d"))
>>> config["class_name"], config["module"], deserialize_layer(config).units
('Dense', 'kgraph.layers', 2)
"""

from __future__ import annotations

import copy
import inspect
import json
import warnings

from kgraph import dtype_policy
from kgraph.base import call_args, catalog, layer_surface
from kgraph.base.layer import Layer
from kgraph.saving import registry, scope, validation
from kgraph.saving.validation import ConfigError
from kgraph.saving.values import (decode_value, encode_value, shape_from_config, shape_list,
                                  shape_struct)

__all__ = [
    "REBUILD_ERRORS", "call_from_config", "deserialize_layer", "rebuild_error",
    "serialize_layer", "serialize_objects_with"
]


# What a layer's own from_config/build/call raises for a config it cannot take.
REBUILD_ERRORS = (TypeError, ValueError, KeyError, IndexError, AttributeError, ArithmeticError)


def _operation_config(layer) -> dict:
    config = layer.get_config()
    if "op" not in config:  # an Operation without the registry contract: name the function
        op = getattr(layer, "op_name", None) or getattr(layer.fn, "__name__", None)
        config = {"name": layer.name, "op": op,
                  "kwargs": dict(getattr(layer, "fn_kwargs", {}))}
    config = dict(config)
    config["kwargs"] = encode_value(dict(config.get("kwargs") or {}),
                                    f'operation "{layer.name}"')
    return config


def _build_config(layer):
    functional = catalog.is_instance(layer, "Functional")
    if catalog.is_instance(layer, "Model") and not functional and layer.built:
        inputs = getattr(layer, "inputs", None)  # a subclassed model: the traced inputs
        if inputs:
            shapes = [shape_list(t.shape) for t in inputs]
            return {"input_shape": shapes[0] if len(shapes) == 1 else shapes}
    if (not layer.built or functional or getattr(layer, "is_input_layer", False)
            or registry.is_operation(type(layer)) or not layer._inbound_nodes):
        return None
    node = layer._inbound_nodes[0]
    shapes = call_args.build_shapes(layer, node.call_args, node.call_kwargs)
    if shapes is not None:  # build(query_shape, value_shape, ...): Keras's shapes_dict
        return {"shapes_dict": json.loads(json.dumps(shapes))}  # tuples as JSON lists
    shapes = shape_struct(call_args.first_argument(type(layer), node.call_args,
                                                   node.call_kwargs))
    return None if shapes is None else {"input_shape": shapes}


layer_surface.infer_build_config_with(_build_config)


# How a Keras object inside a config is serialized: ``object_config.serialize_keras_object``,
# set by ``kgraph.saving.object_config`` when it is imported (it imports this module).
_SERIALIZE_OBJECT = []


def serialize_objects_with(function) -> None:
    """Set the function that serializes the Keras objects a layer's config holds."""
    _SERIALIZE_OBJECT[:] = [function]


def _objects_serialized(value):
    """``value`` (a layer's ``get_config()``) with the Keras objects it holds (a sub-layer,
    an initializer: anything with ``get_config``) as their configs, as Keras serializes a
    config (``serialize_keras_object`` over its values); plain values are kept as they are."""
    if isinstance(value, dict):
        return {key: _objects_serialized(item) for key, item in value.items()}
    if type(value) in (list, tuple):
        return type(value)(_objects_serialized(item) for item in value)
    if isinstance(value, Layer) or (hasattr(value, "get_config") and not isinstance(value, type)):
        return _SERIALIZE_OBJECT[0](value)
    return value


def _recorded_build_config(layer):
    """Keras's build_config of a layer built without shapes by a direct call (``build()``:
    ``{"shapes_dict": {}}``; ``build(None)``: ``{"input_shape": None}``), so that loading
    builds it (an ``Embedding`` needs none)."""
    shapes = layer.__dict__.get("_build_shapes_dict")
    if (shapes is None or not layer.built or catalog.is_instance(layer, "Model")
            or registry.is_operation(type(layer))):
        return None
    if not shapes:
        return {"shapes_dict": {}}
    if list(shapes.values()) == [None]:
        return {"input_shape": None}
    return None


@scope.sharing
def serialize_layer(layer) -> dict:
    """``{"module", "class_name", "config", "registered_name"[, "build_config"]}``."""
    if not isinstance(layer, Layer):
        raise TypeError(f"serialize_layer expects a kgraph Layer, received "
                        f"{type(layer).__name__}.")
    cls = type(layer)
    module = registry.builtin_module(cls)
    registered_name = None
    if module is None:
        module, registered_name = cls.__module__, registry.get_registered_name(cls)
    if registry.is_operation(cls):
        config = _operation_config(layer)
    else:
        config = copy.deepcopy(_objects_serialized(layer.get_config()))
    result = {"module": module, "class_name": cls.__name__, "config": config,
              "registered_name": registered_name}
    build_config = _build_config(layer)
    if build_config is None:
        build_config = _recorded_build_config(layer)
    if build_config is not None:
        result["build_config"] = build_config
    scope.mark(layer, result)
    return result


def _normalize_keras_config(config):
    """Accept Keras's serialized DTypePolicy objects where kgraph takes a dtype name."""
    dtype = config.get("dtype")
    if not isinstance(dtype, dict) or dtype.get("class_name") not in ("DTypePolicy",
                                                                      "DTypePolicyMap"):
        return config
    policy = dtype_policy.get(dtype)
    if isinstance(policy, dtype_policy.DTypePolicyMap):
        if len(policy):
            warnings.warn(f"Layer {config.get('name')!r}: a DTypePolicyMap's per-path policies "
                          f"{sorted(policy)} are not supported; the layer uses its default "
                          "policy.", stacklevel=3)
        policy = policy.default_policy
    return {**config, "dtype": policy.name}


_from_config_params: dict = {}


def call_from_config(cls, config, custom_objects=None, safe_mode=True):
    """``cls.from_config`` with custom_objects / safe_mode when it accepts them."""
    params = _from_config_params.get(cls)
    if params is None:
        params = _from_config_params[cls] = frozenset(
            inspect.signature(cls.from_config).parameters)
    kwargs = {}
    if "custom_objects" in params:
        kwargs["custom_objects"] = custom_objects
    if "safe_mode" in params:
        kwargs["safe_mode"] = safe_mode
    return cls.from_config(config, **kwargs)


def _operation_from_config(cls, config, path):
    """An operation from its config: its registered ``op`` name and decoded ``kwargs``."""
    config = dict(config)
    kwargs = config.get("kwargs") or {}
    if not isinstance(kwargs, dict):
        validation.fail(f'{path}["kwargs"]', "a dict of the operation's parameters", kwargs,
                        config.get("name"))
    config["kwargs"] = decode_value(kwargs, path=f'{path}["kwargs"]')
    return cls.from_config(config)


def rebuild_error(path, name, doing, err):
    """A ConfigError for an error raised by a layer's own code while rebuilding it (a
    ``ConfigTypeError`` for a TypeError, with Keras's hint, as Keras raises a TypeError)."""
    where = f"{path} (layer {name!r})" if isinstance(name, str) else path
    message = f"Invalid config at {where}: {doing} raised {type(err).__name__}: {err}"
    if isinstance(err, TypeError):
        return validation.ConfigTypeError(
            f"{message}. Please ensure that components that are Python object instances "
            "(layers, models, etc.) returned by `get_config()` are explicitly deserialized "
            "in the model's `from_config()` method.")
    return ConfigError(message)


def deserialize_layer(config, custom_objects=None, safe_mode=True, build=True, path=None):
    """The layer (or model) described by ``config`` (from ``serialize_layer``).

    Classes come from kgraph, ``register_layer`` or ``custom_objects`` only. With
    ``safe_mode=True`` (default) layers that would run code from the config (``Lambda``)
    are refused. ``build``: build the layer from its ``build_config`` (input shape), so
    that ``set_weights`` works at once; a model rebuilding its graph skips it (calling the
    layer builds it). A malformed config raises a ``ConfigError`` (a ValueError) naming
    its place, ``path`` (default ``"config"``, or where an enclosing config holds it).
    """
    if isinstance(config, str):
        config = {"class_name": config, "config": {}, "registered_name": None}
    # Objects named by string inside layer configs (a custom activation) resolve among
    # custom_objects too, as Keras's.
    with registry.CustomObjectScope(custom_objects), scope.loading(config, "layer", safe_mode) as base:
        path = path or base
        validation.check_layer_config(config, path)
        name = validation.layer_name(config)
        try:
            cls = registry.resolve_class(config, custom_objects)
        except ValueError as err:
            raise ConfigError(f"Invalid config at {path}: {err}") from None
        existing = scope.shared_object(config)
        if existing is not None:
            if type(existing) is not cls:
                validation.fail(f'{path}["shared_object_id"]', f"the id of a {cls.__name__} "
                                "(the class this config names)", type(existing).__name__, name)
            return existing
        layer = _construct(cls, config, custom_objects, safe_mode, path, name)
        if build:
            _build(layer, config.get("build_config") or {}, path, name)
        scope.record(config, layer)
        return layer


def _construct(cls, config, custom_objects, safe_mode, path, name):
    inner = copy.deepcopy(config.get("config") or {})
    if safe_mode and registry.is_unsafe(cls):
        raise ConfigError(registry.UNSAFE_MESSAGE.format(
            what=f'layer "{inner.get("name", "?")}" of class {cls.__name__}'))
    if not (isinstance(cls, type) and issubclass(cls, Layer)):
        raise ConfigError(f"Invalid config at {path}: {config['class_name']!r} resolved to "
                          f"{cls!r}, which is not a kgraph Layer.")
    inner_path = f'{path}["config"]'
    try:
        with scope.at(inner_path):
            if registry.is_operation(cls):
                return _operation_from_config(cls, inner, inner_path)
            return call_from_config(cls, _normalize_keras_config(inner), custom_objects,
                                    safe_mode)
    except ConfigError:
        raise
    except REBUILD_ERRORS as err:
        raise rebuild_error(path, name, f"{cls.__name__}.from_config", err) from err


def _shapeless_build(layer, build_config) -> bool:
    """Keras's ``build_from_config`` of a layer built without shapes (``build()``,
    ``build(None)``), for the layers that build so (``Embedding``)."""
    if build_config.get("shapes_dict") == {}:
        layer.build()
    elif "input_shape" in build_config and build_config["input_shape"] is None:
        layer.build(None)
    else:
        return False
    return True


def _build(layer, build_config, path, name):
    """Build ``layer`` from its ``build_config`` (input shape), if not built yet."""
    try:
        if not layer.built and build_config.get("input_shape") is not None:
            layer.build(shape_from_config(build_config["input_shape"]))
            layer.built = True
        elif not layer.built and build_config.get("shapes_dict"):
            layer.build(**{k: shape_from_config(v)
                           for k, v in build_config["shapes_dict"].items()})
            layer.built = True
        elif not layer.built and build_config and _shapeless_build(layer, build_config):
            layer.built = True
    except REBUILD_ERRORS as err:
        raise rebuild_error(path, name, f"building {type(layer).__name__} from its "
                            "build_config", err) from err

