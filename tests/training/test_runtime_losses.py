"""kgraph.losses.losses: Keras reduction with weights and masks, padding invariance, checks, get."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from kgraph.losses import losses
from kgraph.losses.weighting import reduce_weighted

B, T, C = 5, 3, 4


def _inputs(rng, name, batch=B, time=None):
    """``(y_true, y_pred)`` that suit the loss ``name`` (``time`` adds a sequence axis)."""
    lead = (batch,) if time is None else (batch, time)
    logits = rng.normal(size=lead + (C,)).astype(np.float32)
    probs = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    labels = rng.integers(0, C, lead)
    binary = rng.integers(0, 2, lead + (C,)).astype(np.float32)
    return {
        "sparse_categorical_crossentropy": (labels, probs),
        "categorical_crossentropy": (np.eye(C, dtype=np.float32)[labels], probs),
        "categorical_hinge": (np.eye(C, dtype=np.float32)[labels], logits),
        "binary_crossentropy": (binary, 1 / (1 + np.exp(-logits))),
        "binary_focal_crossentropy": (binary, 1 / (1 + np.exp(-logits))),
        "hinge": (binary, logits), "squared_hinge": (binary, logits),
        "kl_divergence": (probs[::-1].copy(), probs),
        "poisson": (rng.uniform(0, 2, lead + (C,)).astype(np.float32), probs),
        "mean_squared_logarithmic_error": (rng.uniform(0, 2, lead + (C,)).astype(np.float32),
                                           probs),
    }.get(name, (rng.normal(size=lead + (C,)).astype(np.float32), logits))


# The elementwise family (the structured losses, CTC, Dice, Circle ..., take other shapes:
# tests/keras_compat/test_keras_oracle_more_losses.py).
ALL_NAMES = sorted({cls().name if cls is not losses.Huber else "huber_loss"
                    for cls in losses.BY_NAME.values() if cls not in losses._MORE})


def _pad(array, rows):
    return np.concatenate([array, np.zeros((rows,) + array.shape[1:], array.dtype)])


# ----------------------------------------------------------------- reduction
def test_reduce_weighted_is_keras_sum_over_batch_size():
    values = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32)
    weight = np.array([1.0, 0.5, 0.0], np.float32)
    np.testing.assert_allclose(reduce_weighted(values), values.mean())
    # Sample weights: weighted sum over the number of entries (not the sum of weights).
    np.testing.assert_allclose(reduce_weighted(values, weight),
                               (values * weight[:, None]).sum() / 6)
    # A mask: the mean over valid entries; (batch,) masks cover whole rows.
    np.testing.assert_allclose(reduce_weighted(values, mask=np.array([1, 1, 0])), 2.5)
    entry_mask = np.array([[1, 0], [1, 1], [0, 0]])
    np.testing.assert_allclose(reduce_weighted(values, weight, entry_mask),
                               (1.0 + 1.5 + 2.0) / 3)


def test_fully_masked_batch_gives_zero_value_and_gradient():
    loss = losses.SparseCategoricalCrossentropy(from_logits=True)
    labels, logits = np.array([0, 1]), jnp.ones((2, 3))
    mask = jnp.zeros((2,))
    assert float(loss(labels, logits, mask=mask)) == 0.0
    grads = jax.grad(lambda z: loss(labels, z, mask=mask))(logits)
    assert np.all(np.asarray(grads) == 0.0)


def test_weights_broadcast_with_trailing_axes_and_bad_shapes_raise():
    values = jnp.ones((4, 3))
    np.testing.assert_allclose(reduce_weighted(values, jnp.array([1.0, 1.0, 0.0, 0.0])), 0.5)
    np.testing.assert_allclose(reduce_weighted(values, jnp.ones((4, 3, 1))), 1.0)
    with pytest.raises(ValueError, match=r"sample_weight of shape \(3,\).*values of shape "
                                         r"\(4, 3\)"):
        reduce_weighted(values, jnp.ones((3,)))
    with pytest.raises(ValueError, match="mask of shape"):
        reduce_weighted(values, mask=jnp.ones((4, 3, 2)))


@pytest.mark.parametrize("temporal", [False, True])
def test_reduction_is_padding_invariant(temporal, rng):
    """Given the same per-sample values, rows appended with mask 0 (and weight 0) change
    the reduced value only by float rounding, eagerly and in a jitted step (whatever the
    padding rows hold, even NaN)."""
    shape = (B, T) if temporal else (B,)
    values = rng.normal(size=shape).astype(np.float32)
    weight = rng.uniform(0.5, 2.0, B).astype(np.float32)
    mask = (rng.uniform(size=shape) > 0.3).astype(np.float32)
    mask[0] = 1.0
    padded = [_pad(a, 11) for a in (values, weight, mask)]
    padded[0][B:] = np.nan  # whatever the padding rows hold
    for reduce in (reduce_weighted, jax.jit(reduce_weighted)):
        for w, pw in ((None, None), (weight, padded[1])):
            expected = reduce(values, w, mask)
            np.testing.assert_allclose(reduce(padded[0], pw, padded[2]), expected, rtol=1e-6)
            ones = np.ones(shape, np.float32)  # a batch without padding: all rows valid
            np.testing.assert_allclose(reduce(padded[0], pw, _pad(ones, 11)),
                                       reduce(values, w, ones), rtol=1e-6)


@pytest.mark.parametrize("name", ALL_NAMES)
@pytest.mark.parametrize("temporal", [False, True])
def test_padded_batch_gives_the_unpadded_value(name, temporal, rng):
    """A padded batch in a jitted step gives the unpadded batch's value. The reduction is
    exact (above); XLA may still sum a row's entries in another order for another batch
    size, so the per-sample values may differ in their last bit."""
    loss = losses.as_loss(name)
    y_true, y_pred = _inputs(rng, name, time=T if temporal else None)
    weight = rng.uniform(0.5, 2.0, B).astype(np.float32) if temporal else None
    mask = (rng.uniform(size=(B, T)) > 0.3).astype(np.float32) if temporal else np.ones(B)
    padded = [_pad(a, 3) for a in (y_true, y_pred, mask)]
    padded_weight = None if weight is None else _pad(weight, 3)

    @jax.jit
    def plain_and_padded(plain, padded, w, padded_w):
        return (loss(plain[0], plain[1], sample_weight=w, mask=plain[2]),
                loss(padded[0], padded[1], sample_weight=padded_w, mask=padded[2]))

    expected, got = plain_and_padded((y_true, y_pred, mask), padded, weight, padded_weight)
    assert np.isfinite(float(got))
    np.testing.assert_allclose(float(got), float(expected), rtol=1e-6, atol=0, err_msg=name)


def test_padding_matches_the_plain_mean_without_mask(rng):
    loss = losses.MeanSquaredError()
    y_true, y_pred = _inputs(rng, "mean_squared_error")
    mask = _pad(np.ones((B,), np.float32), 4)
    np.testing.assert_allclose(loss(_pad(y_true, 4), _pad(y_pred, 4), mask=mask),
                               ((y_true - y_pred) ** 2).mean(), rtol=1e-6)


# -------------------------------------------------------------------- values
@pytest.mark.parametrize("name", ALL_NAMES)
def test_call_gives_one_value_per_sample_and_differentiates(name, rng):
    loss = losses.as_loss(name)
    y_true, y_pred = _inputs(rng, name)
    values = loss.call(jnp.asarray(y_true), jnp.asarray(y_pred))
    assert values.shape == (B,)
    value, grads = jax.jit(jax.value_and_grad(lambda p: loss(y_true, p)))(jnp.asarray(y_pred))
    np.testing.assert_allclose(value, np.mean(values), rtol=1e-5, atol=1e-7)
    assert np.all(np.isfinite(np.asarray(grads)))


def test_sparse_crossentropy_ignore_class_masks_entries(rng):
    loss = losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=-1)
    logits = rng.normal(size=(4, C)).astype(np.float32)
    labels = np.array([0, -1, 2, -1])
    values = loss.call(jnp.asarray(labels), jnp.asarray(logits))
    assert float(values[1]) == 0.0 and float(values[3]) == 0.0
    plain = losses.SparseCategoricalCrossentropy(from_logits=True)
    np.testing.assert_allclose(loss(labels, logits), plain(labels[[0, 2]], logits[[0, 2]]),
                               rtol=1e-6)
    assert float(loss(np.array([-1, -1]), logits[:2])) == 0.0


def test_keras_style_subclass_gets_float32_inputs():
    seen = {}

    class Squared(losses.Loss):
        def call(self, y_true, y_pred):
            seen["dtypes"] = (y_true.dtype, y_pred.dtype)
            return jnp.square(y_true - y_pred).mean(axis=-1)

    loss = Squared()
    assert loss.name == "squared"
    value = loss(np.ones((2, 3), np.float64), np.zeros((2, 3), np.float16))
    assert seen["dtypes"] == (jnp.float32, jnp.float32) and float(value) == 1.0


def test_kerass_reductions_are_accepted_and_others_refused():
    assert losses.MeanSquaredError(reduction="mean").reduction == "mean"
    assert losses.MeanSquaredError(reduction="sum").reduction == "sum"
    with pytest.raises(ValueError, match="reduction='max'"):
        losses.MeanSquaredError(reduction="max")


# -------------------------------------------------------------------- checks
def _spec(*shape, dtype=jnp.float32):
    return jax.ShapeDtypeStruct(shape, dtype)


def test_check_accepts_what_keras_accepts():
    losses.as_loss("sparse_categorical_crossentropy").check(_spec(8, 1, dtype=jnp.int32),
                                                        _spec(8, 10))
    losses.as_loss("sparse_categorical_crossentropy").check(_spec(8, 5), _spec(8, 5, 10))
    losses.as_loss("mse").check(_spec(8), _spec(8, 1))
    losses.as_loss("binary_crossentropy").check(_spec(8), _spec(8, 1))
    losses.as_loss("binary_crossentropy").check(_spec(8, 3, dtype=jnp.int32), _spec(8, 3))
    losses.as_loss("categorical_crossentropy").check(_spec(8, 10), _spec(8, 10, dtype=jnp.bfloat16))
    losses.as_loss("mse").check(np.zeros((8, 3)), [[0.0] * 3] * 8)


def test_sparse_crossentropy_given_one_hot_labels_suggests_categorical():
    loss = losses.SparseCategoricalCrossentropy()
    with pytest.raises(ValueError, match=r"sparse_categorical_crossentropy: expected integer "
                                         r"class labels y_true of shape \(8,\).*received "
                                         r"y_true with shape \(8, 10\).*did you mean "
                                         r"categorical_crossentropy\?"):
        loss.check(_spec(8, 10), _spec(8, 10))
    with pytest.raises(ValueError, match="did you mean categorical_crossentropy"):
        loss(np.eye(3, dtype=np.float32), np.full((3, 3), 1 / 3, np.float32))


@pytest.mark.parametrize("labels_shape", [(8,), (8, 1)])
def test_categorical_crossentropy_given_integer_labels_suggests_sparse(labels_shape):
    with pytest.raises(ValueError, match=r"categorical_crossentropy: expected one-hot labels "
                                         r"y_true of shape \(8, 10\).*did you mean "
                                         r"sparse_categorical_crossentropy\?"):
        losses.as_loss("categorical_crossentropy").check(_spec(*labels_shape, dtype=jnp.int32),
                                                     _spec(8, 10))


def test_mismatched_batch_and_shapes_raise_naming_both():
    with pytest.raises(ValueError, match=r"mean_squared_error: .*y_true with shape \(16,\).*"
                                         r"y_pred with shape \(8, 1\).*batch dimensions "
                                         r"differ: 16 targets for 8 predictions"):
        losses.as_loss("mse").check(_spec(16), _spec(8, 1))
    with pytest.raises(ValueError, match="binary_crossentropy: expected y_true of shape"):
        losses.as_loss("binary_crossentropy").check(_spec(8, 2), _spec(8, 3))
    with pytest.raises(ValueError, match="sparse_categorical_crossentropy.*batch dimensions"):
        losses.as_loss("sparse_categorical_crossentropy").check(_spec(4), _spec(8, 3))


def test_non_numeric_targets_raise():
    with pytest.raises(ValueError, match=r"mean_absolute_error: y_true must be a numeric array; "
                                         r"received y_true with shape \(2,\), dtype"):
        losses.as_loss("mae").check(np.array(["a", "b"]), _spec(2, 1))


# ----------------------------------------------------------------------- get
@pytest.mark.parametrize("name, cls", [
    ("mse", losses.MeanSquaredError), ("mean_squared_error", losses.MeanSquaredError),
    ("mae", losses.MeanAbsoluteError), ("mape", losses.MeanAbsolutePercentageError),
    ("msle", losses.MeanSquaredLogarithmicError), ("huber", losses.Huber),
    ("huber_loss", losses.Huber), ("log_cosh", losses.LogCosh), ("logcosh", losses.LogCosh),
    ("kld", losses.KLDivergence), ("kl_divergence", losses.KLDivergence),
    ("cosine_similarity", losses.CosineSimilarity), ("poisson", losses.Poisson),
    ("hinge", losses.Hinge), ("squared_hinge", losses.SquaredHinge),
    ("categorical_hinge", losses.CategoricalHinge), ("bce", losses.BinaryCrossentropy),
    ("binary_focal_crossentropy", losses.BinaryFocalCrossentropy),
    ("categorical_crossentropy", losses.CategoricalCrossentropy),
    ("sparse_categorical_crossentropy", losses.SparseCategoricalCrossentropy),
    ("CategoricalCrossentropy", losses.CategoricalCrossentropy),
])
def test_get_resolves_keras_names_and_aliases(name, cls):
    assert type(losses.as_loss(name)) is cls


def test_get_passes_losses_through_and_wraps_callables():
    loss = losses.Huber(delta=2.0)
    assert losses.as_loss(loss) is loss
    assert type(losses.as_loss(losses.Poisson)) is losses.Poisson

    def my_l1(y_true, y_pred):
        return jnp.abs(y_true - y_pred).sum(axis=-1)

    wrapped = losses.as_loss(my_l1)
    assert isinstance(wrapped, losses.Loss) and wrapped.name == "my_l1"
    assert float(wrapped(np.zeros((2,)), np.ones((2, 1)))) == 1.0  # Keras's rank alignment


def test_get_rejects_unknown_names_listing_the_known_ones():
    with pytest.raises(ValueError, match=r"Unknown loss 'foo'. Expected one of \[.*'mse'"):
        losses.as_loss("foo")
    with pytest.raises(ValueError, match="A loss must be a name"):
        losses.as_loss(3)


@pytest.mark.parametrize("loss", [
    losses.MeanSquaredError(), losses.Huber(delta=0.3), losses.CosineSimilarity(axis=1),
    losses.CategoricalCrossentropy(from_logits=True, label_smoothing=0.2, axis=1),
    losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=0),
    losses.BinaryCrossentropy(label_smoothing=0.1, name="bce_smooth"),
    losses.BinaryFocalCrossentropy(apply_class_balancing=True, gamma=3.0),
])
def test_config_round_trip(loss):
    config = loss.get_config()
    clone = type(loss).from_config(config)
    assert clone.get_config() == config
    assert losses.as_loss({"class_name": type(loss).__name__, "config": config}).get_config() == config
