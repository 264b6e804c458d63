"""``InputSpec``: what a layer accepts, checked on every call (symbolic or eager).

>>> spec = InputSpec(min_ndim=2, axes={-1: 5})
>>> assert_input_compatibility(spec, [jax.ShapeDtypeStruct((10, 4), "float32")], "dense")
Traceback (most recent call last):
ValueError: Input 0 of layer "dense" is incompatible with the layer: expected axis -1 of input shape to have value 5, but received input with shape (10, 4)
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from kgraph.base.shape_inference import format_shape

__all__ = ["InputSpec", "assert_input_compatibility"]


class InputSpec:
    """Rank, dtype, shape and per-axis constraints for one input of a layer.

    Args:
      dtype: the required dtype, or None.
      shape: the required shape; None entries match any size.
      ndim / min_ndim / max_ndim: exact, minimum and maximum rank.
      axes: ``{axis: size}`` for axes whose size is fixed (e.g. ``{-1: in_features}``).
      name: the input's name, for dict inputs.
      optional: the input may be None (then nothing else is checked).
    """

    def __init__(self, dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None,
                 axes=None, allow_last_axis_squeeze=False, name=None, optional=False):
        self.dtype = jnp.dtype(dtype) if dtype is not None else None
        self.shape = tuple(shape) if shape is not None else None
        self.ndim = len(self.shape) if self.shape is not None else ndim
        self.max_ndim = max_ndim
        self.min_ndim = min_ndim
        self.axes = {int(k): v for k, v in (axes or {}).items()}
        self.allow_last_axis_squeeze = allow_last_axis_squeeze
        self.name = name
        self.optional = bool(optional)
        max_axis = max(self.axes) if self.axes else None
        if self.ndim is not None and max_axis is not None and max_axis >= self.ndim:
            raise ValueError(f"Axis {max_axis} is greater than the rank {self.ndim} of InputSpec.")

    def __repr__(self):
        fields = [f"{k}={v}" for k, v in (("dtype", self.dtype), ("shape", self.shape),
                  ("ndim", self.ndim), ("max_ndim", self.max_ndim),
                  ("min_ndim", self.min_ndim), ("axes", self.axes or None)) if v is not None]
        return f"InputSpec({', '.join(fields)})"

    def get_config(self):
        return {"dtype": None if self.dtype is None else self.dtype.name, "shape": self.shape,
                "ndim": self.ndim, "max_ndim": self.max_ndim, "min_ndim": self.min_ndim,
                "axes": self.axes, "optional": self.optional}


def assert_input_compatibility(input_spec, inputs, layer_name: str) -> None:
    """Raise a Keras-style ValueError if ``inputs`` (a structure of arrays) breaks the spec."""
    if not input_spec:
        return
    specs = input_spec if isinstance(input_spec, (list, tuple)) else [input_spec]
    optional = any(spec is not None and spec.optional for spec in specs)
    flat = jax.tree_util.tree_leaves(inputs, is_leaf=(lambda x: x is None) if optional else None)
    if len(specs) != len(flat):
        raise ValueError(
            f'Layer "{layer_name}" expects {len(specs)} input(s), but it received '
            f"{len(flat)} input tensors. Inputs received: {flat}"
        )
    for index, (spec, x) in enumerate(zip(specs, flat)):
        if spec is None or (x is None and spec.optional):
            continue
        # Symbolic (non-integer) sizes, met while shapes are inferred, count as unknown.
        shape = tuple(d if d is None or isinstance(d, int) else None
                      for d in getattr(x, "shape", ()))
        ndim = len(shape)
        where = f'Input {index} of layer "{layer_name}" is incompatible with the layer:'
        if spec.ndim is not None and not spec.allow_last_axis_squeeze and ndim != spec.ndim:
            raise ValueError(f"{where} expected ndim={spec.ndim}, found ndim={ndim}. "
                             f"Full shape received: {format_shape(shape)}")
        if spec.max_ndim is not None and ndim > spec.max_ndim:
            raise ValueError(f"{where} expected max_ndim={spec.max_ndim}, found ndim={ndim}. "
                             f"Full shape received: {format_shape(shape)}")
        if spec.min_ndim is not None and ndim < spec.min_ndim:
            raise ValueError(f"{where} expected min_ndim={spec.min_ndim}, found ndim={ndim}. "
                             f"Full shape received: {format_shape(shape)}")
        if spec.dtype is not None and jnp.dtype(x.dtype) != spec.dtype:
            raise ValueError(f"{where} expected dtype={spec.dtype.name}, "
                             f"found dtype={jnp.dtype(x.dtype).name}")
        for axis, value in spec.axes.items():
            if value is None:
                continue
            if axis >= ndim or axis < -ndim:
                raise ValueError(f"{where} expected axis {axis} of input shape to exist, "
                                 f"but received input with shape {format_shape(shape)}")
            if shape[axis] is not None and shape[axis] != value:
                raise ValueError(f"{where} expected axis {axis} of input shape to have value "
                                 f"{value}, but received input with shape {format_shape(shape)}")
        if spec.shape is not None and spec.ndim == ndim:
            for axis, (expected, got) in enumerate(zip(spec.shape, shape)):
                if expected is not None and got is not None and expected != got:
                    what = " (another batch size)" if axis == 0 else ""
                    raise ValueError(f"{where} expected shape={format_shape(spec.shape)}, "
                                     f"found shape={format_shape(shape)}{what}")
