"""A layer's ``get_config`` / ``from_config`` (``LayerConfig``, a base of ``Layer``), with
Keras 3's "auto config": a config made from the constructor's arguments.

A layer (or model) class written outside kgraph that does not override ``get_config``
gets one from the arguments it was constructed with, when they are all plain values (str,
int, float, bool, None, and lists, tuples and dicts of them): ``LayerConfig.__new__``
records them (``record``) and ``LayerConfig.get_config`` adds them (``config_of``). A class
constructed with other values (an array, a layer), or with ``*args`` or positional-only
arguments, has no such config: its ``get_config`` raises Keras's NotImplementedError, which
asks for a ``get_config``, rather than returning a config that would rebuild another layer.

>>> import kgraph as kg
>>> class Scale(kg.layers.Layer):
...     def __init__(self, factor=1.0, **kwargs):
...         super().__init__(**kwargs)
...         self.factor = factor
>>> config = Scale(factor=10.0, name="s").get_config()
>>> config["factor"], Scale.from_config(config).factor
(10.0, 10.0)
"""

from __future__ import annotations

import inspect
import os
import textwrap
import weakref

from kgraph import dtype_policies, regularizers

__all__ = ["AutoConfig", "LayerConfig", "applies", "config_dtype_for_init", "config_of",
           "default_get_config", "record"]

_PLAIN = (str, int, float, bool, type(None))
_SIGNATURES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

_EXAMPLE = """
    class CustomLayer(keras.layers.Layer):
        def __init__(self, arg1, arg2, **kwargs):
            super().__init__(**kwargs)
            self.arg1 = arg1
            self.arg2 = arg2

        def get_config(self):
            config = super().get_config()
            config.update({"arg1": self.arg1, "arg2": self.arg2})
            return config
"""


class AutoConfig:
    """What ``record`` found: the arguments (``values``, None when they cannot make a
    config) and whether ``*args`` / positional-only arguments were the reason."""

    __slots__ = ("values", "positional")

    def __init__(self, values, positional=False):
        self.values, self.positional = values, positional


_DEFAULT_GET_CONFIGS: set = set()  # base classes' get_config that auto config stands in for


def default_get_config(get_config):
    """Mark a base class's ``get_config`` as the default one: a subclass that does not
    override it takes its config from its constructor's arguments (as ``Layer``'s)."""
    _DEFAULT_GET_CONFIGS.add(get_config)
    return get_config


_KGRAPH = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_APPLIES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def applies(cls) -> bool:
    """Whether ``cls`` takes its config from its arguments: its ``get_config`` is the base
    layer's (as Keras's ``python_utils.is_default``) and its constructor is not kgraph's
    own (kgraph's layers stand for Keras's, which all have their own ``get_config``)."""
    found = _APPLIES.get(cls)
    if found is None:
        init = getattr(getattr(cls, "__init__", None), "__code__", None)
        own = init is not None and os.path.abspath(init.co_filename).startswith(_KGRAPH)
        get_config = getattr(cls, "get_config", None)
        found = _APPLIES[cls] = ((get_config is LayerConfig.get_config
                                  or get_config in _DEFAULT_GET_CONFIGS) and not own)
    return found


def _signature(cls):
    found = _SIGNATURES.get(cls)
    if found is None:
        found = _SIGNATURES[cls] = (inspect.signature(cls.__init__),
                                    inspect.getfullargspec(cls.__init__))
    return found


def _plain(value) -> bool:
    if isinstance(value, (list, tuple)):
        return all(_plain(item) for item in value)
    if isinstance(value, dict):
        return all(_plain(item) for item in value.values())
    return isinstance(value, _PLAIN)


def record(cls, args, kwargs) -> AutoConfig:
    """The constructor arguments ``cls(*args, **kwargs)`` takes, with its defaults and
    without ``name`` (which ``get_config`` gives), when they can make a config."""
    signature, spec = _signature(cls)
    try:
        bound = signature.bind(None, *args, **kwargs)
    except TypeError:  # arguments the constructor does not take: it will say so itself
        return AutoConfig(None)
    if any(param.kind is inspect.Parameter.POSITIONAL_ONLY
           for name, param in signature.parameters.items() if name != spec.args[0]):
        return AutoConfig(None, positional=True)
    bound.apply_defaults()
    values = dict(bound.arguments)
    values.pop(spec.args[0])
    if spec.varkw is not None:
        values.update(values.pop(spec.varkw, {}))
    if spec.varargs is not None and values.pop(spec.varargs):
        return AutoConfig(None, positional=True)
    values.pop("name", None)
    return AutoConfig(values if _plain(values) else None)


def config_of(layer, base_config: dict) -> dict:
    """``base_config`` (name, trainable, dtype) with the recorded arguments, as Keras's
    ``Operation.get_config`` makes it; NotImplementedError when there are none."""
    recorded = layer.__dict__.get("_auto_config")
    name = type(layer).__name__
    if recorded is None or recorded.values is None:
        if recorded is not None and recorded.positional:
            reason = ("was created by passing positional only or variadic positional "
                      "arguments (e.g., `*args`) to `__init__()`, which is not supported by "
                      "the automatic config generation. Please remove all positional only "
                      "and variadic arguments from `__init__()` or override `get_config()` "
                      "and `from_config()` to make the object serializable.")
        else:
            reason = ("was created by passing non-serializable argument values in "
                      "`__init__()`, and therefore the object must override `get_config()` "
                      "in order to be serializable. Please implement `get_config()`.")
        raise NotImplementedError(f"Object {name} {reason}\n\nExample:\n"
                                  f"{textwrap.dedent(_EXAMPLE)}")
    config = {"name": base_config["name"], **recorded.values}
    params = inspect.signature(type(layer).__init__).parameters
    takes_kwargs = ("kwargs" in params
                    and params["kwargs"].kind is inspect.Parameter.VAR_KEYWORD)
    if "name" not in params and not takes_kwargs:  # cls(**config) could not take it
        config.pop("name")
    base = {key: value for key, value in base_config.items() if key != "name"}
    return {**config, **base}


class LayerConfig:
    """``get_config`` (name, trainable, dtype, activity regularizer, and the auto config of
    a class that does not override it) and ``from_config`` (``cls(**config)``)."""

    def __new__(cls, *args, **kwargs):
        instance = super().__new__(cls)
        if applies(cls):  # a class without its own get_config: record its arguments
            instance.__dict__["_auto_config"] = record(cls, args, kwargs)
        return instance

    def get_config(self) -> dict:
        config = {"name": self.name, "trainable": self.trainable,
                  "dtype": dtype_policies.serialize(self.dtype_policy)}
        if self.activity_regularizer is not None:
            config["activity_regularizer"] = regularizers.serialize(self.activity_regularizer)
        if applies(type(self)):
            return config_of(self, config)
        return config

    @classmethod
    def from_config(cls, config):
        return cls(**config_dtype_for_init(config))


def config_dtype_for_init(config: dict) -> dict:
    """``config`` with a serialized float policy as its name, as Keras's ``from_config``
    passes it to ``__init__`` (a quantized policy or a map stays a policy object)."""
    dtype = config.get("dtype")
    if not isinstance(dtype, dict):
        return config
    policy = dtype_policies.deserialize(dtype)
    if not isinstance(policy, dtype_policies.DTypePolicyMap) and policy.quantization_mode is None:
        policy = policy.name
    return {**config, "dtype": policy}
