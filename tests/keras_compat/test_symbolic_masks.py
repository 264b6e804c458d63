"""Keras masks on symbolic tensors, with Keras 3 as the oracle (keras.io's masking guide).

A symbolic call's outputs carry ``_keras_mask`` (a boolean KerasTensor) as Keras's do, and
a layer's ``call`` receives its input's mask while its output shape is found, so a custom
layer that needs the mask can be used in a functional model.
"""

from __future__ import annotations

import keras
import numpy as np
import pytest

import kgraph as kg


def _mask_spec(tensor):
    mask = getattr(tensor, "_keras_mask", None)  # Keras: no attribute without a mask
    return None if mask is None else (tuple(mask.shape), str(np.dtype(mask.dtype)))


class _Split:
    """The guide's TemporalSplit: two outputs, each with its half of the mask."""

    @staticmethod
    def make(lib):
        class TemporalSplit(lib.layers.Layer):
            def call(self, inputs):
                return lib.ops.split(inputs, 2, axis=1)

            def compute_mask(self, inputs, mask=None):
                return None if mask is None else lib.ops.split(mask, 2, axis=1)
        return TemporalSplit(name="split")


def _pass_through(lib):
    class MyActivation(lib.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.supports_masking = True

        def call(self, inputs):
            return lib.ops.relu(inputs)
    return MyActivation(name="activation")


def _drops_mask(lib):
    class Plain(lib.layers.Layer):
        def call(self, inputs):
            return inputs * 2.0
    return Plain(name="plain")


def _masked_tensors(lib):
    """Named symbolic tensors built as the guide builds them."""
    tokens = lib.Input((6,), dtype="int32", name="tokens")
    embedded = lib.layers.Embedding(10, 4, mask_zero=True, name="embed")(tokens)
    floats = lib.Input((6, 3), name="floats")
    first, second = _Split.make(lib)(embedded)
    return {
        "input": tokens,
        "embedding": embedded,
        "masking": lib.layers.Masking(name="masking")(floats),
        "split_first": first,
        "split_second": second,
        "passed_through": _pass_through(lib)(embedded),
        "dropped": _drops_mask(lib)(embedded),
        "dense": lib.layers.Dense(2, name="dense")(embedded),
        "lstm_sequences": lib.layers.LSTM(3, return_sequences=True, name="lstm")(embedded),
        "lstm_last": lib.layers.LSTM(3, name="lstm_last")(embedded),
    }


@pytest.mark.parametrize("name", sorted(_masked_tensors(keras)))
def test_symbolic_outputs_carry_keras_masks(name):
    expected = _mask_spec(_masked_tensors(keras)[name])
    assert _mask_spec(_masked_tensors(kg)[name]) == expected


def _temporal_softmax(lib):
    class TemporalSoftmax(lib.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.supports_masking = True

        def call(self, inputs, mask=None):
            assert mask is not None, "call() got mask=None"
            weight = lib.ops.expand_dims(lib.ops.cast(mask, "float32"), -1)
            exp = lib.ops.exp(inputs) * weight
            return exp / lib.ops.sum(exp * weight, axis=-1, keepdims=True)
    return TemporalSoftmax(name="softmax")


def _softmax_model(lib):
    inputs = lib.Input((None,), dtype="int32", name="tokens")
    x = lib.layers.Embedding(10, 8, mask_zero=True, name="embed")(inputs)
    x = lib.layers.Dense(3, name="dense")(x)
    return lib.Model(inputs, _temporal_softmax(lib)(x), name="guide")


def test_call_gets_the_mask_while_built_and_run_as_keras():
    keras.utils.set_random_seed(2)
    theirs, ours = _softmax_model(keras), _softmax_model(kg)
    ours.set_weights([np.asarray(w) for w in theirs.get_weights()])
    tokens = np.random.default_rng(0).integers(0, 10, size=(4, 7)).astype("int32")
    tokens[:, -2:] = 0
    np.testing.assert_allclose(np.asarray(ours(tokens)), np.asarray(theirs(tokens)),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours.predict(tokens, verbose=0),
                               theirs.predict(tokens, verbose=0), rtol=1e-5, atol=1e-6)


def test_nested_model_outputs_carry_its_masks():
    """A nested model's outputs carry the masks its graph makes, the masks Keras's run
    gives them. (Keras's symbolic call leaves them off, so a layer after it would see
    ``mask=None`` while built and a mask when run; here it sees the mask in both.)"""
    inner_in = kg.Input((5,), dtype="int32")
    inner = kg.Model(inner_in, kg.layers.Embedding(9, 2, mask_zero=True)(inner_in))
    assert _mask_spec(inner(kg.Input((5,), dtype="int32"))) == ((None, 5), "bool")
    keras_in = keras.Input((5,), dtype="int32")
    keras_inner = keras.Model(keras_in, keras.layers.Embedding(9, 2, mask_zero=True)(keras_in))
    run = keras_inner(np.array([[1, 0, 2, 0, 3]], "int32"))
    assert keras.src.backend.get_keras_mask(run).shape == (1, 5)
