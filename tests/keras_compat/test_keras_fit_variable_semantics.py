"""Keras's variables compare elementwise (kgraph's stay hashable); during ``fit`` they hold no
value of their own (the running state does, as Keras's JAX fit); ``Callback._model`` is
the model; a ``DeviceMesh`` may name devices this process lacks until its JAX mesh is
asked for."""

import keras
import numpy as np
import pytest

import kgraph as kg


def _dense(lib):
    layer = lib.layers.Dense(2, kernel_initializer="ones")
    layer.build((None, 2))
    return layer


def test_variables_compare_elementwise_as_keras():
    for lib in (kg, keras):
        layer = _dense(lib)
        equal = np.asarray(layer.kernel == np.ones((2, 2), "float32"))
        assert equal.shape == (2, 2) and equal.all()
        assert not np.asarray(layer.bias != 0.0).any()
    layer = _dense(kg)  # (kgraph's stay hashable, by identity)
    assert len({*layer.weights, layer.weights[0]}) == 2


def test_variables_hold_no_value_during_fit_and_theirs_after():
    seen = []

    class Probe(kg.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            seen.append([v._value is None for v in self._model.trainable_variables])

    x = kg.Input(shape=(2,))
    model = kg.Model(x, kg.layers.Dense(1, kernel_initializer="ones")(x))
    model.compile(optimizer="sgd", loss="mse")
    model.fit(np.ones((4, 2)), np.zeros((4, 1)), batch_size=2, verbose=0,
              callbacks=[Probe()])
    assert seen and all(all(batch) for batch in seen)
    assert all(v._value is not None for v in model.trainable_variables)
    assert float(model.trainable_variables[0].numpy()[0, 0]) < 1.0  # trained


def test_a_device_mesh_is_made_before_its_devices_are_looked_up():
    mesh = kg.distribution.DeviceMesh((2,), ["batch"], ["cpu:0", "cpu:99"])
    assert mesh.devices.tolist() == ["cpu:0", "cpu:99"]
    with pytest.raises(ValueError, match="No device"):
        _ = mesh.backend_mesh


def test_weights_read_by_attribute_go_through_jit_one_after_another():
    import jax

    double = jax.jit(lambda weight: weight * 2)
    for layer in (_dense(kg), _dense(kg)):  # same shapes, other variables: a new trace
        np.testing.assert_allclose(np.asarray(double(layer.kernel)), 2.0)
