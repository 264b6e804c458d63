"""``kg.random`` as ``keras.random``: distributions, seeds, SeedGenerator semantics eagerly
and under a program's key (deterministic, different per step, no hidden state)."""


import jax
import keras
import numpy as np
import pytest

import compiler
import kgraph as kg


@pytest.mark.parametrize("name, args", [
    ("normal", ((4000,),)), ("uniform", ((4000,),)), ("truncated_normal", ((4000,),)),
    ("randint", ((4000,), 0, 5)), ("gamma", ((4000,), 2.0)), ("beta", ((4000,), 2.0, 3.0)),
    ("binomial", ((4000,), 10, 0.3))])
def test_distributions_match_kerass_moments(name, args):
    ours = np.asarray(getattr(kg.random, name)(*args, seed=1), np.float64)
    theirs = np.asarray(getattr(keras.random, name)(*args, seed=1), np.float64)
    assert ours.shape == theirs.shape and ours.dtype.kind == theirs.dtype.kind
    assert abs(ours.mean() - theirs.mean()) < 0.1 * max(1.0, abs(theirs.mean()))
    assert abs(ours.std() - theirs.std()) < 0.1 * max(1.0, theirs.std())
    np.testing.assert_array_equal(getattr(kg.random, name)(*args, seed=1), ours)


def test_dropout_shuffle_categorical():
    x = np.ones((1000,), np.float32)
    dropped = np.asarray(kg.random.dropout(x, 0.25, seed=3))
    assert set(np.unique(dropped)) <= {np.float32(0.0), np.float32(1 / 0.75)}
    assert 0.2 < (dropped == 0).mean() < 0.3
    shuffled = np.asarray(kg.random.shuffle(np.arange(10), seed=2))
    assert sorted(shuffled.tolist()) == list(range(10))
    samples = np.asarray(kg.random.categorical(np.log([[0.1, 0.9]]), 2000, seed=0))
    assert samples.shape == (1, 2000) and 0.85 < samples.mean() < 0.95


def test_seed_generator_advances_eagerly_and_reproduces_from_its_seed():
    def sequence(seed):
        gen = kg.random.SeedGenerator(seed)
        return [np.asarray(kg.random.normal((3,), seed=gen)) for _ in range(3)]

    first, again = sequence(5), sequence(5)
    assert not np.array_equal(first[0], first[1])
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)


class Noise(kg.layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.seed_generator = kg.random.SeedGenerator(1337)

    def call(self, x):
        return x + kg.random.normal(kg.ops.shape(x), seed=self.seed_generator)


def test_seed_generator_in_a_layer_draws_from_applys_key():
    x = kg.Input(shape=(4,))
    model = kg.Model(x, Noise()(x))
    program = compiler.compile(model)
    params, state = program.init(jax.random.PRNGKey(0))
    data = np.zeros((2, 4), np.float32)
    run = jax.jit(lambda key: program.apply(params, state, data, key=key)[0])
    np.testing.assert_array_equal(run(jax.random.PRNGKey(1)), run(jax.random.PRNGKey(1)))
    assert not np.allclose(run(jax.random.PRNGKey(1)), run(jax.random.PRNGKey(2)))
    model.compile(optimizer="sgd", loss="mse")
    assert model.predict(data, verbose=0).shape == (2, 4)


def test_bad_seed_is_a_clear_error():
    with pytest.raises(ValueError, match="Argument `seed` must be"):
        kg.random.normal((2,), seed="abc")
    with pytest.raises(ValueError, match="must be an integer"):
        kg.random.SeedGenerator(1.5)
