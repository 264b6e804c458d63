"""Call arguments by name: building from every tensor argument, masks of every tensor
argument, ``key=`` routing, and multi-output ``compute_output_shape``."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import compiler
import kgraph as kg
from kgraph import layers
from kgraph.base import call_args

TOKENS = np.array([[1, 2, 0, 0], [3, 0, 0, 0]], np.int32)
FEATURES = np.arange(2 * 4 * 3, dtype=np.float32).reshape(2, 4, 3)


class TwoInputs(kg.Layer):
    """Records the masks it receives; builds from both inputs' shapes."""

    supports_masking = True

    def build(self, x_shape, y_shape):
        self.shapes = (x_shape, y_shape)
        self.w = self.add_weight((x_shape[-1], y_shape[-1]), "ones")

    def call(self, x, y, x_mask=None, y_mask=None):
        self.seen = (x_mask, y_mask)
        return jnp.matmul(x, self.w) + y


class OneInputWithMask(kg.Layer):
    supports_masking = True

    def call(self, inputs, other, mask=None):
        self.seen = mask
        return inputs + other


def masked_features():
    tokens = kg.Input(shape=(4,), dtype="int32")
    embedding = layers.Embedding(5, 3, mask_zero=True, name="embedding")
    return tokens, embedding(tokens)


def test_build_receives_the_shape_of_every_tensor_argument():
    layer = TwoInputs()
    x, y = kg.Input(shape=(4, 3)), kg.Input(shape=(4, 2))
    assert layer(x, y=y).shape == (None, 4, 2)
    assert layer.shapes == ((None, 4, 3), (None, 4, 2))
    eager = TwoInputs()
    eager(jnp.ones((2, 4, 3)), jnp.ones((2, 4, 2)))
    assert eager.shapes == ((2, 4, 3), (2, 4, 2))


def test_build_shape_names_must_match_call_arguments():
    class Wrong(kg.Layer):
        def build(self, x_shape, z_shape):
            pass

        def call(self, x, y):
            return x

    with pytest.raises(ValueError, match=r'Layer "wrong.*`z_shape`.*does not have argument `z`'):
        Wrong(name="wrong")(jnp.ones((1, 2)), jnp.ones((1, 2)))


def test_each_tensor_argument_mask_reaches_its_named_mask_argument():
    tokens, embedded = masked_features()
    other = kg.Input(shape=(4, 3))
    layer = TwoInputs()
    out = layer(embedded, other)
    model = kg.Model([tokens, other], layers.GlobalAveragePooling1D()(out))
    model([TOKENS, FEATURES])
    x_mask, y_mask = layer.seen
    np.testing.assert_array_equal(x_mask, TOKENS != 0)
    assert y_mask is None
    # The output mask is the first argument's (supports_masking): the mean skips padding.
    values = np.asarray(layer(model.get_layer("embedding")(TOKENS), FEATURES))
    keep = (TOKENS != 0)[..., None]
    expected = (values * keep).sum(1) / keep.sum(1)
    np.testing.assert_allclose(model([TOKENS, FEATURES]), expected, rtol=1e-6)


def test_mask_argument_with_several_tensor_arguments_gets_the_first_ones_mask():
    # Keras 3 leaves ``mask`` unset here; kgraph gives it the first argument's mask.
    tokens, embedded = masked_features()
    other = kg.Input(shape=(4, 3))
    layer = OneInputWithMask()
    kg.Model([tokens, other], layer(embedded, other))([TOKENS, FEATURES])
    np.testing.assert_array_equal(layer.seen, TOKENS != 0)


def test_an_explicit_mask_argument_is_kept():
    tokens, embedded = masked_features()
    explicit = kg.Input(shape=(4,), dtype="bool")
    layer = OneInputWithMask()
    model = kg.Model([tokens, explicit], layer(embedded, embedded, mask=explicit))
    given = np.array([[True, False, True, False]] * 2)
    model([TOKENS, given])
    np.testing.assert_array_equal(layer.seen, given)


def test_rnn_with_initial_state_still_gets_the_sequence_mask():
    tokens, embedded = masked_features()
    state = kg.Input(shape=(2,))
    rnn = layers.SimpleRNN(2, name="rnn")
    model = kg.Model([tokens, state], rnn(embedded, initial_state=state))
    h0 = np.zeros((2, 2), np.float32)
    vectors = model.get_layer("embedding")(TOKENS)
    # (Unmasked, the padded steps would change the last output: TOKENS ends with padding.)
    np.testing.assert_allclose(model([TOKENS, h0]),
                               rnn(vectors, initial_state=h0, mask=TOKENS != 0), rtol=1e-6)


def test_key_keyword_is_a_prng_key_only_for_calls_without_a_key_argument():
    dropout = layers.Dropout(0.5)
    x = jnp.ones((4, 16))
    a = dropout(x, training=True, key=jax.random.PRNGKey(0))
    b = dropout(x, training=True, key=jax.random.PRNGKey(0))
    np.testing.assert_array_equal(a, b)

    class WithKey(kg.Layer):
        def call(self, inputs, key=None):
            return inputs if key is None else inputs + key

    np.testing.assert_array_equal(WithKey()(x, key=x), 2 * x)


class Split(kg.Layer):
    """Two outputs, described by ``compute_output_shape`` in the structure ``kind``."""

    def __init__(self, kind="tuple", **kwargs):
        super().__init__(**kwargs)
        self.kind = kind

    def call(self, inputs):
        head, tail = inputs[..., :1], inputs[..., 1:]
        return {"tuple": (head, tail), "list": [head, tail],
                "dict": {"head": head, "tail": tail}}[self.kind]

    def compute_output_shape(self, input_shape):
        head, tail = (*input_shape[:-1], 1), (*input_shape[:-1], input_shape[-1] - 1)
        return {"tuple": (head, tail), "list": [head, tail],
                "dict": {"head": head, "tail": tail}}[self.kind]


@pytest.mark.parametrize("kind", ["tuple", "list", "dict"])
def test_multi_output_compute_output_shape_gives_one_tensor_per_shape(kind):
    x = kg.Input(shape=(5, 3))
    outputs = Split(kind)(x)
    leaves = jax.tree_util.tree_leaves(outputs)
    assert type(outputs) is {"tuple": tuple, "list": list, "dict": dict}[kind]
    assert [t.shape for t in leaves] == [(None, 5, 1), (None, 5, 2)]
    model = kg.Model(x, outputs)
    values = jax.tree_util.tree_leaves(model(jnp.ones((2, 5, 3))))
    assert [v.shape for v in values] == [(2, 5, 1), (2, 5, 2)]
    program = compiler.compile(model)
    params, state = program.init(jax.random.PRNGKey(0))
    out, _ = program.apply(params, state, jnp.ones((2, 5, 3)))
    assert [v.shape for v in jax.tree_util.tree_leaves(out)] == [(2, 5, 1), (2, 5, 2)]


def test_multi_output_shapes_do_not_trace_call():
    class Untraceable(Split):
        def call(self, inputs):
            raise AssertionError("call must not run for shape inference")

    head, tail = Untraceable()(kg.Input(shape=(5, 3)))
    assert (head.shape, tail.shape) == ((None, 5, 1), (None, 5, 2))


def test_compute_output_shape_must_return_shapes():
    class Bad(kg.Layer):
        def compute_output_shape(self, input_shape):
            return "wide"

    with pytest.raises(TypeError, match=r'Layer "bad" \(Bad\): compute_output_shape must '
                                        r"return a shape.*received 'wide'"):
        Bad(name="bad")(kg.Input(shape=(3,)))


def test_tensor_arguments_follow_the_call_signature():
    class Many(kg.Layer):
        def call(self, a, b=None, options=None, **extra):
            return a

    x = jnp.ones((1, 2))
    found = call_args.tensor_arguments(Many, (x,), {"b": [x, x], "options": {"k": 1},
                                                    "extra_tensor": x})
    assert list(found) == ["a", "b", "extra_tensor"]
    with pytest.raises(TypeError, match="Many.call"):
        call_args.tensor_arguments(Many, (x, x, x, x), {})
