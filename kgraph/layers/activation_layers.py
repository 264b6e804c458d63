"""Activation layers: ``ReLU``, ``LeakyReLU``, ``PReLU``, ``ELU``, ``Softmax`` (Keras 3)."""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp

from kgraph import activations, constraints, initializers, regularizers
from kgraph.base.input_spec import InputSpec
from kgraph.base.layer import Layer
from kgraph.layers import arg_checks

__all__ = ["ELU", "LeakyReLU", "PReLU", "ReLU", "Softmax"]


class _Elementwise(Layer):
    supports_masking = True
    _builds_at_init = True

    def compute_output_shape(self, input_shape):
        return input_shape


class ReLU(_Elementwise):
    """``activations.relu`` with ``max_value``, ``negative_slope`` and ``threshold``:
    ``x`` for ``threshold < x < max_value``, ``max_value`` above, and
    ``negative_slope * (x - threshold)`` below the threshold.

    >>> import jax.numpy as jnp
    >>> ReLU(max_value=1.0)(jnp.array([-1.0, 0.5, 3.0])).tolist()
    [0.0, 0.5, 1.0]
    """

    def __init__(self, max_value=None, negative_slope=0.0, threshold=0.0, **kwargs):
        super().__init__(**kwargs)
        if max_value is not None and max_value < 0.0:
            raise ValueError("max_value of a ReLU layer cannot be a negative value. "
                             f"Received: max_value={max_value}")
        if negative_slope is None or negative_slope < 0.0:
            raise ValueError("negative_slope of a ReLU layer cannot be None or a negative "
                             f"value. Received: negative_slope={negative_slope}")
        if threshold is None or threshold < 0.0:
            raise ValueError("threshold of a ReLU layer cannot be None or a negative value. "
                             f"Received: threshold={threshold}")
        self.max_value = max_value
        self.negative_slope = negative_slope
        self.threshold = threshold

    def call(self, inputs):
        return activations.relu(inputs, negative_slope=self.negative_slope,
                                max_value=self.max_value, threshold=self.threshold)

    def get_config(self):
        return {**super().get_config(), "max_value": self.max_value,
                "negative_slope": self.negative_slope, "threshold": self.threshold}


class LeakyReLU(_Elementwise):
    """``x`` for ``x >= 0``, ``negative_slope * x`` otherwise (Keras's default slope: 0.3)."""

    def __init__(self, negative_slope=0.3, **kwargs):
        if "alpha" in kwargs:
            negative_slope = kwargs.pop("alpha")
            warnings.warn("Argument `alpha` is deprecated. Use `negative_slope` instead.",
                          stacklevel=2)
        super().__init__(**kwargs)
        if negative_slope is None or negative_slope < 0:
            raise ValueError("The negative_slope value of a Leaky ReLU layer cannot be None or "
                             f"negative value. Expected a float. Received: "
                             f"negative_slope={negative_slope}")
        self.negative_slope = negative_slope

    def call(self, inputs):
        return activations.leaky_relu(inputs, negative_slope=self.negative_slope)

    def get_config(self):
        return {**super().get_config(), "negative_slope": self.negative_slope}


class PReLU(_Elementwise):
    """Leaky ReLU with a learned slope: ``relu(x) - alpha * relu(-x)``.

    Weight ``alpha`` has the input's shape without the batch axis, with size 1 along
    ``shared_axes`` (e.g. ``shared_axes=[1, 2]`` for one slope per channel of images).
    """

    def __init__(self, alpha_initializer="Zeros", alpha_regularizer=None, alpha_constraint=None,
                 shared_axes=None, **kwargs):
        super().__init__(**kwargs)
        self.alpha_initializer = alpha_initializer
        self.alpha_regularizer = regularizers.get(alpha_regularizer)
        self.alpha_constraint = constraints.get(alpha_constraint)
        if shared_axes is None:
            self.shared_axes = None
        elif not isinstance(shared_axes, (list, tuple)):
            self.shared_axes = [shared_axes]
        else:
            self.shared_axes = list(shared_axes)

    def build(self, input_shape):
        ndim = len(input_shape)
        param_shape = list(input_shape[1:])
        for i in self.shared_axes or ():
            if not 1 <= i < ndim:
                raise ValueError(f'Layer "{self.name}": shared_axes entries must be non-batch '
                                 f"axes of the input (1..{ndim - 1}); received "
                                 f"shared_axes={self.shared_axes} for input shape "
                                 f"{tuple(input_shape)}.")
            param_shape[i - 1] = 1
        if any(d is None for d in param_shape):
            raise ValueError(f'Layer "{self.name}" needs known non-batch input dimensions '
                             f"(or shared_axes over the unknown ones), received input shape "
                             f"{tuple(input_shape)}.")
        self.alpha = self.add_weight(tuple(param_shape), self.alpha_initializer, name="alpha",
                                     regularizer=self.alpha_regularizer,
                                     constraint=self.alpha_constraint)
        shared = set(self.shared_axes or ())
        self.input_spec = InputSpec(ndim=ndim, axes={i: input_shape[i] for i in range(1, ndim)
                                                     if i not in shared})
        self.built = True

    def call(self, inputs):
        return jax.nn.relu(inputs) - self.alpha * jax.nn.relu(-inputs)

    def get_config(self):
        return {**super().get_config(),
                "alpha_initializer": initializers.serialize(self.alpha_initializer),
                "alpha_regularizer": regularizers.serialize(self.alpha_regularizer),
                "alpha_constraint": constraints.serialize(self.alpha_constraint),
                "shared_axes": self.shared_axes}


class ELU(_Elementwise):
    """``x`` for ``x > 0``, ``alpha * (exp(x) - 1)`` otherwise."""

    def __init__(self, alpha=1.0, **kwargs):
        arg_checks.number("ELU", "alpha", alpha)
        super().__init__(**kwargs)
        self.alpha = alpha

    def call(self, inputs):
        return activations.elu(inputs, alpha=self.alpha)

    def get_config(self):
        return {**super().get_config(), "alpha": self.alpha}


def _large_negative_number(dtype):
    return -3e4 if jnp.dtype(dtype) == jnp.float16 else -1e9


class Softmax(_Elementwise):
    """Softmax over ``axis`` (an int, or a list: a joint softmax over several axes).

    ``mask`` (broadcastable to the inputs; True = keep) gives masked positions zero
    probability, as Keras 3: they are replaced by a large negative number before the
    softmax and zeroed after it. Computed in float32 under half-precision policies.
    """

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = list(axis) if isinstance(axis, (list, tuple)) else axis

    def _check_inputs(self, inputs):
        super()._check_inputs(inputs)
        arg_checks.axes_in_range(self, self.axis, inputs.shape)

    def call(self, inputs, mask=None):
        x = inputs.astype(jnp.promote_types(inputs.dtype, jnp.float32))
        if mask is not None:
            mask = jnp.asarray(mask)
            if mask.ndim > x.ndim:
                raise ValueError(f'Layer "{self.name}": The `mask` must be broadcastable to '
                                 "`inputs` and must not have more dimensions. Received: "
                                 f"inputs.shape={inputs.shape}, mask.shape={mask.shape}")
            if any(m != 1 and m != i for m, i in zip(mask.shape[::-1], x.shape[::-1])):
                raise ValueError(f'Layer "{self.name}": the `mask` must be broadcastable to '
                                 "`inputs`: each mask dimension must be 1 or match the "
                                 f"input's. Received: inputs.shape={inputs.shape}, "
                                 f"mask.shape={mask.shape}")
            if mask.dtype != jnp.bool_:
                mask = mask > 0.5
            x = jnp.where(mask, x, _large_negative_number(inputs.dtype))
        axis = tuple(self.axis) if isinstance(self.axis, list) else self.axis
        outputs = jax.nn.softmax(x, axis=axis)
        if mask is not None:
            outputs = jnp.where(mask, outputs, 0.0)
        return outputs.astype(inputs.dtype)

    def get_config(self):
        return {**super().get_config(), "axis": self.axis}
