"""A weight read through a layer attribute by user code is Keras's variable, with Keras 3
as the oracle: it is assigned in ``call`` (keras.io's ``ComputeSum``, pixelcnn's kernel
masked in place each call), computes as an array, and keeps the variable's API."""

from __future__ import annotations

import jax.numpy as jnp
import keras
import numpy as np
import pytest

import kgraph as kg


def _compute_sum(lib):
    class ComputeSum(lib.layers.Layer):
        def __init__(self, input_dim):
            super().__init__(name="compute_sum")
            self.total = self.add_weight(initializer="zeros", shape=(input_dim,),
                                         trainable=False)

        def call(self, inputs):
            self.total.assign_add(lib.ops.sum(inputs, axis=0))
            return self.total
    return ComputeSum(2)


def test_non_trainable_weight_assigned_in_eager_calls_as_keras():
    results = []
    for lib in (keras, kg):
        layer = _compute_sum(lib)
        first = np.asarray(layer(np.ones((2, 2), np.float32)))
        second = np.asarray(layer(np.ones((2, 2), np.float32)))
        results.append((first, second, layer.total.numpy(), len(layer.weights),
                        len(layer.non_trainable_weights)))
    for a, b in zip(*results):
        np.testing.assert_array_equal(b, a)


def _masked_conv(lib):
    class MaskedConv(lib.layers.Layer):
        """pixelcnn's PixelConvLayer: the inner kernel masked in place each call."""

        def __init__(self, **kwargs):
            super().__init__(name="masked")
            self.conv = lib.layers.Conv2D(**kwargs, name="conv")

        def build(self, input_shape):
            self.conv.build(input_shape)
            shape = lib.ops.shape(self.conv.kernel)
            self.mask = np.zeros(shape)
            self.mask[: shape[0] // 2, ...] = 1.0
            self.mask[shape[0] // 2, : shape[1] // 2, ...] = 1.0

        def call(self, inputs):
            self.conv.kernel.assign(self.conv.kernel * self.mask)
            return self.conv(inputs)

    inputs = lib.Input((6, 6, 1))
    x = MaskedConv(filters=2, kernel_size=3, padding="same")(inputs)
    return lib.Model(inputs, lib.layers.Dense(1, name="out")(lib.layers.Flatten()(x)))


@pytest.mark.parametrize("rows", [16, 20])
def test_trainable_kernel_masked_in_call_trains_as_keras(rows):
    images = np.random.default_rng(3).normal(size=(rows, 6, 6, 1)).astype(np.float32)
    targets = images.reshape(rows, -1).sum(axis=1, keepdims=True)
    keras.utils.set_random_seed(8)
    theirs, ours = _masked_conv(keras), _masked_conv(kg)
    ours.set_weights([np.asarray(w) for w in theirs.get_weights()])
    np.testing.assert_allclose(np.asarray(ours(images)), np.asarray(theirs(images)),
                               rtol=1e-5, atol=1e-6)
    runs = []
    for model in (theirs, ours):
        model.compile(optimizer="sgd", loss="mse")
        history = model.fit(images, targets, batch_size=8, epochs=2, shuffle=False,
                            verbose=0).history
        runs.append((history["loss"], model.evaluate(images, targets, verbose=0),
                     [np.asarray(w) for w in model.get_weights()]))
    np.testing.assert_allclose(runs[1][0], runs[0][0], rtol=1e-5)
    np.testing.assert_allclose(runs[1][1], runs[0][1], rtol=1e-5)
    for a, b in zip(runs[0][2], runs[1][2], strict=True):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


class _Linear:
    @staticmethod
    def make(lib):
        class Linear(lib.layers.Layer):
            def build(self, input_shape):
                self.w = self.add_weight(shape=(input_shape[-1], 3), initializer="ones",
                                         name="w")

            def call(self, x):
                return lib.ops.matmul(x, self.w) + self.w[0] * 2.0 - 1.0
        return Linear(name="linear")


def test_attribute_weight_has_keras_variable_api():
    features = np.arange(4, dtype=np.float32).reshape(2, 2)
    views = []
    for lib in (keras, kg):
        layer = _Linear.make(lib)
        out = np.asarray(layer(features))
        layer.w.assign(np.full((2, 3), 2.0, np.float32))
        views.append((out, np.asarray(layer(features)), layer.w.path, layer.w.trainable,
                      tuple(layer.w.shape), str(np.dtype(layer.w.dtype)), layer.w.numpy(),
                      np.asarray(layer.w)))
    for a, b in zip(*views):
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(b, a)
        else:
            assert b == a


def test_attribute_weight_computes_with_jax_numpy():
    """Beyond Keras (whose variables JAX refuses): ``jnp`` functions and ``jit`` take it."""
    layer = _Linear.make(kg)
    layer(np.ones((1, 2), np.float32))
    np.testing.assert_array_equal(jnp.matmul(np.ones((1, 2), np.float32), layer.w),
                                  [[2.0, 2.0, 2.0]])
    np.testing.assert_array_equal(np.ones((1, 2), np.float32) @ layer.w, [[2.0, 2.0, 2.0]])
