"""A compiled program computes exactly the graph it was compiled from, or refuses to run.

It never runs layers it was not compiled with (their eager weights would be baked in as
constants and gradients would skip them), and never reads a weight that is not in the
params/state it was given.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import compiler
import kgraph as kg
from kgraph import layers

STALE = "changed after it was compiled"


def _stack():
    return kg.Sequential([kg.Input(shape=(3,)), layers.Dense(4), layers.Dense(2)])


@pytest.mark.parametrize("change", ["add", "pop", "rebuild", "reassign", "freeze"])
def test_a_program_refuses_to_run_after_its_model_changed(change, key):
    model = _stack()
    program = compiler.compile(model)
    params, state = program.init(key)
    x = jnp.ones((2, 3))
    if change == "add":
        model.add(layers.Dense(5))
    elif change == "pop":
        model.pop()
    elif change == "rebuild":
        last = model.layers[-1]
        last._tracker.unlock()  # as Keras's: a built layer adds weights only unlocked
        last.kernel, last.bias = None, None  # drops its weights, then builds new ones
        last.build((None, 4))
    elif change == "reassign":
        last = model.layers[-1]
        last._tracker.unlock()
        last.kernel = None
        last.kernel = last.add_weight((4, 2), name="kernel")
    else:
        model.layers[0].trainable = False
    with pytest.raises(ValueError, match=STALE):
        program.apply(params, state, x)
    with pytest.raises(ValueError, match=STALE):
        jax.jit(program.apply)(params, state, x)
    with pytest.raises(ValueError, match=STALE):
        program.init(key)
    fresh = compiler.compile(model)  # compiling again gives a working program
    out, _ = fresh.apply(*fresh.init(key), x)
    assert out.shape[0] == 2


def test_a_nested_model_changing_makes_the_outer_program_stale(key):
    inner = kg.Sequential([kg.Input(shape=(3,)), layers.Dense(3)])
    x = kg.Input(shape=(3,))
    model = kg.Model(x, layers.Dense(2)(inner(x)))
    program = compiler.compile(model)
    params, state = program.init(key)
    inner.add(layers.Activation("relu"))  # no new weights; the graph still changed
    with pytest.raises(ValueError, match=STALE):
        program.apply(params, state, jnp.ones((1, 3)))


def test_an_unchanged_model_keeps_its_program_working(key):
    model = _stack()
    program = compiler.compile(model)
    params, state = program.init(key)
    model(jnp.ones((1, 3)))  # eager calls and summaries change nothing
    model.summary(print_fn=lambda *_: None)
    out, _ = jax.jit(program.apply)(params, state, jnp.ones((2, 3)))
    assert out.shape == (2, 2)


class _ReadsAnother(kg.Layer):
    """Reads a weight of a layer it does not track (hidden from tracking in a lambda)."""

    def __init__(self, other):
        super().__init__()
        self.get_other = lambda: other

    def call(self, x):
        return x @ self.get_other().kernel


def test_reading_a_weight_missing_from_params_is_an_error_naming_it(key):
    other = layers.Dense(3, name="outside")
    other.build((None, 3))
    x = kg.Input(shape=(3,))
    program = compiler.compile(kg.Model(x, _ReadsAnother(other)(x)))
    params, state = program.init(key)
    assert params == {}
    with pytest.raises(ValueError, match='"outside/kernel".*not among the program'):
        program.apply(params, state, jnp.ones((1, 3)))
    # Eagerly the stored value is what the layer reads, as before.
    np.testing.assert_allclose(_ReadsAnother(other)(jnp.ones((1, 3))),
                               jnp.ones((1, 3)) @ other.kernel, rtol=1e-6)
