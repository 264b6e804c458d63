"""Subclassed models: traced into graph form, compiled, trained; clear untraceable errors."""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

import compiler
import kgraph as kg
from kgraph import layers


class MLP(kg.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.hidden = layers.Dense(8, activation="relu", name="hidden")
        self.drop = layers.Dropout(0.5, name="drop")
        self.out = layers.Dense(3, name="out")

    def call(self, inputs, training=None):
        h = self.hidden(inputs)
        if training:  # Python control flow on the flag, as in Keras
            h = self.drop(h)
        return self.out(h)


def test_subclassed_model_is_traced_into_graph_form():
    model = MLP(name="mlp")
    data = np.ones((2, 4), np.float32)
    eager = model(data)
    program = compiler.compile(model)
    assert [n.layer.name for n in program.nodes] == ["hidden", "out"]
    params, state = compiler.variables(model)
    assert set(params) == {"hidden", "out"} and params["hidden"]["kernel"].shape == (4, 8)
    out, _ = jax.jit(program.apply)(params, state, data)
    np.testing.assert_allclose(out, eager, rtol=1e-6)
    train_a, _ = program.apply(params, state, data, training=True, key=jax.random.PRNGKey(0))
    assert not np.allclose(train_a, eager)  # the training branch ran (dropout)
    fresh, _ = program.init(jax.random.PRNGKey(0))
    assert jax.tree_util.tree_structure(fresh) == jax.tree_util.tree_structure(params)


def test_build_with_a_shape_and_summary():
    model = MLP(name="mlp")
    model.build((None, 5))
    assert model.built and model.count_params() == 5 * 8 + 8 + 8 * 3 + 3
    lines = []
    model.summary(print_fn=lines.append)
    assert "hidden (Dense)" in lines[0] and "out (Dense)" in lines[0]


@pytest.mark.slow
def test_subclassed_model_trains_with_fit():
    model = MLP(name="mlp")
    model.compile(optax.adam(1e-2), loss="mse")
    x = np.random.default_rng(0).normal(size=(32, 4)).astype(np.float32)
    history = model.fit(x, np.zeros((32, 3), np.float32), batch_size=8, epochs=3, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]


def test_untraceable_call_is_a_clear_error_at_compile():
    class Sine(kg.Model):
        def __init__(self):
            super().__init__(name="sine")
            self.dense = layers.Dense(2)

        def call(self, inputs):
            return self.dense(jnp.sin(inputs))  # jnp on the raw input: not traceable

    model = Sine()
    np.testing.assert_allclose(model(np.zeros((1, 2), np.float32)),
                               model.dense(np.zeros((1, 2), np.float32)))  # eager still works
    with pytest.raises(ValueError, match=r"(?s)Model .sine. \(Sine\) could not be traced.*kgraph.ops"):
        compiler.compile(model)
