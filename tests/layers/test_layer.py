"""Layer: seed 003's SimpleDense, lazy build, weights, trainability, names, eager calls."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import compiler
import kgraph as kg
from kgraph import layers


class SimpleDense(kg.Layer):  # seed 003, verbatim but for jnp.matmul and super().__init__()
    def __init__(self, units=32):
        super().__init__()
        self.units = units

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], self.units),
                                 initializer='random_normal',
                                 trainable=True)
        self.b = self.add_weight(shape=(self.units,),
                                 initializer='random_normal',
                                 trainable=True)

    def call(self, inputs):
        return jnp.matmul(inputs, self.w) + self.b


class CountingDense(layers.Dense):
    """Dense that counts its ``build`` calls."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.build_calls = 0

    def build(self, input_shape):
        self.build_calls += 1
        super().build(input_shape)


def test_simple_dense_seed_example():
    layer = SimpleDense(4)
    out = layer(jnp.ones((2, 2)))
    assert isinstance(out, jax.Array)
    assert out.shape == (2, 4)
    assert layer.built
    w, b = (v.numpy() for v in layer.weights)
    assert w.shape == (2, 4) and b.shape == (4,)
    np.testing.assert_allclose(out, np.ones((2, 2)) @ w + b, rtol=1e-6)
    # random_normal (stddev 0.05): not all zeros, both rows identical as in the seed's output
    assert np.any(w != 0)
    np.testing.assert_array_equal(out[0], out[1])


def test_simple_dense_weights_take_attribute_names():
    layer = SimpleDense(3)
    layer(jnp.ones((1, 5)))
    assert [v.name for v in layer.weights] == ["w", "b"]
    assert [v.path for v in layer.weights] == ["simple_dense/w", "simple_dense/b"]
    assert all(isinstance(v, kg.Variable) for v in layer.weights)
    x = kg.Input(shape=(5,))
    params, state = compiler.variables(kg.Model(x, layer(x)))
    assert set(params["simple_dense"]) == {"w", "b"}
    assert state == {}


def test_simple_dense_symbolic():
    x = kg.Input(shape=(2,))
    y = SimpleDense(4)(x)
    assert y.shape == (None, 4)
    assert y.dtype == jnp.float32


def test_weight_names_explicit_auto_and_duplicates():
    class Weights(kg.Layer):
        def build(self, input_shape):
            self.k = self.add_weight((2,), name="kernel")  # explicit name wins
            self.add_weight((1,))                          # never assigned: auto name
            self.add_weight((1,))
            self.scale = self.add_weight((3,))             # attribute name

        def call(self, x):
            return x

    layer = Weights()
    layer(jnp.ones((1, 2)))
    assert [v.name for v in layer.weights] == ["kernel", "variable", "variable_1", "scale"]
    layer._tracker.unlock()  # built: Keras's lock refuses new weights until unlocked
    with pytest.raises(ValueError, match='already has a weight named "kernel"'):
        layer.add_weight((1,), name="kernel")


def test_build_happens_exactly_once_symbolic_then_eager():
    layer = CountingDense(3)
    for _ in range(3):
        layer(kg.Input(shape=(4,)))
    for _ in range(3):
        layer(jnp.ones((2, 4)))
    assert layer.build_calls == 1
    assert len(layer.weights) == 2


def test_build_happens_exactly_once_eager_then_symbolic():
    layer = CountingDense(3)
    layer(np.ones((2, 4), np.float32))
    layer(np.ones((5, 4), np.float32))
    y = layer(kg.Input(shape=(4,)))
    assert y.shape == (None, 3)
    assert layer.build_calls == 1


def test_weights_lists_and_trainable_flag():
    dense = layers.Dense(3)
    dense(kg.Input(shape=(2,)))
    kernel, bias = dense.weights
    assert (kernel.name, kernel.shape) == ("kernel", (2, 3))
    assert (bias.name, bias.shape) == ("bias", (3,))
    assert dense.trainable_weights == [kernel, bias]
    assert dense.non_trainable_weights == []

    dense.trainable = False
    assert dense.trainable_weights == []
    assert dense.non_trainable_weights == [kernel, bias]
    dense.trainable = True
    assert dense.trainable_weights == [kernel, bias]

    bn = layers.BatchNormalization()
    bn(kg.Input(shape=(3,)))
    assert [v.name for v in bn.trainable_weights] == ["gamma", "beta"]
    assert [v.name for v in bn.non_trainable_weights] == ["moving_mean", "moving_variance"]


def test_untrainable_layer_weights_move_to_state():
    x = kg.Input(shape=(2,))
    frozen = layers.Dense(3, name="frozen")
    model = kg.Model(x, layers.Dense(1, name="head")(frozen(x)))
    frozen.trainable = False
    params, state = compiler.compile(model).init(jax.random.PRNGKey(0))
    assert set(params) == {"head"}
    assert set(state) == {"frozen"} and set(state["frozen"]) == {"kernel", "bias"}

    model.trainable = False  # propagates to every layer of the model
    assert not frozen.trainable and not model.get_layer("head").trainable
    assert model.trainable_weights == []
    assert len(model.non_trainable_weights) == 4


def test_count_params():
    layer = layers.Dense(4)
    with pytest.raises(ValueError, match="isn't built"):
        layer.count_params()
    layer(kg.Input(shape=(3,)))
    assert layer.count_params() == 3 * 4 + 4
    no_bias = layers.Dense(4, use_bias=False)
    no_bias(kg.Input(shape=(3,)))
    assert no_bias.count_params() == 12
    simple = SimpleDense(5)
    simple(jnp.ones((1, 2)))
    assert simple.count_params() == 2 * 5 + 5


def test_unique_auto_names():
    assert [layers.Dense(1).name for _ in range(3)] == ["dense", "dense_1", "dense_2"]
    assert layers.Dense(1, name="logits").name == "logits"
    assert layers.Dense(1).name == "dense_3"  # explicit names do not use up auto ones
    assert layers.BatchNormalization().name == "batch_normalization"

    class MyFancyLayer(kg.Layer):
        pass

    assert MyFancyLayer().name == "my_fancy_layer"
    assert MyFancyLayer().name == "my_fancy_layer_1"
    kg.reset_names()
    assert layers.Dense(1).name == "dense"


def test_unexpected_constructor_keyword_raises():
    with pytest.raises(TypeError, match="unexpected keyword"):
        layers.Dense(2, unitz=3)


def test_eager_call_on_numpy_returns_jax_array():
    layer = layers.Dense(3)
    values = np.random.default_rng(0).random((4, 2))  # float64 NumPy
    out = layer(values)
    assert isinstance(out, jax.Array)
    assert out.shape == (4, 3)
    kernel, bias = layer.get_weights()
    np.testing.assert_allclose(out, values @ kernel + bias, rtol=1e-5, atol=1e-6)


def test_attribute_assignment_and_set_weights_update_values():
    layer = layers.Dense(2)
    x = jnp.ones((1, 3))
    layer(x)
    layer.kernel = jnp.full((3, 2), 2.0)
    np.testing.assert_allclose(layer(x), [[6.0, 6.0]])
    layer.set_weights([np.ones((3, 2)), np.array([1.0, -1.0])])
    np.testing.assert_allclose(layer(x), [[4.0, 2.0]])
    assert [w.shape for w in layer.get_weights()] == [(3, 2), (2,)]
    with pytest.raises(ValueError, match='weight "dense/kernel": expected shape'):
        layer.kernel = jnp.ones((2, 2))
    with pytest.raises(ValueError, match="has 2 weights, received 1"):
        layer.set_weights([np.ones((3, 2))])


def test_training_keyword_accepted_by_layers_without_it():
    layer = layers.Dense(2)
    x = jnp.ones((1, 3))
    np.testing.assert_array_equal(layer(x, training=True), layer(x))


def test_dropout_eager_randomness():
    layer = layers.Dropout(0.5)
    x = jnp.ones((8, 16))
    k1, k2 = jax.random.PRNGKey(1), jax.random.PRNGKey(2)
    a = layer(x, training=True, key=k1)
    b = layer(x, training=True, key=k1)
    c = layer(x, training=True, key=k2)
    np.testing.assert_array_equal(a, b)           # deterministic per key
    assert not np.array_equal(a, c)               # and the key matters
    assert set(np.unique(np.asarray(a))) <= {0.0, 2.0}  # kept values scaled by 1/(1-rate)
    assert 0 < int((np.asarray(a) == 0).sum()) < x.size
    np.testing.assert_array_equal(layer(x, training=False, key=k1), x)
    np.testing.assert_array_equal(layer(x), x)    # training defaults to off


def test_dropout_eager_without_key_uses_seeded_stream():
    x = jnp.ones((8, 16))
    kg.random.set_random_seed(7)
    layer = layers.Dropout(0.5)  # as Keras's: its SeedGenerator's seed drawn when made
    first, second = layer(x, training=True), layer(x, training=True)
    assert not np.array_equal(first, second)  # a fresh key per call
    kg.random.set_random_seed(7)
    # reproducible as in Keras: the same global seed, a layer made again
    np.testing.assert_array_equal(layers.Dropout(0.5)(x, training=True), first)


def test_layer_input_output_properties():
    layer = layers.Dense(2)
    with pytest.raises(AttributeError, match="never been called"):
        _ = layer.output
    x = kg.Input(shape=(3,))
    y = layer(x)
    assert layer.input is x and layer.output is y
    layer(kg.Input(shape=(3,)))  # as Keras 3: the first call's tensors
    assert layer.input is x and layer.output is y


def test_missing_attribute_error_is_normal():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = layers.Dense(2).nope
