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


def test_a_call_that_cannot_be_traced_runs_as_its_own_code():
    """As in Keras: jnp on the raw input is fine; the model builds by running call() on
    arrays and its program runs call() as written (one node)."""
    class Sine(kg.Model):
        def __init__(self):
            super().__init__(name="sine")
            self.dense = layers.Dense(2)

        def call(self, inputs):
            return self.dense(jnp.sin(inputs))  # jnp on the raw input: not traceable

    model = Sine()
    data = np.linspace(-1, 1, 6, dtype=np.float32).reshape(3, 2)
    eager = np.asarray(model(data))
    np.testing.assert_allclose(eager, np.asarray(model.dense(np.sin(data))), rtol=1e-6)
    assert "could not be traced" in model._trace_error and model.dense.built
    program = compiler.compile(model)
    assert program.plan is None
    params, state = compiler.variables(model)
    out, _ = jax.jit(program.apply)(params, state, data)
    np.testing.assert_allclose(np.asarray(out), eager, rtol=1e-6)


def test_a_call_random_in_inference_trains_with_validation_data():
    """A SeedGenerator used on every call (not only in training) and a shape read from the
    batch: the model builds by running, and evaluation passes a random key as training
    does."""
    class Noisy(kg.Model):
        def __init__(self):
            super().__init__()
            self.seed_generator = kg.random.SeedGenerator(42)
            self.dense = layers.Dense(1)

        def call(self, x):
            noise = kg.random.normal(kg.ops.shape(x), stddev=0.1, seed=self.seed_generator)
            return self.dense(x + noise)

    model = Noisy()
    model.compile("adam", "mse")
    x = np.random.default_rng(0).random((64, 4)).astype("float32")
    history = model.fit(x, x[:, :1], validation_data=(x, x[:, :1]), epochs=2, verbose=0)
    assert np.all(np.isfinite(history.history["val_loss"]))
    first = model.predict(x, verbose=0)
    assert first.shape == (64, 1) and np.all(np.isfinite(first))
    assert not np.allclose(first, np.asarray(model.dense(x)))  # the noise is there
