"""``Input`` and ``InputLayer``: the graph's entry points.

>>> x = Input(shape=(784,), name="pixels")
>>> x.shape, x.name
((None, 784), 'pixels')
"""

from __future__ import annotations

import warnings

import numpy as np

from kgraph import config
from kgraph.base.layer import Layer
from kgraph.base.memory import check_allocatable
from kgraph.graph.keras_tensor import KerasTensor
from kgraph.graph.node import Node

__all__ = ["Input", "InputLayer"]


def _check_dims(dims, argument, name):
    """Every entry of a shape is None or a non-negative int (a bool or float is not)."""
    try:
        dims = tuple(dims)
    except TypeError:
        raise TypeError(f"Input {name!r}: `{argument}` must be a tuple of non-negative ints "
                        f"or None, received {dims!r}.") from None
    for d in dims:
        ok = d is None or (isinstance(d, (int, np.integer)) and not isinstance(d, bool)
                           and d >= 0)
        if not ok:
            raise ValueError(f"Input {name!r}: every entry of `{argument}` must be a "
                             f"non-negative int or None, received {argument}={dims!r} "
                             f"(bad entry {d!r}).")
    return tuple(None if d is None else int(d) for d in dims)


def _check_wrapped(tensor, shape, batch_size, batch_shape, dtype, sparse):
    """Keras's checks of ``input_tensor`` against the other arguments given with it."""
    if not isinstance(tensor, KerasTensor):
        raise ValueError(f"Argument `input_tensor` must be a KerasTensor. Received invalid "
                         f"type: input_tensor={tensor!r} (of type {type(tensor).__name__})")
    given = tuple(tensor.shape)
    for argument, ok in (
            ("batch_size", batch_size is None or given[:1] == (batch_size,)),
            ("shape", shape is None or tuple(np.atleast_1d(shape).tolist()) == given[1:]),
            ("batch_shape", batch_shape is None or tuple(batch_shape) == given),
            ("dtype", dtype is None or np.dtype(dtype) == np.dtype(tensor.dtype)),
            ("sparse", sparse is None or not sparse)):  # kgraph's tensors are dense
        if not ok:
            raise ValueError("When providing the `input_tensor` argument, you cannot provide "
                             f"an incompatible `{argument}` argument.")


def _shape_arguments(shape, batch_size, batch_shape, kwargs):
    """Keras's older names (``input_shape``, ``batch_input_shape``) and its checks of
    ``shape`` / ``batch_size`` / ``batch_shape`` together."""
    if "input_shape" in kwargs:
        warnings.warn("Argument `input_shape` is deprecated. Use `shape` instead.",
                      UserWarning, stacklevel=3)
        shape = kwargs.pop("input_shape")
    if "batch_input_shape" in kwargs:
        batch_shape = kwargs.pop("batch_input_shape")
    if kwargs:
        raise TypeError(f"InputLayer got unexpected keyword argument(s) {sorted(kwargs)}.")
    return shape, batch_shape


class InputLayer(Layer):
    """The layer behind an ``Input`` tensor: one node, no inputs, no weights.

    ``optional=True`` (as Keras): the model may be given None for this input, and the
    layers it feeds receive None. ``sparse`` / ``ragged`` tensors are not supported.
    """

    is_input_layer = True
    autocast = False

    def __init__(self, shape=None, batch_size=None, dtype=None, sparse=None, ragged=None,
                 batch_shape=None, input_tensor=None, optional=False, name=None, **kwargs):
        shape, batch_shape = _shape_arguments(shape, batch_size, batch_shape, kwargs)
        if input_tensor is not None:
            _check_wrapped(input_tensor, shape, batch_size, batch_shape, dtype, sparse)
            dtype = input_tensor.dtype
        if isinstance(dtype, str) and dtype in ("string", "str"):
            raise TypeError(
                f"InputLayer {name or 'input_layer'!r}: dtype={dtype!r} is not supported: "
                "kgraph's models compute on JAX arrays, which hold no strings. Run the string "
                "layers (StringLookup, Hashing, TextVectorization) on NumPy arrays of strings "
                "before the model, and give the model their integer outputs.")
        super().__init__(name=name, dtype=dtype or config.floatx())
        for flag, value in (("sparse", sparse), ("ragged", ragged)):
            if value:
                raise ValueError(f"`{flag}=True` is not supported with the jax backend: kgraph "
                                 f"InputLayer {self.name!r} does not support {flag}=True "
                                 "(inputs are dense arrays).")
        self.sparse = False
        self.ragged = False
        self.optional = bool(optional)
        dtype = self.dtype
        if input_tensor is None and batch_shape is not None:  # Keras: the full shape
            for argument, value in (("shape", shape), ("batch_size", batch_size)):
                if value is not None:
                    raise ValueError(f"You cannot pass both `{argument}` and `batch_shape` at "
                                     f"the same time (InputLayer {self.name!r}).")
            batch_shape = _check_dims(batch_shape, "batch_shape", self.name)
            input_tensor = KerasTensor(batch_shape, dtype=dtype, name=self.name)
        if input_tensor is None:
            if shape is None:
                raise ValueError(f"You must pass a `shape` argument: InputLayer {self.name!r} "
                                 "needs a shape, e.g. Input(shape=(784,)).")
            shape = (shape,) if isinstance(shape, (int, np.integer)) else shape
            shape = _check_dims(shape, "shape", self.name)
            (batch_size,) = _check_dims((batch_size,), "batch_size", self.name)
            input_tensor = KerasTensor((batch_size, *shape), dtype=dtype, name=self.name)
        # One sample (the known dimensions) must fit in memory.
        check_allocatable(f"Input {self.name!r}", "one sample",
                          tuple(d for d in input_tensor.shape[1:] if d is not None),
                          input_tensor.dtype)
        self.batch_shape = input_tensor.shape
        self.built = True
        Node(self, (), {}, input_tensor)

    def call(self, inputs=None):
        """Keras's ``InputLayer.call()``: nothing to compute (None; given a value, that
        value)."""
        return inputs

    def _set_name(self, name):
        self.name = name
        self._inbound_nodes[0].outputs[0].name = name

    def get_config(self):
        """Keras 3's InputLayer config (``sparse`` / ``ragged`` are always False)."""
        return {"batch_shape": list(self.batch_shape), "dtype": self.dtype.name,
                "sparse": False, "ragged": False, "name": self.name,
                "optional": self.optional}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        dtype = config.pop("dtype", None) or "float32"
        if isinstance(dtype, dict):  # a serialized Keras DTypePolicy
            dtype = (dtype.get("config") or {}).get("name", "float32")
        if "batch_input_shape" in config:  # Keras 2 name
            config["batch_shape"] = config.pop("batch_input_shape")
        return cls(dtype=dtype, **config)


def Input(shape=None, batch_size=None, dtype=None, sparse=None,  # noqa: N802 (Keras's name)
          ragged=None, batch_shape=None, name=None, tensor=None, optional=False):
    """A symbolic input tensor of shape ``(batch_size, *shape)``; batch_size None = any.

    ``batch_shape`` gives the full shape instead (as Keras), e.g. ``(None, 784)``;
    ``tensor`` wraps an existing ``KerasTensor``; ``optional=True`` lets the model be given
    None for it. Keras's ``sparse`` / ``ragged`` inputs are refused with an error (inputs
    are dense arrays).
    """
    layer = InputLayer(shape=shape, batch_size=batch_size, dtype=dtype, sparse=sparse,
                       ragged=ragged, batch_shape=batch_shape, input_tensor=tensor,
                       optional=optional, name=name)
    return layer._inbound_nodes[0].outputs[0]
