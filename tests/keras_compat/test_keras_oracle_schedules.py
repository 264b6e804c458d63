"""Learning-rate schedules: Keras's values step by step, configs, jit."""


import jax
import keras
import numpy as np
import pytest

from kgraph.optimizers import schedules

CASES = [
    ("ExponentialDecay", dict(initial_learning_rate=0.1, decay_steps=7, decay_rate=0.5)),
    ("ExponentialDecay", dict(initial_learning_rate=0.1, decay_steps=7, decay_rate=0.5,
                              staircase=True)),
    ("InverseTimeDecay", dict(initial_learning_rate=0.1, decay_steps=5, decay_rate=0.3)),
    ("PolynomialDecay", dict(initial_learning_rate=0.1, decay_steps=20, power=2.0)),
    ("PolynomialDecay", dict(initial_learning_rate=0.1, decay_steps=9, cycle=True)),
    ("PiecewiseConstantDecay", dict(boundaries=[5, 12], values=[1.0, 0.5, 0.1])),
    ("CosineDecay", dict(initial_learning_rate=0.1, decay_steps=20, alpha=0.1)),
    ("CosineDecay", dict(initial_learning_rate=0.0, decay_steps=20, warmup_target=0.1,
                         warmup_steps=6)),
    ("CosineDecayRestarts", dict(initial_learning_rate=0.1, first_decay_steps=5)),
    ("CosineDecayRestarts", dict(initial_learning_rate=0.1, first_decay_steps=4, t_mul=1.0,
                                 m_mul=0.5, alpha=0.1)),
]


@pytest.mark.parametrize("name, kwargs", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_schedule_matches_keras(name, kwargs):
    ours = getattr(schedules, name)(**kwargs)
    theirs = getattr(keras.optimizers.schedules, name)(**kwargs)
    steps = np.arange(0, 40)
    got = jax.jit(jax.vmap(ours))(steps)
    want = np.array([float(theirs(int(s))) for s in steps])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)
    again = schedules.deserialize(schedules.serialize(ours))
    assert again.get_config() == ours.get_config()
    assert set(ours.get_config()) == set(theirs.get_config())
