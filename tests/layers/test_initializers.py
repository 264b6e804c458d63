"""``kgraph.initializers``: Keras 3 classes, configs, ``get`` / ``serialize``, statistics."""

import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import compiler
import kgraph as kg
from kgraph import initializers as I


@pytest.mark.parametrize("name, cls", [
    ("glorot_uniform", I.GlorotUniform), ("GlorotNormal", I.GlorotNormal),
    ("he_normal", I.HeNormal), ("HeUniform", I.HeUniform), ("lecun_normal", I.LecunNormal),
    ("lecun_uniform", I.LecunUniform), ("orthogonal", I.Orthogonal),
    ("OrthogonalInitializer", I.Orthogonal), ("zeros", I.Zeros), ("Zeros", I.Zeros),
    ("zero", I.Zeros), ("ones", I.Ones), ("one", I.Ones), ("constant", I.Constant),
    ("random_normal", I.RandomNormal), ("normal", I.RandomNormal),
    ("random_uniform", I.RandomUniform), ("uniform", I.RandomUniform),
    ("truncated_normal", I.TruncatedNormal), ("variance_scaling", I.VarianceScaling),
    ("identity", I.Identity), ("IdentityInitializer", I.Identity), ("ZEROS", I.Zeros),
])
def test_get_by_keras_name(name, cls, key):
    init = I.get(name)
    assert type(init) is cls
    assert init(key, (4, 4), "float32").shape == (4, 4)


def _std(key, init, shape):
    return float(np.std(np.asarray(init(key, shape, "float32"))))


@pytest.mark.parametrize("init, shape, expected_std", [
    (I.GlorotUniform(), (200, 300), np.sqrt(2 / 500)),
    (I.GlorotNormal(), (200, 300), np.sqrt(2 / 500)),
    (I.HeNormal(), (200, 300), np.sqrt(2 / 200)),
    (I.HeUniform(), (3, 3, 40, 64), np.sqrt(2 / 360)),  # conv kernel: fan_in = 3*3*40
    (I.LecunNormal(), (300, 100), np.sqrt(1 / 300)),
    (I.LecunUniform(), (300, 100), np.sqrt(1 / 300)),
    (I.VarianceScaling(3.0, "fan_out", "untruncated_normal"), (100, 400), np.sqrt(3 / 400)),
    (I.VarianceScaling(1.0, "fan_in", "uniform"), (50000,), np.sqrt(1 / 50000)),  # rank 1
    (I.RandomNormal(stddev=0.5), (300, 300), 0.5),
    (I.RandomUniform(-1.0, 1.0), (300, 300), 1 / np.sqrt(3)),
])
def test_variance_of_random_initializers(init, shape, expected_std, key):
    assert _std(key, init, shape) == pytest.approx(expected_std, rel=0.03)


def test_keras_defaults_and_truncation(key):
    assert I.RandomNormal().stddev == 0.05 and I.TruncatedNormal().stddev == 0.05
    assert (I.RandomUniform().minval, I.RandomUniform().maxval) == (-0.05, 0.05)
    values = np.asarray(I.TruncatedNormal(mean=1.0, stddev=0.5)(key, (200, 200)))
    assert values.min() >= 0.0 and values.max() <= 2.0  # within 2 stddev of the mean
    assert values.mean() == pytest.approx(1.0, abs=0.01)
    normal = np.asarray(I.RandomNormal(mean=2.0, stddev=0.1)(key, (200, 200)))
    assert normal.mean() == pytest.approx(2.0, abs=0.01)
    # the 0.8796 correction makes the truncated VarianceScaling stddev equal sqrt(scale / n)
    assert _std(key, I.VarianceScaling(2.0), (400, 300)) == pytest.approx(np.sqrt(2 / 400),
                                                                        rel=0.03)
    uniform = np.asarray(I.RandomUniform(2.0, 3.0)(key, (1000,)))
    assert 2.0 <= uniform.min() and uniform.max() < 3.0


def test_named_initializers_draw_what_jax_nn_initializers_draw(key):
    cases = [("glorot_uniform", jax.nn.initializers.glorot_uniform(), (2, 3, 4, 5)),
             ("he_normal", jax.nn.initializers.he_normal(), (3, 4))]
    for name, jax_init, shape in cases:
        np.testing.assert_array_equal(I.get(name)(key, shape), jax_init(key, shape))


def test_orthogonal_identity_constant(key):
    q = np.asarray(I.Orthogonal(gain=2.0)(key, (3, 6)))
    np.testing.assert_allclose(q @ q.T, 4.0 * np.eye(3), atol=1e-5)
    tall = np.asarray(I.Orthogonal()(key, (2, 3, 4))).reshape(6, 4)
    np.testing.assert_allclose(tall.T @ tall, np.eye(4), atol=1e-5)
    half = I.Orthogonal()(key, (3, 3), jnp.bfloat16)  # drawn in float32, then cast
    assert half.dtype == jnp.bfloat16
    np.testing.assert_allclose(np.asarray(half, np.float32), I.Orthogonal()(key, (3, 3)),
                               atol=1e-2)
    with pytest.raises(ValueError, match="at least two-dimensional"):
        I.Orthogonal()(key, (3,))
    np.testing.assert_array_equal(I.Identity(gain=3.0)(key, (2, 3)), 3.0 * np.eye(2, 3))
    with pytest.raises(ValueError, match="2D"):
        I.Identity()(key, (2, 2, 2))
    np.testing.assert_array_equal(I.Constant(0.5)(key, (2,), jnp.bfloat16),
                                  np.full(2, 0.5, np.float32))
    assert I.Constant(0.5)(key, (2,), jnp.bfloat16).dtype == jnp.bfloat16


def test_compute_fans_follow_keras():
    assert I.compute_fans(()) == (1, 1)
    assert I.compute_fans((7,)) == (7, 7)
    assert I.compute_fans((3, 5)) == (3, 5)
    assert I.compute_fans((3, 3, 4, 8)) == (36, 72)
    assert I.compute_fans((2, 3, 4), input_axes=[0, 1], output_axes=[2]) == (6, 4)


def test_seed_changes_the_draw_and_key_decides_it(key):
    a = I.GlorotUniform()(key, (4, 4))
    np.testing.assert_array_equal(a, I.GlorotUniform()(key, (4, 4)))
    assert not np.array_equal(a, I.GlorotUniform(seed=1)(key, (4, 4)))
    assert not np.array_equal(a, I.GlorotUniform()(jax.random.PRNGKey(1), (4, 4)))
    with pytest.raises(ValueError, match="seed"):
        I.RandomNormal(seed="x")


def test_argument_validation():
    with pytest.raises(ValueError, match="positive"):
        I.VarianceScaling(scale=0.0)
    with pytest.raises(ValueError, match="mode"):
        I.VarianceScaling(mode="fan_sideways")
    with pytest.raises(ValueError, match="distribution"):
        I.VarianceScaling(distribution="cauchy")
    assert I.VarianceScaling(distribution="normal").distribution == "truncated_normal"


@pytest.mark.parametrize("init", [
    I.Zeros(), I.Ones(), I.Constant(2.5), I.Identity(0.5), I.RandomNormal(1.0, 0.2, seed=3),
    I.TruncatedNormal(stddev=0.3), I.RandomUniform(-1.0, 2.0), I.GlorotUniform(seed=4),
    I.GlorotNormal(), I.HeNormal(), I.HeUniform(), I.LecunNormal(), I.LecunUniform(),
    I.Orthogonal(gain=1.5), I.VarianceScaling(2.0, "fan_avg", "uniform", input_axes=[0],
                                              output_axes=[1]),
])
def test_config_round_trip_through_json(init, key):
    serialized = json.loads(json.dumps(I.serialize(init)))
    assert serialized["class_name"] == type(init).__name__
    clone = I.get(serialized)
    assert type(clone) is type(init) and clone.get_config() == init.get_config()
    assert clone == init
    np.testing.assert_array_equal(clone(key, (3, 3)), init(key, (3, 3)))


def test_get_accepts_numbers_arrays_classes_callables_and_rejects_junk(key):
    assert isinstance(I.get(3), I.Constant) and I.get(3).value == 3
    np.testing.assert_array_equal(I.get(np.arange(3.0))(key, (3,)), [0.0, 1.0, 2.0])
    with pytest.raises(ValueError, match="Expected `shape`"):
        I.get(np.arange(3.0))(key, (4,))
    assert type(I.get(I.HeNormal)) is I.HeNormal
    fn = jax.nn.initializers.normal(1.0)
    assert I.get(fn) is fn
    for junk in ["nope", {"config": {}}, {"class_name": "Nope"}, object()]:
        with pytest.raises(ValueError):
            I.get(junk)


def test_serialize_keeps_names_and_numbers():
    assert I.serialize("he_normal") == "he_normal"
    assert I.serialize(0.5) == 0.5
    assert I.serialize(None) is None
    with pytest.raises(ValueError, match="Cannot serialize"):
        I.serialize(jax.nn.initializers.normal(1.0))


def test_initializer_objects_in_layers_and_compiled_init():
    x = kg.Input(shape=(3,))
    dense = kg.layers.Dense(2, kernel_initializer=I.Constant(0.25), bias_initializer=I.Ones(),
                            name="d")
    model = kg.Model(x, dense(x))
    params, _ = compiler.compile(model).init(jax.random.PRNGKey(5))
    np.testing.assert_array_equal(params["d"]["kernel"], np.full((3, 2), 0.25))
    np.testing.assert_array_equal(params["d"]["bias"], np.ones(2))
    layer = kg.layers.LayerNormalization(gamma_initializer=I.RandomNormal(1.0, 0.1))
    assert layer.get_config()["gamma_initializer"]["class_name"] == "RandomNormal"
