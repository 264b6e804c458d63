"""Merge layers: values, broadcasting, argument errors and Keras 3 mask semantics."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import compiler
import kgraph as kg
from kgraph import layers
from tests.support.helpers import MaskedSum


def _f(rng, *shape):
    return rng.normal(size=shape).astype(np.float32)


@pytest.mark.parametrize("layer_cls, reference", [
    (layers.Add, lambda xs: xs[0] + xs[1] + xs[2]),
    (layers.Multiply, lambda xs: xs[0] * xs[1] * xs[2]),
    (layers.Average, lambda xs: (xs[0] + xs[1] + xs[2]) / 3),
    (layers.Maximum, lambda xs: np.maximum(np.maximum(xs[0], xs[1]), xs[2])),
    (layers.Minimum, lambda xs: np.minimum(np.minimum(xs[0], xs[1]), xs[2])),
], ids=["add", "multiply", "average", "maximum", "minimum"])
def test_elementwise_merges_match_numpy_with_broadcasting(layer_cls, reference, rng):
    xs = [_f(rng, 2, 3, 4), _f(rng, 2, 1, 4), _f(rng, 2, 3, 1)]
    layer = layer_cls()
    symbols = [kg.Input(shape=x.shape[1:]) for x in xs]
    out = layer(symbols)
    assert out.shape == (None, 3, 4)
    np.testing.assert_allclose(layer(xs), reference(xs), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(kg.Model(symbols, out)(xs), reference(xs), rtol=1e-6, atol=1e-6)


def test_subtract_and_lower_rank_inputs_get_axes_after_the_batch_axis(rng):
    a, b = _f(rng, 2, 3, 4), _f(rng, 2, 4)
    out = layers.Subtract()([a, b])
    np.testing.assert_allclose(out, a - b[:, None, :], rtol=1e-6)
    # Keras aligns the batch axis (NumPy would align (2, 4) with the last two axes).
    c = _f(rng, 4, 3)
    symbolic = layers.Add()([kg.Input(shape=(4, 3)), kg.Input(shape=(3,))])
    assert symbolic.shape == (None, 4, 3)
    np.testing.assert_allclose(layers.Add()([c[None], c[:1, :]]), c[None] + c[:1, None, :])


def test_merge_argument_errors_name_the_layer():
    with pytest.raises(ValueError, match=r'"subtract".*exactly 2 inputs'):
        layers.Subtract()([kg.Input(shape=(3,))] * 3)
    with pytest.raises(ValueError, match=r'"add".*should be called on a list of inputs.*'
                       r"Received: input_shape=\(None, 3\)"):
        layers.Add()(kg.Input(shape=(3,)))
    with pytest.raises(ValueError, match=r'"add_1".*incompatible shapes'):
        layers.Add()([kg.Input(shape=(3,)), kg.Input(shape=(4,))])
    with pytest.raises(ValueError, match=r'"dot".*axis values 3.*!= 4'):
        layers.Dot(axes=1)([kg.Input(shape=(3,)), kg.Input(shape=(4,))])
    with pytest.raises(TypeError, match="Invalid type for argument `axes`"):
        layers.Dot(axes="1")
    with pytest.raises(ValueError, match="two elements"):
        layers.Dot(axes=(1, 2, 3))
    with pytest.raises(ValueError, match="axis 0"):
        layers.Dot(axes=0)([kg.Input(shape=(3,)), kg.Input(shape=(3,))])


def test_average_of_integers_is_float():
    a = np.array([[1, 2]], np.int32)
    b = np.array([[2, 2]], np.int32)
    out = layers.Average()([a, b])
    assert out.dtype == jnp.float32
    np.testing.assert_allclose(out, [[1.5, 2.0]])


# ------------------------------------------------------------------------ Dot
@pytest.mark.parametrize("axes, shapes, reference", [
    (1, [(2, 4), (2, 4)], lambda x, y: np.sum(x * y, axis=1, keepdims=True)),
    (-1, [(2, 3, 4), (2, 5, 4)], lambda x, y: np.einsum("bik,bjk->bij", x, y)),
    ((1, 2), [(2, 3, 5), (2, 6, 3)], lambda x, y: np.einsum("bki,bjk->bij", x, y)),
    ((1, 1), [(2, 3), (2, 3, 6)], lambda x, y: np.einsum("bk,bkj->bj", x, y)),
    ((2, 1), [(2, 5, 3), (2, 3)], lambda x, y: np.einsum("bik,bk->bi", x, y)),
], ids=["rank2", "last_axes", "pair", "rank2_rank3", "rank3_rank2"])
def test_dot_matches_batched_einsum(axes, shapes, reference, rng):
    x, y = _f(rng, *shapes[0]), _f(rng, *shapes[1])
    layer = layers.Dot(axes=axes)
    expected = reference(x, y)
    symbolic = layer([kg.Input(shape=shapes[0][1:]), kg.Input(shape=shapes[1][1:])])
    assert symbolic.shape == (None,) + expected.shape[1:]
    np.testing.assert_allclose(layer([x, y]), expected, rtol=1e-5, atol=1e-5)


def test_dot_normalize_gives_cosine_similarity(rng):
    x, y = _f(rng, 3, 4), _f(rng, 3, 4)
    out = layers.Dot(axes=1, normalize=True)([x, y])
    cosine = np.sum(x * y, 1) / (np.linalg.norm(x, axis=1) * np.linalg.norm(y, axis=1))
    np.testing.assert_allclose(out[:, 0], cosine, rtol=1e-5, atol=1e-6)
    config = layers.Dot(axes=(1, 2), normalize=True).get_config()
    assert config["axes"] == [1, 2] and config["normalize"] is True


# ------------------------------------------------------------------------ masks
def _masked_pair():
    a, b = kg.Input(shape=(4,), dtype="int32"), kg.Input(shape=(4,), dtype="int32")
    emb = layers.Embedding(5, 2, embeddings_initializer="ones", mask_zero=True)
    return a, b, emb(a), emb(b)


def test_merge_mask_is_the_or_of_input_masks():
    a, b, ea, eb = _masked_pair()
    model = kg.Model([a, b], MaskedSum()(layers.Add()([ea, eb])))
    ta = np.array([[1, 0, 0, 2]], np.int32)
    tb = np.array([[0, 0, 3, 4]], np.int32)
    # every step is 1 + 1 (index 0 embeds to ones too); steps 0, 2, 3 are unmasked in at
    # least one input, so 3 of the 4 steps count
    expected = np.array([[6.0, 6.0]])
    np.testing.assert_allclose(model([ta, tb]), expected)
    out, _ = jax.jit(compiler.compile(model).apply)(*compiler.variables(model), [ta, tb])
    np.testing.assert_allclose(out, expected)
    m1, m2 = np.array([[True, False]]), np.array([[False, False]])
    np.testing.assert_array_equal(layers.Add().compute_mask([None, None], [m1, m2]), m1 | m2)
    assert layers.Add().compute_mask([None, None], [m1, None]) is None
    assert layers.Add().compute_mask([None, None], None) is None


def test_one_unmasked_input_drops_the_mask():
    a, b, ea, _ = _masked_pair()
    plain = kg.Input(shape=(4, 2))
    model = kg.Model([a, plain], MaskedSum()(layers.Add()([ea, plain])))
    ta = np.array([[1, 0, 0, 2]], np.int32)
    ones = np.ones((1, 4, 2), np.float32)
    np.testing.assert_allclose(model([ta, ones]), [[8.0, 8.0]])  # all 4 steps of 1 + 1 count


def test_multiply_maximum_minimum_ignore_masked_values():
    x = np.array([[[2.0], [3.0], [5.0]]], np.float32)
    y = np.array([[[7.0], [-1.0], [4.0]]], np.float32)
    mx = np.array([[True, False, True]])
    my = np.array([[True, True, False]])
    # Multiply: masked entries count as 1; entries masked everywhere would be 0.
    np.testing.assert_allclose(layers.Multiply()([x, y], mask=[mx, my]),
                               [[[14.0], [-1.0], [5.0]]])
    np.testing.assert_allclose(layers.Multiply()([x, y], mask=[mx, None]),
                               [[[14.0], [-1.0], [20.0]]])
    np.testing.assert_allclose(layers.Maximum()([x, y], mask=[mx, my]), [[[7.0], [-1.0], [5.0]]])
    np.testing.assert_allclose(layers.Minimum()([x, y], mask=[mx, my]), [[[2.0], [-1.0], [5.0]]])
    np.testing.assert_allclose(layers.Maximum()([x, y]), np.maximum(x, y))


def test_concatenate_mask_keras_semantics():
    x = np.zeros((1, 3, 2), np.float32)
    y = np.zeros((1, 3, 4), np.float32)
    mx = np.array([[True, False, False]])
    my = np.array([[False, False, True]])
    last = layers.Concatenate()
    np.testing.assert_array_equal(last.compute_mask([x, y], [mx, my]), [[True, False, True]])
    np.testing.assert_array_equal(last.compute_mask([x, y], [mx, None]), [[True, True, True]])
    assert last.compute_mask([x, y], [None, None]) is None
    time = layers.Concatenate(axis=1)
    z = np.zeros((1, 2, 2), np.float32)
    np.testing.assert_array_equal(time.compute_mask([x, z], [mx, None]),
                                  [[True, False, False, True, True]])
    a, b, ea, eb = _masked_pair()
    model = kg.Model([a, b], MaskedSum()(layers.Concatenate(axis=1)([ea, eb])))
    ta = np.array([[1, 0, 0, 2]], np.int32)
    tb = np.array([[0, 0, 3, 0]], np.int32)
    np.testing.assert_allclose(model([ta, tb]), [[3.0, 3.0]])


def test_dot_has_no_output_mask():
    a, b, ea, eb = _masked_pair()
    model = kg.Model([a, b], MaskedSum()(layers.Dot(axes=2)([ea, eb])))
    ta = np.array([[1, 0, 0, 2]], np.int32)
    np.testing.assert_allclose(model([ta, ta]), np.full((1, 4), 2.0 * 4))
