"""Output shapes by abstract evaluation of ``call``: None dims, caching, fallback."""

import gc

import jax.numpy as jnp
import numpy as np
import pytest

import kgraph as kg


class Doubler(kg.Layer):
    """No compute_output_shape: ``[x, 2x]`` on the last axis. Counts traces of ``call``."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.calls = []

    def call(self, inputs):
        self.calls.append(tuple(inputs.shape))
        return jnp.concatenate([inputs, inputs * 2], axis=-1)


def test_shapes_inferred_with_none_batch():
    layer = Doubler()
    y = layer(kg.Input(shape=(3,)))
    assert y.shape == (None, 6)
    assert y.dtype == jnp.float32
    assert layer(kg.Input(shape=(None, 3))).shape == (None, None, 6)
    assert layer(kg.Input(shape=(3,), batch_size=7)).shape == (7, 6)
    eager = layer(jnp.ones((2, 3)))
    assert eager.shape == (2, 6)


def test_derived_dimensions_are_unknown_and_dtypes_are_inferred():
    class Pairs(kg.Layer):
        def call(self, inputs):
            return inputs.reshape(-1, 2).astype(jnp.int32)

    layer = Pairs()
    y = layer(kg.Input(shape=(4,)))
    assert y.shape == (None, 2)  # 2 * batch is not a known size
    assert y.dtype == jnp.int32
    assert layer(kg.Input(shape=(4,), batch_size=3)).shape == (6, 2)
    assert layer(jnp.ones((3, 4))).shape == (6, 2)


def test_multiple_outputs_are_inferred():
    class Split(kg.Layer):
        def call(self, inputs):
            return inputs[:, :2], {"rest": inputs[:, 2:] * 3}

    head, tail = Split()(kg.Input(shape=(5,)))
    assert head.shape == (None, 2)
    assert tail["rest"].shape == (None, 3)
    assert head._keras_history.tensor_index == 0
    assert tail["rest"]._keras_history.tensor_index == 1


def test_shape_inference_is_cached_per_signature():
    layer = Doubler()
    for _ in range(4):
        assert layer(kg.Input(shape=(3,))).shape == (None, 6)
    assert len(layer.calls) == 1  # traced once for four same-shaped symbolic calls
    layer(kg.Input(shape=(5,)))
    layer(kg.Input(shape=(3,)))
    assert len(layer.calls) == 2  # a new signature traces once more, the old one is cached
    layer(kg.Input(shape=(3,), dtype="float16"))
    assert len(layer.calls) == 3  # dtype is part of the signature


def test_symbolic_trace_sees_symbolic_batch_not_a_number():
    layer = Doubler()
    layer(kg.Input(shape=(3,)))
    (batch, features), = layer.calls
    assert features == 3
    assert not isinstance(batch, int)  # one trace covers every batch size


def test_python_control_flow_on_shapes_falls_back():
    class Branchy(kg.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.calls = 0

        def call(self, inputs):
            self.calls += 1
            if inputs.shape[0] > 1:  # undecidable for a symbolic batch size
                return inputs[:, :2]
            return inputs

    layer = Branchy()
    y = layer(kg.Input(shape=(4,)))
    assert y.shape == (None, 2)
    assert layer.calls == 3  # symbolic attempt, then two concrete sizes
    layer(kg.Input(shape=(4,)))
    assert layer.calls == 3  # cached like any other result
    assert layer(jnp.ones((3, 4))).shape == (3, 2)


def test_fallback_keeps_only_dimensions_that_agree():
    class ZerosLikeBatch(kg.Layer):
        def call(self, inputs):
            n = int(inputs.shape[0])  # needs a concrete size
            return jnp.zeros((n, 3)) + inputs[:, :1]

    assert ZerosLikeBatch()(kg.Input(shape=(4,))).shape == (None, 3)
    assert ZerosLikeBatch()(kg.Input(shape=(4,), batch_size=7)).shape == (7, 3)


def test_compute_output_shape_fast_path_skips_tracing():
    class Fast(Doubler):
        def compute_output_shape(self, input_shape):
            return tuple(input_shape[:-1]) + (2 * input_shape[-1],)

    layer = Fast()
    assert layer(kg.Input(shape=(3,))).shape == (None, 6)
    assert layer.calls == []


def test_failure_names_layer_and_input_shapes():
    class Broken(kg.Layer):
        def call(self, inputs):
            raise ValueError("this layer cannot run")

    with pytest.raises(ValueError, match=r'Layer "broken" \(Broken\) failed while computing '
                                         r"its output shape for input shapes \[\(None, 3\)\]"):
        Broken()(kg.Input(shape=(3,)))


def test_constant_array_operands_are_never_confused():
    # Regression: inference used to be cached by id() of a constant array; once the array
    # was freed a new one could get its id and the stale shape was returned.
    gc.freeze()  # collect only what this test makes: a full collection of a long run's heap
    try:         # takes seconds
        for i in (0, 1, 4, 5):  # numpy, then jax constants; each freed before the next
            x = kg.Input(shape=(3,))
            w = np.ones((3, 2 + i % 4), np.float32) if i < 4 else jnp.ones((3, 2 + i % 4))
            y = x @ w
            assert y.shape == (None, 2 + i % 4)
            del x, w, y
            gc.collect()
    finally:
        gc.unfreeze()
