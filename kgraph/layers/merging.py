"""Merge layers: ``Add``, ``Subtract``, ``Multiply``, ``Average``, ``Maximum``, ``Minimum``,
``Concatenate``, ``Dot``.

Element-wise merges broadcast as NumPy; inputs of lower rank first get axes inserted after
the batch axis (Keras). Masks follow Keras 3: the output mask of an element-wise merge is
the logical OR of the input masks (None if any input has none); ``Multiply``, ``Maximum``
and ``Minimum`` also ignore masked entries in their values, as Keras does.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from kgraph.base import shape_inference
from kgraph.base.input_spec import InputSpec
from kgraph.base.layer import Layer
from kgraph.base.shape_inference import format_shapes
from kgraph.ops.nn import normalize as _l2_normalize

__all__ = [
    "Add", "Average", "Concatenate", "Dot", "Maximum", "Minimum", "Multiply", "Subtract"
]


def _expanded_shape(shape, ndim):
    """``shape`` with axes inserted after the batch axis up to rank ``ndim`` (Keras)."""
    shape = tuple(shape)
    return shape[:1] + (1,) * (ndim - len(shape)) + shape[1:]


def _broadcast_mask(mask, x):
    """A (batch, ...) mask broadcast to the shape of ``x`` (on its trailing axis); where
    ``x``'s shape is unknown (a KerasTensor's None), the mask's own size."""
    if mask.ndim < x.ndim:
        mask = jnp.expand_dims(mask, -1)
    return jnp.broadcast_to(mask, _known_shape(x, mask.shape))


def _known_shape(x, mask_shape):
    """``x``'s shape, its unknown (None) sizes taken from a mask's of the leading axes."""
    return tuple(mask_shape[i] if d is None and i < len(mask_shape) else d
                 for i, d in enumerate(x.shape))


class _Merge(Layer):
    """Base of layers that combine a list of tensors element-wise."""

    supports_masking = True
    min_inputs = 1
    max_inputs = None

    def _check_list(self, input_shape):
        if not isinstance(input_shape, (list, tuple)) or len(input_shape) < 1 or not all(
                isinstance(s, (tuple, list)) for s in input_shape):
            raise ValueError(f'Layer "{self.name}" ({type(self).__name__}): A merge layer should '
                             f"be called on a list of inputs. Received: input_shape="
                             f"{input_shape} (not a list of shapes)")
        count = len(input_shape)
        if count < self.min_inputs or (self.max_inputs is not None and count > self.max_inputs):
            wanted = (f"exactly {self.min_inputs}" if self.min_inputs == self.max_inputs
                      else f"at least {self.min_inputs}")
            raise ValueError(f'Layer "{self.name}": A `{type(self).__name__}` layer should be '
                             f"called on {wanted} inputs. Received {count}: "
                             f"{format_shapes([tuple(s) for s in input_shape])}.")

    def build(self, input_shape):
        self._check_list(input_shape)
        self.compute_output_shape(input_shape)
        self.built = True

    def _check_inputs(self, inputs):
        if not isinstance(inputs, (list, tuple)):
            raise ValueError(f'Layer "{self.name}" ({type(self).__name__}) should be called on a '
                             f"list of tensors, received {inputs!r}.")
        self._check_list([tuple(x.shape) for x in inputs])
        super()._check_inputs(inputs)

    def compute_output_shape(self, input_shape):
        ndim = max(len(s) for s in input_shape)
        try:
            return shape_inference.broadcast_shapes([_expanded_shape(s, ndim)
                                                     for s in input_shape])
        except ValueError:
            raise ValueError(f'Layer "{self.name}" ({type(self).__name__}) received inputs with '
                             f"incompatible shapes: {format_shapes(input_shape)}.") from None

    def _same_rank(self, inputs):
        ndim = max(x.ndim for x in inputs)
        return [jnp.reshape(x, _expanded_shape(x.shape, ndim)) if x.ndim < ndim else x
                for x in inputs]

    def _check_mask_list(self, inputs, mask):
        """Keras's checks of ``compute_mask``'s arguments; the masks as arrays (a mask may
        be given as a variable)."""
        if not isinstance(mask, (list, tuple)):
            raise ValueError(f'Layer "{self.name}": `mask` should be a list. Received: '
                             f"mask={mask}")
        if not isinstance(inputs, (list, tuple)):
            raise ValueError(f'Layer "{self.name}": `inputs` should be a list. Received: '
                             f"inputs={inputs}")
        if len(mask) != len(inputs):
            raise ValueError(f'Layer "{self.name}": The lists `inputs` and `mask` should have '
                             f"the same length. Received: inputs of length {len(inputs)}, and "
                             f"mask={mask} of length {len(mask)}")
        return [None if m is None else jnp.asarray(getattr(m, "value", m)) for m in mask]

    def compute_mask(self, inputs, mask=None):
        if mask is None:
            return None
        mask = self._check_mask_list(inputs, mask)
        if any(m is None for m in mask):
            return None
        out = mask[0]
        for m in mask[1:]:
            out = jnp.logical_or(out, m)
        return out


class Add(_Merge):
    """Element-wise sum of a list of tensors.

    >>> import kgraph as kg
    >>> x = kg.Input(shape=(4,))
    >>> kg.layers.Add()([x, x]).shape
    (None, 4)
    """

    def call(self, inputs):
        inputs = self._same_rank(inputs)
        out = inputs[0]
        for x in inputs[1:]:
            out = out + x
        return out


class Subtract(_Merge):
    """``inputs[0] - inputs[1]`` (exactly two inputs)."""

    min_inputs = max_inputs = 2

    def call(self, inputs):
        a, b = self._same_rank(inputs)
        return a - b


class Average(_Merge):
    """Element-wise mean of a list of tensors."""

    def call(self, inputs):
        inputs = self._same_rank(inputs)
        out = inputs[0]
        for x in inputs[1:]:
            out = out + x
        out = out / len(inputs)
        # Integer inputs average to floats in the compute dtype.
        return out if jnp.issubdtype(inputs[0].dtype, jnp.inexact) else out.astype(
            self.compute_dtype)

    def compute_output_dtype(self, input_dtype):
        return input_dtype if jnp.issubdtype(input_dtype, jnp.inexact) else self.compute_dtype


class Multiply(_Merge):
    """Element-wise product; masked entries count as 1 (and give 0 where all are masked)."""

    def call(self, inputs, mask=None):
        inputs = self._same_rank(inputs)
        masks = list(mask) if isinstance(mask, (list, tuple)) else [None] * len(inputs)
        all_masked = all(m is not None for m in masks)
        out, out_mask = None, None
        for x, m in zip(inputs, masks):
            if m is not None:
                m = _broadcast_mask(m, x)
                x = jnp.where(m, x, jnp.ones((), x.dtype))
                if all_masked:
                    out_mask = m if out_mask is None else jnp.logical_or(out_mask, m)
            out = x if out is None else out * x
        if all_masked:
            out = jnp.where(out_mask, out, jnp.zeros((), out.dtype))
        return out


class _MaskedExtremum(_Merge):
    """``Maximum``/``Minimum``: masked entries take the other inputs' values (Keras)."""

    _op = None

    def call(self, inputs, mask=None):
        inputs = self._same_rank(inputs)
        masks = list(mask) if isinstance(mask, (list, tuple)) else [None] * len(inputs)
        out, out_mask = None, None
        for x, m in zip(inputs, masks):
            if m is not None:
                m = _broadcast_mask(m, x)
            if out is None:
                out, out_mask = x, m
                continue
            if m is not None:
                x = jnp.where(m, x, out)
            if out_mask is not None:
                out = jnp.where(out_mask, out, x)
            out_mask = jnp.logical_or(out_mask, m) if (m is not None and out_mask is not None) \
                else None
            out = type(self)._op(out, x)
        return out


class Maximum(_MaskedExtremum):
    """Element-wise maximum of a list of tensors."""

    _op = staticmethod(jnp.maximum)


class Minimum(_MaskedExtremum):
    """Element-wise minimum of a list of tensors."""

    _op = staticmethod(jnp.minimum)


class Concatenate(_Merge):
    """Concatenate a list of tensors along ``axis`` (default last).

    The output mask concatenates the input masks (all-true for unmasked inputs), reduced
    over the last axis with ``any`` (Keras).

    >>> import kgraph as kg
    >>> kg.layers.Concatenate()([kg.Input(shape=(2,)), kg.Input(shape=(3,))]).shape
    (None, 5)
    """

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = int(axis)

    def call(self, inputs):
        return jnp.concatenate(inputs, axis=self.axis)

    def compute_output_shape(self, input_shape):
        ranks = {len(s) for s in input_shape}
        if len(ranks) != 1:
            raise ValueError(f'Layer "{self.name}" (Concatenate) needs inputs of equal rank, '
                             f"received shapes {format_shapes(input_shape)}.")
        ndim = ranks.pop()
        axis = self.axis % ndim
        result = []
        for i in range(ndim):
            dims = [s[i] for s in input_shape]
            if i == axis:
                result.append(None if None in dims else sum(dims))
                continue
            known = {d for d in dims if d is not None}
            if len(known) > 1:
                raise ValueError(f'Layer "{self.name}": A `Concatenate` layer requires inputs '
                                 "with matching shapes except for the concatenation axis. "
                                 f"Received: input_shape={format_shapes(input_shape)} (axis "
                                 f"{self.axis}).")
            result.append(known.pop() if known else None)
        return tuple(result)

    def compute_mask(self, inputs, mask=None):
        if mask is None:
            return None
        mask = self._check_mask_list(inputs, mask)
        if all(m is None for m in mask):
            return None
        known = next(m for m in mask if m is not None)
        full = [jnp.ones(_known_shape(x, known.shape), bool) if m is None
                else _broadcast_mask(m, x) for x, m in zip(inputs, mask)]
        return jnp.any(jnp.concatenate(full, axis=self.axis), axis=-1)

    def get_config(self):
        return {**super().get_config(), "axis": self.axis}


class Dot(_Merge):
    """Batched dot product of two tensors along ``axes`` (Keras ``batch_dot``).

    ``axes`` is an int or a pair (one axis per input; never the batch axis 0). With
    ``normalize=True`` both inputs are L2-normalized along those axes first (cosine
    proximity). The output has no mask.

    >>> import kgraph as kg
    >>> Dot(axes=(1, 2))([kg.Input(shape=(3, 5)), kg.Input(shape=(10, 3))]).shape
    (None, 5, 10)
    """

    supports_masking = True  # as Keras: a mask is taken, and the output has none
    min_inputs = max_inputs = 2

    def __init__(self, axes, normalize=False, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(axes, int):
            if not isinstance(axes, (list, tuple)):
                raise TypeError(f"Invalid type for argument `axes`: it should be a list or an "
                                f"int. Received: axes={axes}")
            if len(axes) != 2:
                raise ValueError(f"Invalid format for argument `axes`: it should contain two "
                                 f"elements. Received: axes={axes}")
            if not isinstance(axes[0], int) or not isinstance(axes[1], int):
                raise ValueError(f"Invalid format for argument `axes`: list elements should "
                                 f"be integers. Received: axes={axes}")
        self.axes = axes
        self.normalize = bool(normalize)
        self.input_spec = [InputSpec(min_ndim=2), InputSpec(min_ndim=2)]

    def _resolved_axes(self, ndim1, ndim2):
        pair = (self.axes, self.axes) if isinstance(self.axes, int) else tuple(self.axes)
        axes = [a % n if a < 0 else a for a, n in zip(pair, (ndim1, ndim2))]
        if 0 in axes or axes[0] >= ndim1 or axes[1] >= ndim2:
            raise ValueError(f'Layer "{self.name}" (Dot): invalid axes={self.axes} for inputs '
                             f"of rank {ndim1} and {ndim2}; axis 0 (the batch axis) cannot be "
                             "used.")
        return axes

    def compute_output_shape(self, input_shape):
        shape1, shape2 = (list(s) for s in input_shape)
        for s in (shape1, shape2):
            if len(s) < 2:
                raise ValueError(f'Layer "{self.name}" (Dot) needs inputs of rank >= 2, '
                                 f"received shapes {format_shapes(input_shape)}.")
        a1, a2 = self._resolved_axes(len(shape1), len(shape2))
        if None not in (shape1[a1], shape2[a2]) and shape1[a1] != shape2[a2]:
            raise ValueError(f'Layer "{self.name}" (Dot): incompatible input shapes: axis values '
                             f"{shape1[a1]} (at axis {a1}) != {shape2[a2]} (at axis {a2}). "
                             f"Full input shapes: {format_shapes(input_shape)}.")
        batch = {shape1[0], shape2[0]} - {None}
        shape1.pop(a1)
        shape2.pop(a2)
        out = [batch.pop() if len(batch) == 1 else None] + shape1[1:] + shape2[1:]
        return tuple(out + [1] if len(out) == 1 else out)

    def call(self, inputs):
        x1, x2 = inputs
        a1, a2 = self._resolved_axes(x1.ndim, x2.ndim)
        if self.normalize:
            x1 = _l2_normalize(x1, axis=a1)
            x2 = _l2_normalize(x2, axis=a2)
        out = jax.lax.dot_general(x1, x2, (((a1,), (a2,)), ((0,), (0,))))
        return out[:, None] if out.ndim == 1 else out

    def compute_mask(self, inputs, mask=None):
        return None

    def get_config(self):
        axes = self.axes if isinstance(self.axes, int) else list(self.axes)
        return {**super().get_config(), "axes": axes, "normalize": self.normalize}
