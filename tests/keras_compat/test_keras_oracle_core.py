"""Keras 3 as the oracle: EinsumDense, Embedding, Dot, Masking, merge masks, and kgraph.ops."""


import numpy as np
import pytest

keras = pytest.importorskip("keras")

import kgraph as kg
from kgraph import layers, ops
from tests.support.helpers import fixed_normal, MaskedMean, read_only


def _f(rng, *shape):
    return rng.normal(size=shape).astype(np.float32)


def _both(kg_layer, keras_layer, *inputs):
    """Build both on ``inputs``, copy Keras's weights in, return both outputs."""
    keras_out = keras_layer(*inputs)
    kg_layer(*inputs)
    assert [w.shape for w in kg_layer.get_weights()] == [
        tuple(w.shape) for w in keras_layer.get_weights()]
    kg_layer.set_weights(keras_layer.get_weights())
    return np.asarray(kg_layer(*inputs)), np.asarray(keras_out)


@pytest.mark.parametrize("equation, output_shape, bias_axes, input_shape", [
    ("ab,bc->ac", 4, "c", (3, 5)),
    ("abc,cde->abde", (None, 2, 3), "de", (2, 4, 5)),
    ("abc,cd->abd", (4, 6), "b", (2, 4, 3)),
    ("...b,bc->...c", 3, None, (2, 4, 5)),
])
def test_einsum_dense_matches_keras(equation, output_shape, bias_axes, input_shape, rng):
    x = _f(rng, *input_shape)
    ours = layers.EinsumDense(equation, output_shape, bias_axes=bias_axes, activation="tanh",
                              bias_initializer="random_normal")
    theirs = keras.layers.EinsumDense(equation, output_shape, bias_axes=bias_axes,
                                      activation="tanh", bias_initializer="random_normal")
    got, want = _both(ours, theirs, x)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    symbolic = (None,) + input_shape[1:]
    ours_shape = ours.compute_output_shape(symbolic)
    theirs_shape = theirs.compute_output_shape(symbolic)
    assert len(ours_shape) == len(theirs_shape) == got.ndim
    # Keras leaves some inferable dimensions unknown; where it knows one, we agree.
    assert all(t is None or t == o for o, t in zip(ours_shape, theirs_shape))
    assert ours_shape[1:] == got.shape[1:]
    assert [w.name for w in ours.weights] == [w.name for w in theirs.weights]


def test_einsum_dense_config_keys_match_keras():
    ours = layers.EinsumDense("ab,bc->ac", 4, bias_axes="c").get_config()
    theirs = keras.layers.EinsumDense("ab,bc->ac", 4, bias_axes="c").get_config()
    wanted = {"equation", "output_shape", "activation", "bias_axes", "kernel_initializer",
              "bias_initializer", "kernel_regularizer", "bias_regularizer",
              "kernel_constraint", "bias_constraint"}
    assert wanted <= set(ours) and wanted <= set(theirs)
    assert list(ours["output_shape"]) == list(theirs["output_shape"])


def test_embedding_matches_keras_values_and_mask(rng):
    tokens = rng.integers(0, 8, size=(3, 5)).astype(np.int32)
    tokens[:, -1] = 0
    ours = layers.Embedding(8, 4, mask_zero=True)
    theirs = keras.layers.Embedding(8, 4, mask_zero=True)
    got, want = _both(ours, theirs, tokens)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    np.testing.assert_array_equal(ours.compute_mask(tokens), theirs.compute_mask(tokens))
    assert ours.weights[0].name == theirs.weights[0].name == "embeddings"
    # float indices are cast to int32 by both
    np.testing.assert_allclose(ours(tokens.astype(np.float32)),
                               theirs(tokens.astype(np.float32)), rtol=1e-6)


def test_masking_matches_keras_values_and_mask(rng):
    data = _f(rng, 2, 5, 3)
    data[0, 1] = 0.0
    data[1, 3:] = 0.0
    data[1, 0, 0] = 0.0  # one zero feature alone does not mask the step
    ours, theirs = layers.Masking(), keras.layers.Masking()
    np.testing.assert_allclose(ours(data), theirs(data))
    np.testing.assert_array_equal(ours.compute_mask(data), theirs.compute_mask(data))


def test_masking_and_embedding_masks_reach_downstream_layers_as_in_keras(rng):
    """Masks made by Embedding(mask_zero) and Masking, merged by Add, weight a mean."""
    tokens = np.array([[2, 0, 5, 0], [0, 1, 1, 3]], np.int32)
    feats = _f(rng, 2, 4, 3)
    feats[0, 1] = 0.0
    feats[1, 0] = 0.0
    emb_theirs = keras.layers.Embedding(6, 3, mask_zero=True)
    emb_ours = layers.Embedding(6, 3, mask_zero=True)
    emb_theirs(tokens)
    emb_ours(tokens)
    emb_ours.set_weights(emb_theirs.get_weights())

    t, f = keras.Input(shape=(4,), dtype="int32"), keras.Input(shape=(4, 3))
    merged = keras.layers.Add()([emb_theirs(t), keras.layers.Masking()(f)])
    keras_model = keras.Model([t, f], keras.layers.GlobalAveragePooling1D()(merged))

    t, f = kg.Input(shape=(4,), dtype="int32"), kg.Input(shape=(4, 3))
    merged = layers.Add()([emb_ours(t), layers.Masking()(f)])
    model = kg.Model([t, f], MaskedMean()(merged))
    np.testing.assert_allclose(model([tokens, feats]), keras_model([tokens, feats]),
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("axes, normalize, shapes", [
    (-1, True, [(3, 4, 5), (3, 2, 5)]),
    ((1, 2), True, [(3, 4, 5), (3, 2, 4)]),
    (1, False, [(3, 6), (3, 6)]),
    ((1, 1), False, [(3, 4), (3, 4, 2)]),
])
def test_dot_matches_keras(axes, normalize, shapes, rng):
    x, y = _f(rng, *shapes[0]), _f(rng, *shapes[1])
    ours = layers.Dot(axes=axes, normalize=normalize)([x, y])
    theirs = keras.layers.Dot(axes=axes, normalize=normalize)([x, y])
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5)
    sym = [(None,) + s[1:] for s in shapes]
    assert layers.Dot(axes=axes).compute_output_shape(sym) == \
        keras.layers.Dot(axes=axes).compute_output_shape(sym)


@pytest.mark.parametrize("name", ["Add", "Subtract", "Multiply", "Average", "Maximum",
                                  "Minimum", "Concatenate"])
def test_merge_compute_mask_matches_keras(name, rng):
    x, y = _f(rng, 2, 3, 4), _f(rng, 2, 3, 4)
    mx = np.array([[True, False, False], [True, True, False]])
    my = np.array([[False, False, True], [True, False, False]])
    for masks in ([mx, my], [mx, None], [None, None]):
        ours = getattr(layers, name)().compute_mask([x, y], masks)
        theirs = getattr(keras.layers, name)().compute_mask([x, y], masks)
        if theirs is None:
            assert ours is None, (name, masks)
        else:
            np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("name", ["Multiply", "Maximum", "Minimum", "Add", "Average"])
def test_masked_merge_values_match_keras(name):
    tokens_a = np.array([[1, 0, 2, 0], [0, 3, 3, 1]], np.int32)
    tokens_b = np.array([[4, 0, 0, 2], [1, 0, 2, 0]], np.int32)
    emb_theirs = keras.layers.Embedding(5, 3, mask_zero=True)
    emb_ours = layers.Embedding(5, 3, mask_zero=True)
    emb_theirs(tokens_a)
    emb_ours(tokens_a)
    emb_ours.set_weights(emb_theirs.get_weights())

    def build(lib, emb):
        a = lib.Input(shape=(4,), dtype="int32")
        b = lib.Input(shape=(4,), dtype="int32")
        return lib.Model([a, b], getattr(lib.layers, name)()([emb(a), emb(b)]))

    ours = build(kg, emb_ours)([tokens_a, tokens_b])
    theirs = build(keras, emb_theirs)([tokens_a, tokens_b])
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-7)


# ------------------------------------------------------------------------ ops
X = fixed_normal(1, 2, 5, 4)
IMG = fixed_normal(2, 2, 6, 6, 3)
K2D = fixed_normal(3, 3, 3, 3, 4)
DEPTH = fixed_normal(4, 3, 3, 3, 2)
PROBS = read_only(np.abs(fixed_normal(5, 2, 5)) + 0.1)
LABELS = read_only(np.array([1, 4], np.int32))
INTS = read_only(np.array([[1, 2, 7], [3, 3, 0]], np.int32))

OPS = [
    ("mean_int", lambda m: m.mean(INTS, axis=-1)),
    ("var", lambda m: m.var(X, axis=1)),
    ("std", lambda m: m.std(X, axis=(1, 2), keepdims=True)),
    ("logsumexp", lambda m: m.logsumexp(X, axis=-1)),
    ("softmax", lambda m: m.softmax(X, axis=1)),
    ("log_softmax", lambda m: m.log_softmax(X)),
    ("gelu", lambda m: m.gelu(X)),
    ("silu", lambda m: m.silu(X)),
    ("hard_sigmoid", lambda m: m.hard_sigmoid(X)),
    ("normalize", lambda m: m.normalize(X, axis=1)),
    ("normalize_l1", lambda m: m.normalize(X, order=1)),
    ("moments", lambda m: m.moments(X, axes=[0, 1])),
    ("conv_same_stride2", lambda m: m.conv(IMG, K2D, strides=2, padding="same")),
    ("conv_dilated", lambda m: m.conv(IMG, K2D, dilation_rate=2)),
    ("conv_channels_first", lambda m: m.conv(np.transpose(IMG, (0, 3, 1, 2)), K2D,
                                             data_format="channels_first")),
    ("depthwise_conv", lambda m: m.depthwise_conv(IMG, DEPTH, padding="same")),
    ("sparse_cce", lambda m: m.sparse_categorical_crossentropy(LABELS, PROBS)),
    ("sparse_cce_logits", lambda m: m.sparse_categorical_crossentropy(LABELS, X[:, :, 0],
                                                                      from_logits=True)),
    ("cce", lambda m: m.categorical_crossentropy(np.eye(5, dtype=np.float32)[LABELS], PROBS)),
    ("bce_logits", lambda m: m.binary_crossentropy((X > 0).astype(np.float32), X,
                                                   from_logits=True)),
    ("top_k", lambda m: m.top_k(X, 2)),
    ("one_hot", lambda m: m.one_hot(INTS, 8)),
    ("take", lambda m: m.take(X, INTS, axis=1)),
    ("argsort", lambda m: m.argsort(X, axis=1)),
    ("argmax", lambda m: m.argmax(X, axis=-1)),
    ("cumsum", lambda m: m.cumsum(X, axis=1)),
    ("einsum", lambda m: m.einsum("bij,bkj->bik", X, X)),
    ("tensordot", lambda m: m.tensordot(X, X[0], axes=([1, 2], [0, 1]))),
    ("clip", lambda m: m.clip(X, -0.5, 0.5)),
    ("round", lambda m: m.round(X, decimals=1)),
    ("where", lambda m: m.where(X > 0, X, -1.0)),
    ("repeat", lambda m: m.repeat(X, 2, axis=1)),
    ("split", lambda m: m.split(X, [1, 3], axis=1)),
    ("slice", lambda m: m.slice(X, (0, 1, 2), (2, 3, 2))),
    ("squeeze", lambda m: m.squeeze(X[:, :1], axis=1)),
    ("leaky_relu", lambda m: m.leaky_relu(X)),
    ("elu", lambda m: m.elu(X, alpha=0.5)),
]


@pytest.mark.parametrize("name, call", OPS, ids=[o[0] for o in OPS])
def test_ops_match_keras_ops(name, call):
    ours, theirs = call(ops), call(keras.ops)
    ours_leaves = ours if isinstance(ours, (list, tuple)) else [ours]
    theirs_leaves = theirs if isinstance(theirs, (list, tuple)) else [theirs]
    assert len(ours_leaves) == len(theirs_leaves)
    for a, b in zip(ours_leaves, theirs_leaves):
        a, b = np.asarray(a), np.asarray(b)
        assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, a.dtype, b.shape, b.dtype)
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


def test_symbolic_ops_shapes_match_keras():
    for lib in (kg, keras):
        x = lib.Input(shape=(5, 4))
        outs = [lib.ops.sum(x, axis=1), lib.ops.expand_dims(x, 1), lib.ops.transpose(x, (0, 2, 1)),
                lib.ops.reshape(x, (-1, 20)), lib.ops.max(x, axis=-1, keepdims=True),
                *lib.ops.top_k(x, 3), lib.ops.concatenate([x, x], axis=1)]
        shapes = [tuple(o.shape) for o in outs]
        if lib is kg:
            ours = shapes
    assert ours == shapes


def test_dense_takes_kerass_regularizers_and_constraints():
    import compiler
    import jax

    x = kg.Input(shape=(3,))
    dense = layers.Dense(2, kernel_initializer="ones", bias_initializer="ones",
                         kernel_regularizer="l2", bias_regularizer="l1",
                         kernel_constraint="non_neg")
    program = compiler.compile(kg.Model(x, dense(x)))
    params, state = program.init(jax.random.PRNGKey(0))
    _, _, penalty = program.apply(params, state, np.ones((1, 3), "float32"), return_losses=True)
    keras_dense = keras.layers.Dense(2, kernel_initializer="ones", bias_initializer="ones",
                                     kernel_regularizer="l2", bias_regularizer="l1")
    keras_dense(np.ones((1, 3), "float32"))
    np.testing.assert_allclose(penalty, sum(float(v) for v in keras_dense.losses), rtol=1e-6)
    assert dense.weights[0].constraint is not None
    assert set(dense.get_config()) == set(keras_dense.get_config())
