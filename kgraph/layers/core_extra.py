"""Core layers without weights: ``Lambda``, ``Identity``, ``Masking``."""

from __future__ import annotations

import inspect

import jax
import jax.numpy as jnp

from kgraph import config
from kgraph.base import catalog, shape_inference
from kgraph.base.layer import Layer, _shapes
from kgraph.graph.keras_tensor import KerasTensor

__all__ = ["Identity", "Lambda", "Masking"]


def _function_config(fn):
    """``{"module", "name"}`` of a function; lambdas/nested ones are marked unloadable."""
    module = getattr(fn, "__module__", None)
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None)
    if name is None:
        raise ValueError(f"Cannot serialize {fn!r}: it has no name. Use a module-level "
                         "function.")
    config = {"module": module, "name": name}
    if module is None or "<lambda>" in name or "<locals>" in name:
        config["deserializable"] = False
    return config


def _is_function_config(value):
    return isinstance(value, dict) and (("module" in value and "name" in value)
                                        or value.get("class_name") in ("function", "__lambda__"))


def _load_function(spec, what, safe_mode, custom_objects=None):
    """The function a Lambda config names, looked up among ``custom_objects`` (and open
    ``custom_object_scope``s and registered objects) only: a config is data, so no module
    named in it is imported and no code stored in it is run."""
    if callable(spec) or not _is_function_config(spec):
        return spec
    if spec.get("class_name") == "__lambda__":
        raise ValueError(f"Lambda's {what} is stored as Python bytecode (a lambda saved by "
                         "Keras); kgraph never runs code stored in a file. Define the function "
                         "in your code and pass it in custom_objects.")
    if spec.get("class_name") == "function":  # Keras's form
        module, name = spec.get("module"), spec.get("config")
    else:
        module, name = spec["module"], spec["name"]
    where = f"{module}.{name}"
    if safe_mode and not config.is_unsafe_deserialization_enabled():
        raise ValueError(
            f"Refusing to load Lambda's {what} {where!r}: a Lambda layer runs Python code, "
            "which carries a potential risk of arbitrary code execution for configs from "
            "untrusted sources. If you trust this config, load it with safe_mode=False and "
            f"pass the function in custom_objects (custom_objects={{{str(name)!r}: fn}}).")
    if spec.get("deserializable") is False:
        raise ValueError(
            f"Lambda's {what} ({where}) is a Python lambda or a nested function: only its name "
            "was saved, not its code, so it cannot be loaded. Define it at module level, or "
            f"put the function object itself in the config (config[{what!r}] = fn).")
    for key in (where, name):
        fn = catalog.get_registered_object(key, custom_objects) if isinstance(key, str) \
            else None
        if callable(fn):
            return fn
    raise ValueError(f"Lambda's {what} {where!r} is not among custom_objects: kgraph never "
                     "imports code named in a config. Pass the function, e.g. "
                     f"custom_objects={{{str(name)!r}: fn}}.")


def _accepted_names(fn) -> set:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):  # builtins and some C functions have no signature
        return set()
    return {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}


class Lambda(Layer):
    """Wrap an arbitrary function of arrays as a layer (``function(inputs, **arguments)``).

    Args:
      function: called on the inputs; it may take ``mask`` and/or ``training`` arguments.
      output_shape: the output shape without the batch axis (a tuple, or a structure of
        them), or a callable ``input_shape -> output_shape`` (full shapes). By default the
        shape is inferred by tracing ``function``.
      mask: None (no output mask), or a callable ``(inputs, mask) -> mask``, or a fixed mask.
      arguments: extra keyword arguments for ``function``.

    Serialization: ``get_config()["function"]`` is ``{"module", "name"}`` of a module-level
    function (lambdas and nested functions are marked ``"deserializable": False``).
    ``Lambda.from_config`` refuses Lambdas unless ``safe_mode=False``, and then takes the
    function from ``custom_objects`` by name: no module named in a config is imported.

    >>> import kgraph as kg, jax.numpy as jnp
    >>> Lambda(jnp.square)(kg.Input(shape=(3,))).shape
    (None, 3)
    """

    def __init__(self, function, output_shape=None, mask=None, arguments=None, **kwargs):
        super().__init__(**kwargs)
        if not callable(function):
            raise TypeError(f"Lambda needs a callable `function`, received {function!r}.")
        self.function = function
        self.arguments = dict(arguments or {})
        self.mask = mask
        self.supports_masking = mask is not None
        if isinstance(output_shape, list) and all(d is None or isinstance(d, int)
                                                  for d in output_shape):
            output_shape = tuple(output_shape)
        self._output_shape = output_shape
        accepted = _accepted_names(function)
        self._fn_expects_mask = "mask" in accepted
        self._fn_expects_training = "training" in accepted

    def call(self, inputs, mask=None, training=None):
        kwargs = dict(self.arguments)
        if self._fn_expects_mask:
            kwargs["mask"] = mask
        if self._fn_expects_training:
            kwargs["training"] = training
        return self.function(inputs, **kwargs)

    def compute_mask(self, inputs, mask=None):
        if callable(self.mask):
            return self.mask(inputs, mask)
        return self.mask

    def compute_output_spec(self, *args, **kwargs):
        if self._output_shape is None:
            return shape_inference.infer_output_spec(self, args, kwargs,
                                                     self._output_spec_cache)
        inputs = args[0] if args else kwargs.get("inputs")
        input_shape = _shapes(inputs)
        if callable(self._output_shape):
            shape = self._output_shape(input_shape)
        else:
            first = jax.tree_util.tree_leaves(inputs)[0]
            batch = first.shape[0] if first.shape else None
            shape = jax.tree_util.tree_map(lambda s: (batch, *s), self._output_shape,
                                           is_leaf=lambda s: isinstance(s, tuple))
        return jax.tree_util.tree_map(lambda s: KerasTensor(s, self.compute_dtype), shape,
                                      is_leaf=lambda s: isinstance(s, tuple))

    def get_config(self):
        config = {**super().get_config(), "function": _function_config(self.function)}
        if self._output_shape is not None:
            config["output_shape"] = (_function_config(self._output_shape)
                                      if callable(self._output_shape) else self._output_shape)
        if self.mask is not None:
            config["mask"] = _function_config(self.mask) if callable(self.mask) else self.mask
        config["arguments"] = dict(self.arguments)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None, safe_mode=True):
        """Rebuild a Lambda: with ``safe_mode=False``, its functions are taken from
        ``custom_objects`` by name (never imported)."""
        config = dict(config)
        for key in ("function", "output_shape", "mask"):
            if key in config:
                config[key] = _load_function(config[key], key, safe_mode, custom_objects)
        return cls(**config)


class Identity(Layer):
    """Return the inputs unchanged (masks pass through)."""

    supports_masking = True
    _builds_at_init = True

    def call(self, inputs):
        return inputs


class Masking(Layer):
    """Mask timesteps whose features all equal ``mask_value``, and zero them.

    The output mask is ``any(inputs != mask_value, axis=-1)``, for downstream layers.

    >>> import numpy as np
    >>> Masking()(np.array([[[1.0], [0.0]]])).tolist()
    [[[1.0], [0.0]]]
    """

    supports_masking = True
    _builds_at_init = True

    def __init__(self, mask_value=0.0, **kwargs):
        super().__init__(**kwargs)
        self.mask_value = mask_value

    def compute_mask(self, inputs, mask=None):
        return jnp.any(jnp.not_equal(inputs, self.mask_value), axis=-1)

    def call(self, inputs):
        keep = jnp.any(jnp.not_equal(inputs, self.mask_value), axis=-1, keepdims=True)
        return jnp.where(keep, inputs, jnp.zeros((), inputs.dtype))

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {**super().get_config(), "mask_value": self.mask_value}
