"""Normalization layers: ``BatchNormalization``, ``LayerNormalization``,
``GroupNormalization``, ``UnitNormalization``, ``RMSNormalization`` (Keras 3 semantics).

Statistics are computed in (at least) float32 whatever the dtype policy, and the output is
cast to the layer's compute dtype, as Keras does.
"""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp

from kgraph import initializers
from kgraph.base.input_spec import InputSpec, assert_input_compatibility
from kgraph.base.layer import Layer
from kgraph.config import epsilon
from kgraph.interpreter import context
from kgraph.layers import arg_checks, weight_args as wa

__all__ = [
    "BatchNormalization", "GroupNormalization", "LayerNormalization", "RMSNormalization",
    "UnitNormalization"
]


def _stat_dtype(dtype):
    """The dtype statistics are computed in: ``result_type(dtype, float32)``."""
    if not jnp.issubdtype(dtype, jnp.floating):
        return jnp.dtype(jnp.float32)
    return jnp.promote_types(dtype, jnp.float32)


def _standardize_axes(axis, name):
    if isinstance(axis, (list, tuple)):
        if not all(isinstance(a, int) and not isinstance(a, bool) for a in axis):
            raise TypeError(f"Expected an int or a list/tuple of ints for the argument 'axis', "
                            f"but received: {axis!r}")
        return list(axis)
    if isinstance(axis, int) and not isinstance(axis, bool):
        return axis
    raise TypeError(f"Expected an int or a list/tuple of ints for the argument 'axis', "
                    f"but received: {axis!r}")


def _resolve_axes(axis, input_shape, layer_name, need_known=True):
    """Sorted non-negative axes of ``axis`` (int or list) for ``input_shape``."""
    ndim = len(input_shape)
    axes = axis if isinstance(axis, list) else [axis]
    for a in axes:
        if not -ndim <= a < ndim:
            raise ValueError(f'Layer "{layer_name}": axis {a} is out of bounds for input shape '
                             f"{tuple(input_shape)}. Received: axis={axis}")
    resolved = sorted({a % ndim for a in axes})
    if len(resolved) != len(axes):
        raise ValueError(f'Layer "{layer_name}": duplicate axes in axis={axis}.')
    if need_known:
        for a in resolved:
            if input_shape[a] is None:
                raise ValueError(f'Layer "{layer_name}": axis {a} of input shape '
                                 f"{tuple(input_shape)} must be known. Received: axis={axis}")
    return resolved


def _axes_spec(axis, input_shape, axes):
    """An InputSpec fixing the sizes of ``axes`` (keyed as the user gave them)."""
    ndim = len(input_shape)
    given = axis if isinstance(axis, list) else [axis]
    min_ndim = max(a + 1 if a >= 0 else -a for a in given)
    return InputSpec(min_ndim=min_ndim, axes={a: input_shape[a % ndim] for a in given})


def _broadcast_shape(ndim, axes, shape):
    out = [1] * ndim
    for a in axes:
        out[a] = shape[a]
    return tuple(out)


class _FloatStatsLayer(Layer):
    """Reads weights uncast (float32 under mixed policies); outputs the compute dtype.

    Also holds what the normalizations with ``center``/``scale`` share: the ``beta`` and
    ``gamma`` arguments, weights and config entries.
    """

    autocast = False

    def add_weight(self, *args, autocast=False, **kwargs):
        """``Layer.add_weight``; the weights keep their dtype when read (also inside an
        ``AutocastScope``), as Keras's."""
        return super().add_weight(*args, autocast=autocast, **kwargs)

    def compute_output_dtype(self, input_dtype):
        return self.compute_dtype

    def compute_output_shape(self, input_shape):
        return input_shape

    def _init_affine(self, center, scale, beta_initializer, gamma_initializer,
                     beta_regularizer, gamma_regularizer, beta_constraint, gamma_constraint):
        self.center = center
        self.scale = scale
        wa.set_weight_args(self, "beta", beta_initializer, beta_regularizer, beta_constraint)
        wa.set_weight_args(self, "gamma", gamma_initializer, gamma_regularizer,
                           gamma_constraint)

    def _add_affine(self, shape, gamma=True, beta=True):
        """Add ``gamma`` then ``beta`` of ``shape`` (each only if asked for)."""
        if gamma:
            self.gamma = wa.add_weight(self, "gamma", shape)
        if beta:
            self.beta = wa.add_weight(self, "beta", shape)

    def _affine_config(self):
        return {"center": self.center, "scale": self.scale,
                **wa.weight_config(self, "beta", "gamma")}


class BatchNormalization(_FloatStatsLayer):
    """Normalize with batch statistics in training, moving statistics in inference.

    Weights: ``gamma``, ``beta`` (trainable); ``moving_mean``, ``moving_variance``
    (non-trainable state, updated only when ``training=True``:
    ``moving = moving * momentum + batch_stat * (1 - momentum)``). A layer with
    ``trainable=False`` runs in inference mode, as in Keras. ``axis`` may be a list of
    feature axes (weights then have the shape of those axes). With a ``mask`` (one rank
    less than the inputs), training statistics count only unmasked positions; rows the
    call context marks as padding (``kgraph.interpreter.context.sample_mask_for``) never count. With
    ``renorm=True``, Batch Renormalization (extra state ``moving_stddev``,
    ``renorm_mean``, ``renorm_stddev``).

    >>> import kgraph as kg
    >>> kg.layers.BatchNormalization()(kg.Input(shape=(3,))).shape
    (None, 3)
    """

    supports_masking = True

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones",
                 moving_mean_initializer="zeros", moving_variance_initializer="ones",
                 beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, synchronized=False, renorm=False,
                 renorm_clipping=None, renorm_momentum=0.99, **kwargs):
        super().__init__(**kwargs)
        self.axis = _standardize_axes(axis, "BatchNormalization")
        # Keras's flag for statistics across replicas; one program on one device computes
        # the batch's statistics whole, so it changes nothing here.
        self.synchronized = bool(synchronized)
        self.momentum = float(arg_checks.number(f'Layer "{self.name}" (BatchNormalization)',
                                                "momentum", momentum, low=0, high=1))
        self.epsilon = float(epsilon)
        self._init_affine(center, scale, beta_initializer, gamma_initializer, beta_regularizer,
                          gamma_regularizer, beta_constraint, gamma_constraint)
        self.moving_mean_initializer = moving_mean_initializer
        self.moving_variance_initializer = moving_variance_initializer
        self.renorm = bool(renorm)
        if renorm:
            renorm_clipping = dict(renorm_clipping or {})
            keys = ["rmax", "rmin", "dmax"]
            if set(renorm_clipping) - set(keys):
                raise ValueError("Received invalid keys for `renorm_clipping` argument: "
                                 f"{renorm_clipping}. Supported values: {keys}.")
            rmax, rmin = renorm_clipping.get("rmax"), renorm_clipping.get("rmin")
            dmax = renorm_clipping.get("dmax")
            if rmax is not None and rmin is not None and rmax < rmin:
                raise ValueError("rmax should be greater than rmin in the `renorm_clipping` "
                                 f"argument. Received: rmax={rmax}, rmin={rmin}.")
            if dmax is not None and dmax < 0:
                raise ValueError("dmax should be non-negative in the `renorm_clipping` "
                                 f"argument. Received: dmax={dmax}.")
        self.renorm_clipping = renorm_clipping
        self.renorm_momentum = float(renorm_momentum)

    def build(self, input_shape):
        ndim = len(input_shape)
        try:
            self._axes = _resolve_axes(self.axis, input_shape, self.name)
        except ValueError as error:
            raise ValueError(f'Layer "{self.name}": axis {self.axis} of input shape '
                             f"{tuple(input_shape)} must exist and be known.") from error
        shape = tuple(input_shape[a] for a in self._axes)
        self._add_affine(shape, gamma=self.scale, beta=self.center)
        self.moving_mean = self.add_weight(shape, self.moving_mean_initializer,
                                           trainable=False, name="moving_mean")
        self.moving_variance = self.add_weight(shape, self.moving_variance_initializer,
                                               trainable=False, name="moving_variance")
        if self.renorm:
            variance_init = initializers.get(self.moving_variance_initializer)

            def stddev_init(key, shape, dtype="float32"):
                return jnp.sqrt(variance_init(key, shape, dtype))

            self.moving_stddev = self.add_weight(shape, stddev_init, trainable=False,
                                                 name="moving_stddev")
            self.renorm_mean = self.add_weight(shape, self.moving_mean_initializer,
                                               trainable=False, name="renorm_mean")
            self.renorm_stddev = self.add_weight(shape, stddev_init, trainable=False,
                                                 name="renorm_stddev")
        axes = self.axis if isinstance(self.axis, list) else [self.axis]
        self.input_spec = InputSpec(ndim=ndim, axes={a: input_shape[a % ndim] for a in axes})
        self.built = True

    def _moments(self, x, mask):
        """Batch mean and variance over the non-feature axes, counting only positions the
        Keras ``mask`` keeps and rows the context's ``sample_mask`` marks real."""
        reduce = tuple(i for i in range(x.ndim) if i not in self._axes)
        rows = context.sample_mask_for(x)
        if mask is None and rows is None:
            mean = jnp.mean(x, axis=reduce, keepdims=True)
            variance = jnp.mean(jnp.square(x - mean), axis=reduce)  # reuses the mean
            return jnp.squeeze(mean, reduce), variance
        weights = jnp.ones(x.shape, bool)
        if mask is not None:
            weights = jnp.broadcast_to(jnp.expand_dims(mask, -1), x.shape).astype(bool)
        if rows is not None:
            weights = weights & context.row_mask(rows, x)
        count = jnp.sum(weights.astype(x.dtype), axis=reduce, keepdims=True)
        # Keras's masked moments add an epsilon; padding alone divides by the exact count.
        count = count + epsilon() if mask is not None else jnp.maximum(count, 1.0)
        mean = jnp.sum(jnp.where(weights, x, 0), axis=reduce, keepdims=True) / count
        variance = jnp.sum(jnp.square(jnp.where(weights, x - mean, 0)), axis=reduce,
                           keepdims=True) / count
        return jnp.squeeze(mean, reduce), jnp.squeeze(variance, reduce)

    def call(self, inputs, training=None, mask=None):
        if mask is not None and mask.ndim != inputs.ndim - 1:
            raise ValueError(f'Layer "{self.name}": the mask provided should be one dimension '
                             f"less than the inputs. Received: mask.shape={mask.shape}, "
                             f"inputs.shape={inputs.shape}")
        if jnp.issubdtype(inputs.dtype, jnp.floating):
            inputs = inputs.astype(self.compute_dtype)  # Keras autocasts BN inputs
        x = inputs.astype(_stat_dtype(inputs.dtype))
        broadcast = _broadcast_shape(x.ndim, self._axes, x.shape)
        gamma = self.gamma.astype(x.dtype) if self.scale else None
        beta = self.beta.astype(x.dtype) if self.center else None
        if training and self.trainable:
            mean, variance = self._moments(x, mask)
            if self.renorm:
                gamma, beta = self._renormalize(mean, variance, gamma, beta)
            else:
                m = self.momentum
                self.moving_mean = self.moving_mean.astype(x.dtype) * m + mean * (1.0 - m)
                self.moving_variance = (self.moving_variance.astype(x.dtype) * m
                                        + variance * (1.0 - m))
        else:
            mean = self.moving_mean.astype(x.dtype)
            variance = self.moving_variance.astype(x.dtype)
        inv = jax.lax.rsqrt(jnp.reshape(variance, broadcast) + self.epsilon)
        if gamma is not None:
            inv = inv * jnp.reshape(gamma, broadcast)
        res = -jnp.reshape(mean, broadcast) * inv
        if beta is not None:
            res = res + jnp.reshape(beta, broadcast)
        return (x * inv + res).astype(self.compute_dtype)

    def _renormalize(self, mean, variance, gamma, beta):
        """Batch Renormalization (Ioffe, 2017), as Keras: the corrected gamma/beta, and the
        renorm and moving statistics updated."""
        dtype = mean.dtype
        stddev = jnp.sqrt(variance + self.epsilon)
        renorm_mean = self.renorm_mean.astype(dtype)
        renorm_stddev = self.renorm_stddev.astype(dtype)
        safe_stddev = jnp.maximum(renorm_stddev, jnp.sqrt(jnp.asarray(self.epsilon, dtype)))
        r = stddev / safe_stddev
        d = (mean - renorm_mean) / safe_stddev
        clipping = self.renorm_clipping or {}
        if clipping.get("rmin") is not None:
            r = jnp.maximum(r, clipping["rmin"])
        if clipping.get("rmax") is not None:
            r = jnp.minimum(r, clipping["rmax"])
        if clipping.get("dmax") is not None:
            d = jnp.clip(d, -clipping["dmax"], clipping["dmax"])
        r, d = jax.lax.stop_gradient(r), jax.lax.stop_gradient(d)
        if gamma is not None:
            new_gamma, new_beta = r * gamma, d * gamma
        else:
            new_gamma, new_beta = r, d
        if beta is not None:
            new_beta = new_beta + beta
        rm = self.renorm_momentum
        self.renorm_mean = renorm_mean * rm + mean * (1.0 - rm)
        self.renorm_stddev = renorm_stddev * rm + stddev * (1.0 - rm)
        m = self.momentum
        self.moving_mean = self.moving_mean.astype(dtype) * m + mean * (1.0 - m)
        moving_stddev = self.moving_stddev.astype(dtype) * m + stddev * (1.0 - m)
        self.moving_stddev = moving_stddev
        self.moving_variance = jax.nn.relu(moving_stddev * moving_stddev - self.epsilon)
        return new_gamma, new_beta

    def get_config(self):
        return {**super().get_config(), "axis": self.axis, "momentum": self.momentum,
                "epsilon": self.epsilon, **self._affine_config(),
                "moving_mean_initializer": initializers.serialize(self.moving_mean_initializer),
                "moving_variance_initializer":
                    initializers.serialize(self.moving_variance_initializer),
                "synchronized": self.synchronized, "renorm": self.renorm, "renorm_clipping": self.renorm_clipping,
                "renorm_momentum": self.renorm_momentum}


class LayerNormalization(_FloatStatsLayer):
    """Normalize each sample over ``axis`` (an int or a list): ``(x - mean) / sqrt(var + eps)``,
    then ``* gamma + beta`` (weights of the shape of those axes).

    ``rms_scaling=True`` is Keras's deprecated variant: ``x * rsqrt(var + eps) * gamma``,
    no centring and no ``beta`` (use ``RMSNormalization`` for real RMS normalization).

    >>> import kgraph as kg
    >>> kg.layers.LayerNormalization()(kg.Input(shape=(2, 3))).shape
    (None, 2, 3)
    """

    supports_masking = True

    def __init__(self, axis=-1, epsilon=1e-3, center=True, scale=True, rms_scaling=False,
                 beta_initializer="zeros", gamma_initializer="ones", beta_regularizer=None,
                 gamma_regularizer=None, beta_constraint=None, gamma_constraint=None,
                 **kwargs):
        if rms_scaling:
            warnings.warn("You passed `rms_scaling=True`, which is deprecated. This argument "
                          "incorrectly scales the input by the variance, not the root mean "
                          "square. To correctly use RMS Normalization, please use "
                          "`kgraph.layers.RMSNormalization` instead.", stacklevel=2)
        super().__init__(**kwargs)
        self.axis = _standardize_axes(axis, "LayerNormalization")
        self.epsilon = epsilon
        self._init_affine(center, scale, beta_initializer, gamma_initializer, beta_regularizer,
                          gamma_regularizer, beta_constraint, gamma_constraint)
        self.rms_scaling = rms_scaling

    def build(self, input_shape):
        self._axes = _resolve_axes(self.axis, input_shape, self.name)
        shape = tuple(input_shape[a] for a in self._axes)
        self._has_gamma = bool(self.scale or self.rms_scaling)
        self._has_beta = bool(self.center and not self.rms_scaling)
        self._add_affine(shape, gamma=self._has_gamma, beta=self._has_beta)
        self.input_spec = _axes_spec(self.axis, input_shape, self._axes)
        self.built = True

    def call(self, inputs):
        x = inputs.astype(_stat_dtype(inputs.dtype))
        ndim = x.ndim
        axes = tuple(sorted(a % ndim for a in (self.axis if isinstance(self.axis, list)
                                               else [self.axis])))
        broadcast = _broadcast_shape(ndim, axes, x.shape)
        gamma = jnp.reshape(self.gamma.astype(x.dtype), broadcast) if self._has_gamma else None
        beta = jnp.reshape(self.beta.astype(x.dtype), broadcast) if self._has_beta else None
        if self.rms_scaling:
            mean = jnp.mean(x, axis=axes, keepdims=True)
            variance = jnp.mean(jnp.square(x - mean), axis=axes, keepdims=True)
            outputs = x * jax.lax.rsqrt(variance + self.epsilon)
            if gamma is not None:
                outputs = outputs * gamma
        else:
            mean = jnp.mean(x, axis=axes, keepdims=True)
            centered = x - mean  # reused by the variance (jnp.var would recompute the mean)
            variance = jnp.mean(jnp.square(centered), axis=axes, keepdims=True)
            inv = jax.lax.rsqrt(variance + self.epsilon)
            if gamma is not None:
                inv = inv * gamma
            outputs = centered * inv
            if beta is not None:
                outputs = outputs + beta
        return outputs.astype(self.compute_dtype)

    def get_config(self):
        return {**super().get_config(), "axis": self.axis, "epsilon": self.epsilon,
                "rms_scaling": self.rms_scaling, **self._affine_config()}


class GroupNormalization(_FloatStatsLayer):
    """Split the channels (``axis``) into ``groups`` and normalize each group per sample
    (over its channels and all other non-batch axes); ``groups=-1`` is instance
    normalization. Weights ``gamma``, ``beta`` of shape (channels,).

    >>> import kgraph as kg
    >>> kg.layers.GroupNormalization(groups=2)(kg.Input(shape=(5, 4))).shape
    (None, 5, 4)
    """

    supports_masking = True

    def __init__(self, groups=32, axis=-1, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones", beta_regularizer=None,
                 gamma_regularizer=None, beta_constraint=None, gamma_constraint=None,
                 **kwargs):
        if not isinstance(groups, int) or isinstance(groups, bool) or (
                groups <= 0 and groups != -1):
            raise ValueError("Received an invalid value for argument `groups`, expected a "
                             "positive integer (or `-1` for instance normalization). "
                             f"Received: groups={groups}")
        super().__init__(**kwargs)
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise TypeError(f"GroupNormalization expects an int `axis`, received: {axis!r}")
        self.groups = groups
        self.axis = axis
        self.epsilon = epsilon
        self._init_affine(center, scale, beta_initializer, gamma_initializer, beta_regularizer,
                          gamma_regularizer, beta_constraint, gamma_constraint)

    def build(self, input_shape):
        ndim = len(input_shape)
        if not -ndim <= self.axis < ndim or self.axis % ndim == 0:
            raise ValueError(f'Layer "{self.name}": axis {self.axis} is out of bounds (or the '
                             f"batch axis) for input shape {tuple(input_shape)}.")
        dim = input_shape[self.axis]
        if dim is None:
            raise ValueError(f'Layer "{self.name}": axis {self.axis} of input tensor should '
                             "have a defined dimension but the layer received an input with "
                             f"shape {tuple(input_shape)}.")
        if self.groups == -1:
            self.groups = dim
        if dim < self.groups:
            raise ValueError(f'Layer "{self.name}": number of groups ({self.groups}) cannot be '
                             f"more than the number of channels ({dim}).")
        if dim % self.groups != 0:
            raise ValueError(f'Layer "{self.name}": number of groups ({self.groups}) must be a '
                             f"multiple of the number of channels ({dim}).")
        self.input_spec = InputSpec(ndim=ndim, axes={self.axis: dim})
        self._add_affine((dim,), gamma=self.scale, beta=self.center)
        self.built = True

    def call(self, inputs):
        x = inputs.astype(_stat_dtype(inputs.dtype))
        axis = self.axis % x.ndim
        channels = x.shape[axis]
        group_shape = x.shape[:axis] + (self.groups, channels // self.groups) + x.shape[axis + 1:]
        grouped = jnp.reshape(x, group_shape)
        reduce = tuple(i for i in range(1, grouped.ndim) if i != axis)
        broadcast = [1] * grouped.ndim
        broadcast[axis], broadcast[axis + 1] = self.groups, channels // self.groups
        mean = jnp.mean(grouped, axis=reduce, keepdims=True)
        variance = jnp.mean(jnp.square(grouped - mean), axis=reduce, keepdims=True)
        inv = jax.lax.rsqrt(variance + self.epsilon)
        if self.scale:
            inv = inv * jnp.reshape(self.gamma.astype(x.dtype), broadcast)
        res = -mean * inv
        if self.center:
            res = res + jnp.reshape(self.beta.astype(x.dtype), broadcast)
        outputs = jnp.reshape(grouped * inv + res, x.shape)
        return outputs.astype(self.compute_dtype)

    def get_config(self):
        return {**super().get_config(), "groups": self.groups, "axis": self.axis,
                "epsilon": self.epsilon, **self._affine_config()}


class UnitNormalization(Layer):
    """Scale each sample to unit L2 norm over ``axis`` (an int or a list):
    ``x * min(rsqrt(sum(x**2)), 1e12)``. No weights.

    >>> import kgraph as kg
    >>> kg.layers.UnitNormalization()(kg.Input(shape=(3,))).shape
    (None, 3)
    """

    supports_masking = True
    _builds_at_init = True

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        try:
            self.axis = _standardize_axes(axis, "UnitNormalization")
        except TypeError:
            raise TypeError("Invalid value for `axis` argument: expected an int or a "
                            f"list/tuple of ints. Received: axis={axis}") from None

    def _check_inputs(self, inputs):
        given = self.axis if isinstance(self.axis, list) else [self.axis]
        assert_input_compatibility(InputSpec(min_ndim=max(a + 1 if a >= 0 else -a
                                                          for a in given)), inputs, self.name)
        _resolve_axes(self.axis, inputs.shape, self.name, need_known=False)
        super()._check_inputs(inputs)

    def call(self, inputs):
        axes = tuple(a % inputs.ndim for a in (self.axis if isinstance(self.axis, list)
                                               else [self.axis]))
        x = inputs.astype(_stat_dtype(inputs.dtype))
        inv_norm = jax.lax.rsqrt(jnp.sum(jnp.square(x), axis=axes, keepdims=True))
        return (x * jnp.minimum(inv_norm, 1e12)).astype(self.compute_dtype)

    def compute_output_shape(self, input_shape):
        return input_shape

    def compute_output_dtype(self, input_dtype):
        return self.compute_dtype

    def get_config(self):
        return {**super().get_config(), "axis": self.axis}


class RMSNormalization(Layer):
    """``x * rsqrt(mean(x**2, axis) + epsilon) * scale``; weight ``scale`` of the shape of
    ``axis`` (an int or a list). Computed in float32 under half-precision policies.

    >>> import kgraph as kg
    >>> kg.layers.RMSNormalization()(kg.Input(shape=(3,))).shape
    (None, 3)
    """

    def __init__(self, axis=-1, epsilon=1e-6, **kwargs):
        super().__init__(**kwargs)
        self.axis = _standardize_axes(axis, "RMSNormalization")
        self.epsilon = epsilon

    def build(self, input_shape):
        self._axes = _resolve_axes(self.axis, input_shape, self.name)
        shape = tuple(input_shape[a] for a in self._axes)
        self.scale = self.add_weight(shape, "ones", name="scale")
        self.input_spec = _axes_spec(self.axis, input_shape, self._axes)
        self.built = True

    def call(self, inputs):
        x = inputs.astype(_stat_dtype(inputs.dtype))
        axes = tuple(sorted(a % x.ndim for a in (self.axis if isinstance(self.axis, list)
                                                 else [self.axis])))
        scale = jnp.reshape(self.scale.astype(x.dtype), _broadcast_shape(x.ndim, axes, x.shape))
        rrms = jax.lax.rsqrt(jnp.mean(jnp.square(x), axis=axes, keepdims=True) + self.epsilon)
        return (x * rrms * scale).astype(self.compute_dtype)

    def compute_output_shape(self, input_shape):
        return input_shape

    def compute_output_dtype(self, input_dtype):
        return self.compute_dtype

    def get_config(self):
        return {**super().get_config(), "axis": self.axis, "epsilon": self.epsilon}
