"""Node hooks (capture of intermediates) and Keras mask propagation through graphs."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import compiler
import kgraph as kg
from kgraph import layers
from kgraph.interpreter.walk import NodeHook
from tests.support.helpers import MakeMask, MaskedSum


def _nested_model():
    a = kg.Input(shape=(2,), name="a")
    inner = kg.Model(a, layers.Dense(3, name="dense")(a), name="inner")
    x = kg.Input(shape=(2,), name="x")
    h = layers.Dense(2, name="hidden")(x)
    return kg.Model(x, layers.Dense(1, name="out")(inner(h)), name="outer")


def test_capture_returns_intermediates_by_path_including_nested():
    model = _nested_model()
    program = compiler.compile(model)
    params, state = compiler.variables(model)
    data = np.ones((4, 2), np.float32)
    out, _, captured = program.apply(params, state, data, capture=["hidden", "inner/dense"])
    hidden = model.get_layer("hidden")(data)
    np.testing.assert_allclose(captured["hidden"], hidden, rtol=1e-6)
    np.testing.assert_allclose(captured["inner/dense"],
                               model.get_layer("inner").get_layer("dense")(hidden), rtol=1e-6)
    _, _, everything = jax.jit(lambda p, s, d: program.apply(p, s, d, capture=True))(
        params, state, data)
    assert set(everything) == {"hidden", "inner", "inner/dense", "out"}
    with pytest.raises(ValueError, match="no layer at path"):
        program.apply(params, state, data, capture=["nope"])


def test_hooks_see_every_node_and_may_replace_outputs():
    class ZeroHidden(NodeHook):
        def __init__(self):
            self.before, self.after = [], []

        def before_node(self, node, path, args, kwargs):
            self.before.append(path)

        def after_node(self, node, path, args, kwargs, outputs):
            self.after.append(path)
            return jnp.zeros_like(outputs) if path == "hidden" else None

    model = _nested_model()
    program = compiler.compile(model)
    params, state = compiler.variables(model)
    hook = ZeroHidden()
    out, _ = program.apply(params, state, np.ones((2, 2), np.float32), hooks=[hook])
    assert hook.before == ["hidden", "inner", "inner/dense", "out"]
    assert hook.after == ["hidden", "inner/dense", "inner", "out"]  # a model ends after its nodes
    expected = model.get_layer("out")(model.get_layer("inner")(np.zeros((2, 2), np.float32)))
    np.testing.assert_allclose(out, expected, rtol=1e-6)


class PassThrough(kg.Layer):
    supports_masking = True

    def call(self, inputs):
        return inputs * 2.0


def test_masks_flow_through_graphs_and_nested_models():
    seq = kg.Input(shape=(4, 2))
    inner = kg.Model(seq, PassThrough()(MakeMask()(seq)), name="masker")
    x = kg.Input(shape=(4, 2))
    model = kg.Model(x, MaskedSum(name="sum")(inner(x)))
    data = np.ones((1, 4, 2), np.float32)
    data[0, 1:3, 0] = 0.0  # steps 1 and 2 are masked
    expected = 2.0 * data[:, [0, 3]].sum(axis=1)
    np.testing.assert_allclose(model(data), expected)
    program = compiler.compile(model)
    out, _ = jax.jit(program.apply)(*compiler.variables(model), data)
    np.testing.assert_allclose(out, expected)


class Project(kg.Layer):
    """Sums the features into both outputs; no ``supports_masking``."""

    def call(self, inputs):
        return inputs @ jnp.ones((inputs.shape[-1], 2), inputs.dtype)


def test_a_layer_without_mask_support_drops_the_mask():
    x = kg.Input(shape=(4, 2))
    model = kg.Model(x, MaskedSum()(Project()(MakeMask()(x))))
    data = np.ones((1, 4, 2), np.float32)
    data[0, 0, 0] = 0.0
    np.testing.assert_allclose(model(data), (data @ np.ones((2, 2))).sum(axis=1))


def test_dense_passes_a_sequence_mask_through_as_keras():
    x = kg.Input(shape=(4, 2))
    h = layers.Dense(2, kernel_initializer="ones", use_bias=False)(MakeMask()(x))
    model = kg.Model(x, MaskedSum()(h))
    data = np.ones((1, 4, 2), np.float32)
    data[0, 0, 0] = 0.0
    np.testing.assert_allclose(model(data), (data[:, 1:] @ np.ones((2, 2))).sum(axis=1))


def test_explicit_mask_in_eager_calls():
    data = np.ones((1, 3, 2), np.float32)
    mask = np.array([[True, False, True]])
    np.testing.assert_allclose(MaskedSum()(data, mask=mask), [[2.0, 2.0]])
