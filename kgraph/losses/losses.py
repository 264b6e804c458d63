"""Keras losses: ``loss(y_true, y_pred, sample_weight=None, mask=None) -> scalar``.

Every loss has Keras 3's name, constructor arguments and numbers. ``call`` gives the
unreduced values (usually of shape ``y_pred.shape[:-1]``); calling the loss reduces them
as Keras's ``"sum_over_batch_size"`` does, with ``mask`` playing the part of
``y_pred._keras_mask``: masked-out entries weigh 0 and the sum is divided by the number
of valid entries. So rows appended with mask 0 (padding) give the unpadded batch's value,
and a fully masked batch gives 0. ``check`` validates shapes and dtypes before tracing.

>>> import jax.numpy as jnp
>>> loss = SparseCategoricalCrossentropy(from_logits=True)
>>> logits = jnp.array([[2.0, 0.0], [0.0, 2.0], [5.0, 5.0]])
>>> labels = jnp.array([0, 1, 0])
>>> loss.call(labels, logits).shape
(3,)
>>> padded = loss(labels, logits, mask=jnp.array([1, 1, 0]))
>>> round(float(padded), 6) == round(float(loss(labels[:2], logits[:2])), 6)
True
>>> as_loss("mse").name
'mean_squared_error'
"""

from __future__ import annotations

import inspect

import jax
import jax.numpy as jnp

from kgraph import config, dtype_policies
from kgraph.base.naming import to_snake_case
from kgraph.interpreter.masking import get_keras_mask
from kgraph.losses import checks as loss_checks, functions as fns
from kgraph.losses.weighting import (check_reduction, combine_masks, reduce_weighted,
                                     squeeze_or_expand_to_same_rank)

__all__ = [
    "BinaryCrossentropy", "BinaryFocalCrossentropy", "CTC", "CategoricalCrossentropy",
    "CategoricalFocalCrossentropy", "CategoricalGeneralizedCrossEntropy", "Circle", "Dice",
    "Tversky",
    "CategoricalHinge", "CosineSimilarity", "Hinge", "Huber", "KLDivergence", "LogCosh",
    "Loss", "LossFunctionWrapper", "MeanAbsoluteError", "MeanAbsolutePercentageError",
    "MeanSquaredError", "MeanSquaredLogarithmicError", "Poisson",
    "SparseCategoricalCrossentropy", "SquaredHinge", "as_loss", "reduce_weighted",
]

snake_case = to_snake_case  # kept for code that imports it from here


class Loss:
    """Base class: subclass it and implement ``call(y_true, y_pred) -> values``, as in Keras.

    ``__call__`` converts ``y_pred`` (and non-integer ``y_true``) to float32, calls
    ``call`` and reduces with ``sample_weight`` and ``mask`` (see ``reduce_weighted``).

    >>> import jax.numpy as jnp
    >>> class Absolute(Loss):
    ...     def call(self, y_true, y_pred):
    ...         return jnp.abs(y_true - y_pred).mean(axis=-1)
    >>> float(Absolute()(jnp.zeros((2, 3)), jnp.ones((2, 3)), sample_weight=jnp.array([1, 0])))
    0.5
    """

    def __init__(self, name=None, reduction="sum_over_batch_size", dtype=None):
        self.name = name or to_snake_case(type(self).__name__)
        self.reduction = check_reduction(reduction)
        self._dtype = dtype_policies.get(dtype or config.floatx()).compute_dtype

    @property
    def dtype(self) -> str:
        """The dtype of the loss's computations (Keras's: ``floatx()`` by default)."""
        return self._dtype

    def call(self, y_true, y_pred):
        """The unreduced loss values."""
        raise NotImplementedError(f"{type(self).__name__} must implement call(y_true, y_pred).")

    def call_with_mask(self, y_true, y_pred):
        """``(values, mask)``: ``call``'s values and the loss's own mask (None: all valid)."""
        return self.call(y_true, y_pred), None

    def __call__(self, y_true, y_pred, sample_weight=None, mask=None):
        """The reduced loss (a scalar); ``mask`` (default: the Keras mask attached to
        ``y_pred``, ``_keras_mask``) leaves entries out, as Keras's."""
        if mask is None:
            mask = get_keras_mask(y_pred)
        values, own_mask = self.unreduced(y_true, y_pred)
        return reduce_weighted(values, sample_weight, combine_masks(mask, own_mask, values),
                               reduction=self.reduction)

    def unreduced(self, y_true, y_pred):
        """``(values, mask)``: what ``__call__`` reduces (inputs converted and checked,
        float values) and the loss's own mask."""
        y_true, y_pred = _as_inputs(y_true, y_pred, self.dtype)
        if not isinstance(y_pred, (list, tuple, dict)):  # (a structure: the call's to check)
            self.check(y_true, y_pred)
        values, own_mask = self.call_with_mask(y_true, y_pred)
        return jnp.asarray(values, self.dtype), own_mask

    def check(self, y_true, y_pred) -> None:
        """Raise a ValueError if ``y_true``/``y_pred`` (shapes and dtypes) can't be used."""
        loss_checks.check_numeric(self.name, y_true, y_pred)

    def get_config(self) -> dict:
        return {"name": self.name, "reduction": self.reduction}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items()
                         if k not in ("reduction", "fn"))
        return f"{type(self).__name__}({args})"


def _as_inputs(y_true, y_pred, dtype):
    """Predictions in the loss's dtype; targets too unless they are integer labels (each
    array of a structure, for a loss placed on several outputs)."""
    def target(value):
        value = jnp.asarray(value)
        return value if jnp.issubdtype(value.dtype, jnp.integer) else value.astype(dtype)

    return (jax.tree_util.tree_map(target, y_true),
            jax.tree_util.tree_map(lambda value: jnp.asarray(value, dtype), y_pred))


class LossFunctionWrapper(Loss):
    """A loss from ``fn(y_true, y_pred, **kwargs) -> values`` (what ``as_loss`` makes of a
    plain function; ``name`` defaults to the function's name).

    >>> import jax.numpy as jnp
    >>> def l1(y_true, y_pred):
    ...     return jnp.abs(y_true - y_pred).sum(axis=-1)
    >>> loss = as_loss(l1)
    >>> loss.name, float(loss(jnp.zeros((4, 2)), jnp.ones((4, 2))))
    ('l1', 2.0)
    """

    check_fn = staticmethod(loss_checks.check_numeric)

    def __init__(self, fn, reduction="sum_over_batch_size", name=None, dtype=None, **kwargs):
        super().__init__(name=name or _function_name(fn), reduction=reduction, dtype=dtype)
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true, y_pred):
        if isinstance(y_pred, (list, tuple, dict)):  # a loss placed on several outputs
            (trues, true_def), (preds, pred_def) = (jax.tree_util.tree_flatten(y_true),
                                                    jax.tree_util.tree_flatten(y_pred))
            pairs = [squeeze_or_expand_to_same_rank(jnp.asarray(t), jnp.asarray(p))
                     for t, p in zip(trues, preds)]
            return self.fn(jax.tree_util.tree_unflatten(true_def, [t for t, _ in pairs]),
                           jax.tree_util.tree_unflatten(pred_def, [p for _, p in pairs]),
                           **self._fn_kwargs)
        y_true, y_pred = squeeze_or_expand_to_same_rank(jnp.asarray(y_true),
                                                        jnp.asarray(y_pred))
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def check(self, y_true, y_pred) -> None:
        self.check_fn(self.name, y_true, y_pred)

    def get_config(self) -> dict:
        config = super().get_config()
        if type(self) is LossFunctionWrapper:
            config["fn"] = self.fn
        return {**config, **self._fn_kwargs}


def _function_name(fn) -> str:
    name = getattr(fn, "__name__", None)
    return name if name else to_snake_case(type(fn).__name__)


class _Elementwise(LossFunctionWrapper):
    """A Keras loss function with Keras's constructor ``(reduction, name)``."""

    fn = None
    default_name = None
    check_fn = staticmethod(loss_checks.check_elementwise)

    def __init__(self, reduction="sum_over_batch_size", name=None, dtype=None, **kwargs):
        super().__init__(type(self).fn, reduction=reduction, name=name or self.default_name,
                         dtype=dtype, **kwargs)


class MeanSquaredError(_Elementwise):
    """``mean(square(y_true - y_pred), axis=-1)``; names "mse", "mean_squared_error"."""

    fn, default_name = staticmethod(fns.mean_squared_error), "mean_squared_error"


class MeanAbsoluteError(_Elementwise):
    """``mean(abs(y_true - y_pred), axis=-1)``; names "mae", "mean_absolute_error"."""

    fn, default_name = staticmethod(fns.mean_absolute_error), "mean_absolute_error"


class MeanAbsolutePercentageError(_Elementwise):
    """``100 * mean(abs((y_true - y_pred) / y_true), axis=-1)``; name "mape"."""

    fn = staticmethod(fns.mean_absolute_percentage_error)
    default_name = "mean_absolute_percentage_error"


class MeanSquaredLogarithmicError(_Elementwise):
    """``mean(square(log(y_pred + 1) - log(y_true + 1)), axis=-1)``; name "msle"."""

    fn = staticmethod(fns.mean_squared_logarithmic_error)
    default_name = "mean_squared_logarithmic_error"


class LogCosh(_Elementwise):
    """``mean(log(cosh(y_pred - y_true)), axis=-1)``; names "log_cosh", "logcosh"."""

    fn, default_name = staticmethod(fns.log_cosh), "log_cosh"


class Hinge(_Elementwise):
    """``mean(maximum(1 - y_true * y_pred, 0), axis=-1)``; 0/1 labels become -1/1."""

    fn, default_name = staticmethod(fns.hinge), "hinge"


class SquaredHinge(_Elementwise):
    """``mean(square(maximum(1 - y_true * y_pred, 0)), axis=-1)``."""

    fn, default_name = staticmethod(fns.squared_hinge), "squared_hinge"


class CategoricalHinge(_Elementwise):
    """``maximum(max((1 - y_true) * y_pred) - sum(y_true * y_pred) + 1, 0)``."""

    fn, default_name = staticmethod(fns.categorical_hinge), "categorical_hinge"


class KLDivergence(_Elementwise):
    """``sum(y_true * log(y_true / y_pred), axis=-1)``; names "kld", "kl_divergence"."""

    fn, default_name = staticmethod(fns.kl_divergence), "kl_divergence"


class Poisson(_Elementwise):
    """``mean(y_pred - y_true * log(y_pred), axis=-1)``."""

    fn, default_name = staticmethod(fns.poisson), "poisson"


class Huber(_Elementwise):
    """Quadratic for errors within ``delta``, linear beyond; Keras's name "huber_loss"."""

    fn, default_name = staticmethod(fns.huber), "huber_loss"

    def __init__(self, delta=1.0, reduction="sum_over_batch_size", name="huber_loss",
                 dtype=None):
        super().__init__(reduction=reduction, dtype=dtype, name=name, delta=delta)
        self.delta = delta


class CosineSimilarity(_Elementwise):
    """Negative cosine similarity along ``axis`` (-1 for identical directions, as Keras)."""

    fn, default_name = staticmethod(fns.cosine_similarity), "cosine_similarity"

    def __init__(self, axis=-1, reduction="sum_over_batch_size", name="cosine_similarity",
                 dtype=None):
        super().__init__(reduction=reduction, dtype=dtype, name=name, axis=axis)
        self.axis = axis


class BinaryCrossentropy(_Elementwise):
    """0/1 labels against probabilities (or logits) of the same shape.

    ``label_smoothing`` squeezes labels towards 0.5, as Keras does.

    >>> import jax.numpy as jnp
    >>> loss = BinaryCrossentropy(from_logits=True)
    >>> round(float(loss(jnp.array([1.0, 0.0]), jnp.array([[0.0], [0.0]]))), 4)  # log(2)
    0.6931
    """

    fn, default_name = staticmethod(fns.binary_crossentropy), "binary_crossentropy"
    check_fn = staticmethod(loss_checks.check_same_shape)

    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1,
                 reduction="sum_over_batch_size", name="binary_crossentropy", dtype=None):
        super().__init__(reduction=reduction, dtype=dtype, name=name, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)
        self.from_logits, self.label_smoothing, self.axis = from_logits, label_smoothing, axis


class BinaryFocalCrossentropy(_Elementwise):
    """Binary crossentropy down-weighting easy examples by ``(1 - p_t) ** gamma``."""

    fn = staticmethod(fns.binary_focal_crossentropy)
    default_name = "binary_focal_crossentropy"
    check_fn = staticmethod(loss_checks.check_same_shape)

    def __init__(self, apply_class_balancing=False, alpha=0.25, gamma=2.0, from_logits=False,
                 label_smoothing=0.0, axis=-1, reduction="sum_over_batch_size",
                 name="binary_focal_crossentropy", dtype=None):
        super().__init__(reduction=reduction, dtype=dtype, name=name,
                         apply_class_balancing=apply_class_balancing, alpha=alpha,
                         gamma=gamma, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)
        self.apply_class_balancing, self.alpha, self.gamma = apply_class_balancing, alpha, gamma
        self.from_logits, self.label_smoothing, self.axis = from_logits, label_smoothing, axis


class CategoricalCrossentropy(_Elementwise):
    """One-hot (or soft) labels against class probabilities (or logits) along ``axis``.

    >>> import jax.numpy as jnp
    >>> loss = CategoricalCrossentropy(label_smoothing=0.2)
    >>> round(float(loss(jnp.array([[0.0, 1.0]]), jnp.array([[0.1, 0.9]]))), 4)
    0.3251
    """

    fn, default_name = staticmethod(fns.categorical_crossentropy), "categorical_crossentropy"
    check_fn = staticmethod(loss_checks.check_categorical)

    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1,
                 reduction="sum_over_batch_size", name="categorical_crossentropy", dtype=None):
        super().__init__(reduction=reduction, dtype=dtype, name=name, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)
        self.from_logits, self.label_smoothing, self.axis = from_logits, label_smoothing, axis


class SparseCategoricalCrossentropy(_Elementwise):
    """Integer labels ``(batch, ...)`` (or ``(batch, ..., 1)``) against class scores.

    Entries labelled ``ignore_class`` are masked out of the mean, as in Keras.
    """

    fn = staticmethod(fns.sparse_categorical_crossentropy)
    default_name = "sparse_categorical_crossentropy"

    def __init__(self, from_logits=False, ignore_class=None, reduction="sum_over_batch_size",
                 axis=-1, name="sparse_categorical_crossentropy", dtype=None):
        super().__init__(reduction=reduction, dtype=dtype, name=name, from_logits=from_logits,
                         ignore_class=ignore_class, axis=axis)
        self.from_logits, self.ignore_class, self.axis = from_logits, ignore_class, axis

    def call(self, y_true, y_pred):
        return self.call_with_mask(y_true, y_pred)[0]

    def call_with_mask(self, y_true, y_pred):
        return fns.sparse_categorical_crossentropy_and_mask(y_true, y_pred, **self._fn_kwargs)

    def check(self, y_true, y_pred) -> None:
        loss_checks.check_sparse(self.name, y_true, y_pred, self.axis)


class CategoricalFocalCrossentropy(_Elementwise):
    """Categorical crossentropy focused on hard examples: ``alpha * (1 - p) ** gamma``."""

    fn = staticmethod(fns.categorical_focal_crossentropy)
    default_name = "categorical_focal_crossentropy"

    def __init__(self, alpha=0.25, gamma=2.0, from_logits=False, label_smoothing=0.0, axis=-1,
                 reduction="sum_over_batch_size", name="categorical_focal_crossentropy",
                 dtype=None):
        super().__init__(reduction=reduction, dtype=dtype, name=name, alpha=alpha, gamma=gamma,
                         from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)
        self.alpha, self.gamma, self.from_logits = alpha, gamma, from_logits
        self.label_smoothing, self.axis = label_smoothing, axis


class CategoricalGeneralizedCrossEntropy(LossFunctionWrapper):
    """``(1 - p_true ** q) / q`` of integer labels, for ``0 < q < 1`` (noisy labels)."""

    def __init__(self, q=0.5, reduction="sum_over_batch_size",
                 name="categorical_generalized_cross_entropy", dtype=None):
        if not 0 < q < 1:
            raise ValueError("q must be in the interval (0, 1)")
        super().__init__(fns.categorical_generalized_cross_entropy, reduction=reduction,
                         dtype=dtype, name=name, q=q)
        self.q = q

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction, "q": self.q}


class _Overlap(LossFunctionWrapper):
    """Dice and Tversky: soft-overlap losses summed over ``axis`` (None: everything)."""

    def call(self, y_true, y_pred):
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction, **self._fn_kwargs}


class Dice(_Overlap):
    """``1 - 2 |y_true * y_pred| / (|y_true| + |y_pred|)``."""

    def __init__(self, reduction="sum_over_batch_size", name="dice", axis=None, dtype=None):
        super().__init__(fns.dice, reduction=reduction, dtype=dtype, name=name, axis=axis)
        self.axis = axis


class Tversky(_Overlap):
    """``1 - TP / (TP + alpha FP + beta FN)``; alpha = beta = 0.5 is Dice."""

    def __init__(self, alpha=0.5, beta=0.5, reduction="sum_over_batch_size", name="tversky",
                 axis=None, dtype=None):
        super().__init__(fns.tversky, reduction=reduction, dtype=dtype, name=name, alpha=alpha,
                         beta=beta, axis=axis)
        self.alpha, self.beta, self.axis = alpha, beta, axis


class Circle(LossFunctionWrapper):
    """The Circle loss of L2-normalised embeddings with integer labels; the mean is over
    the samples with a positive loss, as Keras."""

    def __init__(self, gamma=80.0, margin=0.4, remove_diagonal=True,
                 reduction="sum_over_batch_size", name="circle", dtype=None):
        super().__init__(fns.circle, reduction=reduction, dtype=dtype, name=name, gamma=gamma,
                         margin=margin, remove_diagonal=remove_diagonal)
        self.gamma, self.margin, self.remove_diagonal = gamma, margin, remove_diagonal

    def call_with_mask(self, y_true, y_pred):
        return fns.circle_and_mask(y_true, y_pred, **self._fn_kwargs)

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction, **self._fn_kwargs}


class CTC(LossFunctionWrapper):
    """Connectionist temporal classification: labels ``(batch, max_len)`` padded with 0
    (the blank), logits ``(batch, time, classes)``."""

    def __init__(self, reduction="sum_over_batch_size", name="ctc", dtype=None):
        super().__init__(fns.ctc, reduction=reduction, dtype=dtype, name=name)

    def call(self, y_true, y_pred):
        return fns.ctc(y_true, y_pred)

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction}


_ALIASES = {
    "mse": MeanSquaredError, "mae": MeanAbsoluteError, "mape": MeanAbsolutePercentageError,
    "msle": MeanSquaredLogarithmicError, "huber": Huber, "logcosh": LogCosh,
    "kld": KLDivergence, "kullback_leibler_divergence": KLDivergence,
    "bce": BinaryCrossentropy,
}
_CLASSES = [MeanSquaredError, MeanAbsoluteError, MeanAbsolutePercentageError,
            MeanSquaredLogarithmicError, Huber, LogCosh, CategoricalCrossentropy,
            SparseCategoricalCrossentropy, BinaryCrossentropy, BinaryFocalCrossentropy,
            KLDivergence, CosineSimilarity, Poisson, Hinge, SquaredHinge, CategoricalHinge]
_MORE = [CategoricalFocalCrossentropy, CategoricalGeneralizedCrossEntropy, Dice, Tversky,
         Circle, CTC]
BY_NAME = {**{c.default_name: c for c in _CLASSES},
           **{to_snake_case(c.__name__): c for c in _CLASSES + _MORE}, **_ALIASES}
_BY_CLASS_NAME = {c.__name__: c for c in _CLASSES + _MORE}


def _from_keras(obj):
    """The equivalent of a ``keras.losses`` object (same class name and arguments), else None.

    The arguments come from its config and its function's keyword arguments (Keras leaves
    some, like Huber's ``delta``, out of the config).
    """
    cls = _BY_CLASS_NAME.get(type(obj).__name__)
    if cls is None or not type(obj).__module__.startswith("keras"):
        return None
    config = {**obj.get_config(), **getattr(obj, "_fn_kwargs", {}),
              "dtype": getattr(obj, "dtype", None)}
    accepted = inspect.signature(cls).parameters
    return cls.from_config({k: v for k, v in config.items() if k in accepted})


def as_loss(identifier) -> Loss:
    """A ``Loss`` (what training computes with) from a Keras name or alias, a class name, a Keras config dict, a ``Loss``
    (returned as is), a ``keras.losses`` object (translated by its config) or a plain
    function ``fn(y_true, y_pred) -> values``.

    >>> as_loss("sparse_categorical_crossentropy").from_logits
    False
    >>> as_loss({"class_name": "Huber", "config": {"delta": 2.0}}).delta
    2.0
    """
    if isinstance(identifier, Loss):
        return identifier
    if isinstance(identifier, str):
        cls = BY_NAME.get(identifier) or _BY_CLASS_NAME.get(identifier)
        if cls is None:
            raise ValueError(f"Unknown loss {identifier!r}. Expected one of "
                             f"{sorted(BY_NAME)}, a Loss, or a callable "
                             "fn(y_true, y_pred) -> per-sample values.")
        return cls()
    if isinstance(identifier, dict) and "class_name" in identifier:
        cls = _BY_CLASS_NAME.get(identifier["class_name"])
        if cls is None:
            raise ValueError(f"Unknown loss class {identifier['class_name']!r} in config "
                             f"{identifier}. Expected one of {sorted(_BY_CLASS_NAME)}.")
        return cls.from_config(identifier.get("config") or {})
    if inspect.isclass(identifier) and issubclass(identifier, Loss):
        return identifier()
    translated = _from_keras(identifier)
    if translated is not None:
        return translated
    if callable(identifier):
        return LossFunctionWrapper(identifier)
    raise ValueError(f"A loss must be a name, a Loss or a callable fn(y_true, y_pred); "
                     f"received {identifier!r} of type {type(identifier).__name__}.")
