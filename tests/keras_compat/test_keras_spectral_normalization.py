"""SpectralNormalization: Keras's weights (in Keras's order), numbers in fit, and files
both ways."""

import keras
import numpy as np
import pytest

import kgraph as kg

_rng = np.random.default_rng(0)


def _dense(lib):
    x = lib.Input((5,))
    h = lib.layers.SpectralNormalization(lib.layers.Dense(4, activation="tanh"),
                                         power_iterations=2, name="sn")(x)
    return lib.Model(x, lib.layers.Dense(3, name="out")(h)), (32, 5), (32, 3)


def _conv(lib):
    x = lib.Input((6, 6, 2))
    h = lib.layers.SpectralNormalization(lib.layers.Conv2D(3, 3), name="sn")(x)
    return lib.Model(x, lib.layers.GlobalAveragePooling2D(name="pool")(h)), (16, 6, 6, 2), (16, 3)


@pytest.mark.parametrize("build", [_dense, _conv])
def test_fit_matches_kerass_and_the_weights_line_up(build):
    theirs, x_shape, y_shape = build(keras)
    ours, _, _ = build(kg)
    assert [w.shape for w in ours.weights] == [tuple(w.shape) for w in theirs.weights]
    ours.set_weights(theirs.get_weights())
    x = _rng.normal(size=x_shape).astype("float32")
    y = _rng.normal(size=y_shape).astype("float32")
    start = theirs.get_weights()
    for model, lib in ((ours, kg), (theirs, keras)):
        model.compile(lib.optimizers.SGD(0.1), "mse")
        model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    for a, b, s in zip(ours.get_weights(), theirs.get_weights(), start):
        assert not np.allclose(a, s)  # every weight moved, vector_u by power iteration
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours.predict(x, verbose=0), theirs.predict(x, verbose=0),
                               rtol=1e-5, atol=1e-6)


def test_files_go_both_ways(tmp_path):
    theirs, x_shape, _ = _dense(keras)
    x = _rng.normal(size=x_shape).astype("float32")
    theirs.save(tmp_path / "k.keras")
    ours = kg.load_model(tmp_path / "k.keras")
    np.testing.assert_allclose(np.asarray(ours(x)), np.asarray(theirs(x)), rtol=1e-6)
    ours.save(tmp_path / "o.keras")
    back = keras.saving.load_model(tmp_path / "o.keras")
    for a, b in zip(back.get_weights(), theirs.get_weights()):
        np.testing.assert_array_equal(a, b)


def test_the_normalized_kernel_has_spectral_norm_one_and_bad_uses_are_refused():
    layer = kg.layers.SpectralNormalization(kg.layers.Dense(6), power_iterations=30)
    layer(np.ones((1, 4), "float32"))
    _, kernel = layer.normalized_weights(layer.kernel, layer.vector_u)
    assert np.linalg.svd(np.asarray(kernel), compute_uv=False)[0] == pytest.approx(1, rel=1e-4)
    zero = kg.layers.SpectralNormalization(kg.layers.Dense(2, kernel_initializer="zeros"))
    np.testing.assert_array_equal(np.asarray(zero(np.ones((1, 3), "float32"), training=True)),
                                  np.zeros((1, 2)))
    with pytest.raises(ValueError, match="greater than zero"):
        kg.layers.SpectralNormalization(kg.layers.Dense(2), power_iterations=0)
    with pytest.raises(ValueError, match="nor 'embeddings'"):
        kg.layers.SpectralNormalization(kg.layers.Dropout(0.1))(np.ones((1, 3), "float32"))
