"""Initial values and the params pytree depend on the code that built a model and the
key only, not on how many layers the process made before (see ``kgraph.base.naming``)."""

import jax
import jax.numpy as jnp
import pytest

import compiler
import kgraph as kg
from kgraph import layers


def _functional():
    x = kg.Input(shape=(3,))
    h = layers.Dense(4, activation="relu")(x)
    return kg.Model(x, layers.Dense(2)(layers.Dropout(0.1)(h) + h))


def _sequential():
    return kg.Sequential([layers.Dense(4), layers.BatchNormalization(), layers.Dense(2)])


class _Blocks(kg.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.blocks = [layers.Dense(3), layers.Dense(3)]

    def call(self, x):
        return self.blocks[1](self.blocks[0](x))


class _Subclassed(kg.Model):
    def __init__(self):
        super().__init__()
        self.first = layers.Dense(4)
        self.blocks = _Blocks()

    def call(self, x):
        return self.blocks(self.first(x))


def _with_sublayers():
    x = kg.Input(shape=(3,))
    return kg.Model(x, _Blocks()(x))


def _subclassed():
    model = _Subclassed()
    model.build((None, 3))
    return model


@pytest.mark.parametrize("build", [_functional, _sequential, _with_sublayers, _subclassed])
def test_a_model_built_twice_in_one_process_initialises_identically(build, tree_equal, key):
    def init(model):
        if not model.built:
            model.build((None, 3))
        return compiler.compile(model).init(key)

    first = init(build())
    for _ in range(3):  # unrelated layers made in between shift the global counters
        layers.Dense(1), layers.BatchNormalization(), layers.Dropout(0.5)
    second = init(build())
    assert tree_equal(first, second)


def test_a_model_gets_the_names_keras_gives_in_a_fresh_process():
    for _ in range(4):
        layers.Dense(1)  # earlier work in the same notebook
    model = _functional()
    assert [layer.name for layer in model.operations] == [
        "input_layer", "dense", "dropout", "add", "dense_1"]
    assert [layer.name for layer in model.layers] == [  # as Keras: the add is an operation
        "input_layer", "dense", "dropout", "dense_1"]
    assert model.inputs[0].name == "input_layer"


def test_explicit_names_are_kept_and_avoided():
    x = kg.Input(shape=(3,), name="x")
    model = kg.Model(x, layers.Dense(2)(layers.Dense(2, name="dense")(x)))
    assert [layer.name for layer in model.layers] == ["x", "dense", "dense_1"]


def test_layers_of_two_earlier_models_in_one_graph_get_distinct_names():
    towers = []
    for _ in range(2):
        x = kg.Input(shape=(3,))
        towers.append(kg.Model(x, layers.Dense(2)(x)))
    joined = layers.Concatenate()([t.outputs[0] for t in towers])
    model = kg.Model([t.inputs[0] for t in towers], joined)
    names = [layer.name for layer in model.layers]
    assert len(set(names)) == len(names)
    assert compiler.compile(model).init(jax.random.PRNGKey(0))[0].keys() == {"dense", "dense_1"}


def test_weights_of_one_model_restore_into_a_rebuilt_copy(key):
    original = _functional()
    program = compiler.compile(original)
    params, state = program.init(key)
    x = jnp.ones((2, 3))
    expected, _ = program.apply(params, state, x)
    layers.Dense(1)  # the process moves on
    copy = _functional()
    compiler.assign(copy, params, state)
    assert jnp.array_equal(copy(x), expected)


@pytest.mark.parametrize("build", [_functional, _sequential, _subclassed])
def test_eager_initial_values_follow_the_global_seed_stream_as_keras(build, tree_equal):
    """Two models built one after the other start from different weights (an ensemble or
    random restarts built in a loop), and ``set_random_seed`` replays the sequence."""
    def weights():
        model = build()
        if not model.built:
            model.build((None, 3))
        return model.get_weights()

    kg.utils.set_random_seed(7)
    first, second = weights(), weights()
    assert not any(jnp.array_equal(a, b) for a, b in zip(first, second) if a.std() > 0)
    kg.utils.set_random_seed(7)
    assert tree_equal(weights(), first) and tree_equal(weights(), second)
