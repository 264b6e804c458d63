"""Layers and weights held in attributes, lists, tuples, dicts and nested containers are
tracked as Keras tracks them (weights, params, training); reassigning or deleting an
attribute untracks what it held."""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

import compiler
import kgraph as kg
import runtime
from kgraph import layers


class Blocks(kg.Layer):
    """Sub-layers in a dict, a list, a tuple and a nested container."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.by_name = {"a": layers.Dense(2, name="a"), "b": layers.Dense(2, name="b")}
        self.stack = [layers.Dense(2, name="c")]
        self.pair = (layers.Dense(2, name="d"),)
        self.nested = {"deep": [{"leaf": layers.Dense(2, name="e")}]}

    def call(self, x):
        parts = [self.by_name["a"](x), self.by_name["b"](x), self.stack[0](x),
                 self.pair[0](x), self.nested["deep"][0]["leaf"](x)]
        return sum(parts)


def _model():
    x = kg.Input(shape=(3,))
    return kg.Model(x, Blocks(name="blocks")(x))


def test_layers_in_containers_are_in_weights_and_params(key):
    model = _model()
    assert len(model.weights) == 10
    params, _ = compiler.compile(model).init(key)
    assert sorted(params["blocks"]) == ["a", "b", "c", "d", "e"]
    assert params["blocks"]["e"]["kernel"].shape == (3, 2)


def test_layers_in_containers_are_trained(key):
    model = _model()
    trainer = runtime.Trainer(model, optax.sgd(0.1), loss="mse")
    ts = trainer.init(key)
    before = jax.tree_util.tree_map(np.asarray, ts.params)
    x, y = jnp.ones((4, 3)), jnp.zeros((4, 2))
    ts, _ = trainer.train_step(ts, (x, y))
    for name in "abcde":
        assert not np.allclose(before["blocks"][name]["kernel"],
                               ts.params["blocks"][name]["kernel"]), name


def test_freezing_reaches_layers_in_containers(key):
    model = _model()
    model.get_layer("blocks").trainable = False
    params, state = compiler.compile(model).init(key)
    assert params == {} and sorted(state["blocks"]) == ["a", "b", "c", "d", "e"]


def test_reassigning_or_deleting_an_attribute_untracks_its_layers():
    blocks = Blocks()
    blocks(jnp.ones((1, 3)))
    assert len(blocks.weights) == 10
    blocks.stack = None
    assert len(blocks.weights) == 8
    del blocks.pair
    assert len(blocks.weights) == 6
    blocks.by_name = {"a": blocks.by_name["a"]}  # the same layer kept, one dropped
    assert [v.path for v in blocks.weights] == [  # built in its call: under its path
        "blocks/a/kernel", "blocks/a/bias", "blocks/e/kernel", "blocks/e/bias"]


class Weights(kg.Layer):
    def build(self, input_shape):
        self.w = self.add_weight((input_shape[-1], 2))
        self.pair = [self.add_weight((2,), name="p0"), self.add_weight((2,), name="p1")]

    def call(self, x):
        return x @ self.w + self.pair[0].value + self.pair[1].value


def test_reassigning_or_deleting_a_weight_attribute_untracks_the_weight():
    layer = Weights()
    layer(jnp.ones((1, 3)))
    assert [v.name for v in layer.weights] == ["w", "p0", "p1"]
    layer.pair = None
    assert [v.name for v in layer.weights] == ["w"]
    layer.w = None
    assert layer.weights == []
    other = Weights()
    other(jnp.ones((1, 3)))
    del other.w
    assert [v.name for v in other.weights] == ["p0", "p1"]


def test_a_weight_held_by_two_attributes_stays_tracked_until_both_let_go():
    layer = Weights()
    layer(jnp.ones((1, 3)))
    layer.alias = layer.pair[0]
    layer.pair = None
    assert [v.name for v in layer.weights] == ["w", "p0"]


def test_a_reference_cycle_between_layers_is_not_followed_forever():
    outer = Blocks()
    outer(jnp.ones((1, 3)))
    outer.by_name["a"].back = outer  # a sub-layer pointing at its parent
    assert len(outer.weights) == 10
    assert len(jax.tree_util.tree_leaves(outer._variable_tree())) == 10


@pytest.mark.parametrize("holder", [list, tuple])
def test_mixed_containers_track_only_their_layers(holder):
    layer = kg.Layer()
    layer.things = holder([1, "two", layers.Dense(2), None])
    assert [type(t).__name__ for t in layer._tracked_layers()] == ["Dense"]


def _backbone_names(lib):
    """``_flatten_layers`` of a Functional subclass holding a layer outside its graph."""
    class Backbone(lib.Model):
        def __init__(self):
            decoder = lib.layers.Dense(2, name="decoder")
            inputs = lib.Input((3,))
            super().__init__(inputs, lib.layers.Dense(4, name="encoder")(inputs))
            self.decoder = decoder

    return [layer.name for layer in Backbone()._flatten_layers()]


def test_flatten_layers_lists_a_functional_subclass_attribute_layer_as_keras():
    keras = pytest.importorskip("keras")
    names = _backbone_names(kg)
    assert "decoder" in names
    assert [n.split("_")[0] for n in names] == [
        n.split("_")[0] for n in _backbone_names(keras)]
