"""A layer call's arguments by name, read as Keras 3 reads them.

A call's arguments are bound to the parameters of the layer's ``call``:

* the *first argument* is the value of ``call``'s first parameter (passed positionally or
  by name); input checks (``input_spec``) and ``compute_mask`` look at it;
* a *tensor argument* is an argument whose value is a tensor, or a non-empty list, tuple or
  dict of tensors (``Attention``'s ``[query, value]``); masks follow tensor arguments
  (``kgraph.interpreter.masking``);
* ``build`` (and ``compute_output_shape``) taking a single parameter receives the first
  argument's shape; one taking several parameters, all named ``<argument>_shape``, receives
  the shape of each tensor argument by name (``MultiHeadAttention.build(query_shape,
  value_shape, key_shape)``).

>>> import jax.numpy as jnp
>>> from kgraph import layers
>>> mha = layers.MultiHeadAttention(num_heads=2, key_dim=4)
>>> q, v = jnp.ones((1, 3, 8)), jnp.ones((1, 5, 8))
>>> sorted(tensor_arguments(type(mha), (q,), {"value": v, "training": False}))
['query', 'value']
>>> build_shapes(mha, (q,), {"value": v})
{'query_shape': (1, 3, 8), 'value_shape': (1, 5, 8)}
"""

from __future__ import annotations

import functools
import inspect

import jax
import jax.numpy as jnp
import numpy as np

from kgraph.base.variables import Variable
from kgraph.graph.keras_tensor import KerasTensor

__all__ = [
    "accepts", "build_shapes", "call_parameters", "check_numeric", "check_positional_tensors",
    "first_argument",
    "first_parameter_name", "is_tensor", "shape_arguments", "shape_of", "tensor_arguments",
    "to_array"
]


@functools.lru_cache(maxsize=None)
def _signature(fn) -> inspect.Signature:
    """``fn``'s signature without its first (``self``) parameter."""
    signature = inspect.signature(fn)
    return signature.replace(parameters=list(signature.parameters.values())[1:])


def accepts(fn, name) -> bool:
    """Whether ``fn`` takes an argument ``name`` (a parameter so named, or ``**kwargs``).

    >>> accepts(lambda y_true, y_pred, sample_weight=None: 0, "mask")
    False
    """
    parameters = inspect.signature(fn).parameters.values()
    return any(p.name == name or p.kind is p.VAR_KEYWORD for p in parameters)


@functools.lru_cache(maxsize=None)
def call_parameters(cls) -> tuple[frozenset, bool]:
    """Names ``cls.call`` accepts, and whether it takes ``**kwargs``."""
    params = _signature(cls.call).parameters.values()
    return frozenset(p.name for p in params), any(p.kind is p.VAR_KEYWORD for p in params)


@functools.lru_cache(maxsize=None)
def _first_parameter(cls):
    params = list(_signature(cls.call).parameters.values())
    return params[0].name if params and params[0].kind is not params[0].VAR_KEYWORD else None


def first_argument(cls, args, kwargs):
    """The value of ``cls.call``'s first parameter in this call (None if not given)."""
    if args:
        return args[0]
    name = _first_parameter(cls)
    return kwargs.get(name) if name is not None else None


def first_parameter_name(cls):
    """The name of ``cls.call``'s first parameter (None if it takes only ``**kwargs``)."""
    return _first_parameter(cls)


def is_tensor(x) -> bool:
    """A KerasTensor or an array (anything with a shape and a dtype)."""
    return isinstance(x, KerasTensor) or (hasattr(x, "shape") and hasattr(x, "dtype"))


def _is_tensor_argument(value) -> bool:
    if is_tensor(value):
        return True
    if isinstance(value, (list, tuple, dict)) and len(value):
        leaves = jax.tree_util.tree_leaves(value, is_leaf=is_tensor)
        return bool(leaves) and all(is_tensor(leaf) for leaf in leaves)
    return False


def tensor_arguments(cls, args, kwargs) -> dict:
    """``{parameter_name: value}`` of this call's tensor arguments, in signature order.

    Arguments caught by ``**kwargs`` keep their own names; raises TypeError naming the
    class when the arguments do not fit ``cls.call``.
    """
    signature = _signature(cls.call)
    try:
        bound = signature.bind_partial(*args, **kwargs)
    except TypeError as error:
        raise TypeError(f"{cls.__name__}.call() cannot take the arguments it was called with: "
                        f"{error}.") from None
    result = {}
    for name, value in bound.arguments.items():
        kind = signature.parameters[name].kind
        items = value.items() if kind is inspect.Parameter.VAR_KEYWORD else [(name, value)]
        for key, item in items:
            if _is_tensor_argument(item):
                result[key] = item
    return result


def shape_of(inputs):
    """The shape argument for ``build``: a tuple, or a list/dict of tuples."""
    if hasattr(inputs, "shape"):
        return tuple(inputs.shape)
    if isinstance(inputs, dict):
        return {k: shape_of(v) for k, v in inputs.items()}
    if isinstance(inputs, (list, tuple)):
        return [shape_of(v) for v in inputs]
    return None


@functools.lru_cache(maxsize=None)
def _shape_parameters(fn):
    """The parameter names of a ``build``-like ``fn`` taking several ``*_shape`` arguments,
    or None when it takes one shape."""
    params = [p for p in _signature(fn).parameters.values()
              if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    if len(params) < 2:
        return None
    return tuple(p.name for p in params)


def shape_arguments(layer, fn, args, kwargs):
    """``{"<argument>_shape": shape}`` for ``fn`` (``build``, ``compute_output_shape``) when
    it takes several shapes, else None (call it with the first argument's shape).

    Raises ValueError naming the layer when a ``<name>_shape`` parameter matches no
    parameter of its ``call``.
    """
    names = _shape_parameters(fn)
    if names is None:
        return None
    accepted, var_kw = call_parameters(type(layer))
    method = fn.__name__
    preamble = (f'Layer "{layer.name}" ({type(layer).__name__}): for a `{method}()` method '
                "with more than one argument, all arguments should have a `_shape` suffix and "
                f"match an argument from `call()`. E.g. `{method}(self, foo_shape, bar_shape)`. "
                f"Received `{method}()`")
    for name in names:
        if not name.endswith("_shape"):
            raise ValueError(f"{preamble} argument `{name}`, which does not end in `_shape`.")
        if not var_kw and name[:-len("_shape")] not in accepted:
            raise ValueError(f"{preamble} argument `{name}`, but `call()` does not have "
                             f"argument `{name[:-len('_shape')]}`.")
    tensors = tensor_arguments(type(layer), args, kwargs)
    return {f"{key}_shape": shape_of(value) for key, value in tensors.items()
            if f"{key}_shape" in names}


def build_shapes(layer, args, kwargs):
    """``shape_arguments`` for ``layer.build`` (None when it takes one shape)."""
    return shape_arguments(layer, type(layer).build, args, kwargs)


def to_array(x):
    """NumPy arrays and scalars, and variables (their value), as JAX arrays; anything else
    as it is."""
    if isinstance(x, (np.ndarray, np.generic)):
        return jnp.asarray(x)
    if isinstance(x, Variable):
        return x.value
    return x


def check_numeric(layer, inputs) -> None:
    """TypeError naming ``layer`` if an input is a string or another non-numeric object."""
    for leaf in jax.tree_util.tree_leaves(inputs):
        dtype = getattr(leaf, "dtype", None)
        if dtype is None:
            if isinstance(leaf, (bool, int, float, complex, np.generic)) or leaf is None:
                continue
            bad = f"{type(leaf).__name__} {leaf!r:.60}"
        elif jnp.issubdtype(dtype, jnp.number) or jnp.issubdtype(dtype, jnp.bool_):
            continue
        else:
            bad = f"an array of dtype {dtype}"
        raise TypeError(f'Layer "{layer.name}" ({type(layer).__name__}) expects numeric '
                        f"arrays (or KerasTensors) as inputs, received {bad}.")


def check_positional_tensors(layer, args) -> None:
    """Keras's rule for positional call arguments: tensors (arrays, KerasTensors, None, or
    lists of them) only; a flag or option goes by keyword. ValueError naming ``layer``."""
    for leaf in jax.tree_util.tree_leaves(args):
        if not hasattr(leaf, "__array__") and not hasattr(leaf, "_keras_history") and not (
                hasattr(leaf, "shape") and hasattr(leaf, "dtype")):
            raise ValueError(
                f'Layer "{layer.name}" ({type(layer).__name__}): Only input tensors may be '
                "passed as positional arguments. The following argument value should be "
                f"passed as a keyword argument: {leaf!r} (of type {type(leaf)})")
