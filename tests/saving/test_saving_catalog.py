"""Every layer of the catalog in a ``.keras`` file, both ways.

For each conformance case, a one-layer model with non-trivial weights is saved by kgraph:
loaded back by kgraph it is bitwise the same (weights and outputs); loaded by Keras 3 (its
default safe mode) it computes the same outputs; saved again by Keras and loaded by kgraph,
its weights are Keras's, bit for bit, and its outputs match Keras's to 1e-3 of their scale.
"""


import jax
import keras
import numpy as np
import pytest

import kgraph as kg
from tests.support import conformance as cf
from tests.support.layer_cases import all_cases

# Cases Keras cannot read, and why (kgraph still reads its own file back bitwise).
NOT_FOR_KERAS = {
    "dense_custom_callable": "a custom activation function",
    "activation_callable": "a custom activation function",
    "act_prelu_shared": "alpha_initializer given as a number, which Keras's PReLU refuses",
    "norm_batch_norm_axis_list": "Keras's BatchNormalization takes one axis",
    "rnn_custom_cell": "a custom cell class registered with kgraph only",
    "core2_einsum_dense_right_ellipsis": "Keras cannot build a bias over the ellipsis axes",
    "norm_rms_norm_axis1": "Keras's RMSNormalization scales the last axis whatever its axis",
}
# Cases whose file cannot be loaded at all, and the error that says why.
UNLOADABLE = {"core2_lambda_lambda_output_shape": "a Python lambda or a nested function"}


def _randomize(model, rng):
    """Distinct positive values in every floating weight (an order mix-up shows)."""
    for variable in model.weights:
        if np.issubdtype(variable.dtype, np.floating):
            variable.assign(rng.uniform(0.5, 1.5, variable.shape).astype(variable.dtype))


def _outputs(model, inputs):
    return [np.asarray(o, np.float64) for o in jax.tree_util.tree_leaves(model(inputs))]


def _assert_close(got, want, tolerance):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        scale = max(float(np.max(np.abs(w))) if w.size else 0.0, 1.0)
        assert float(np.max(np.abs(g - w))) / scale <= tolerance if w.size else True


def _custom_objects(model):
    """The test-defined classes and functions a case's model uses, by name."""
    found = {}
    stack = list(model.layers)
    while stack:
        layer = stack.pop()
        if kg.saving.registry.builtin_module(type(layer)) is None:
            found[type(layer).__name__] = type(layer)
        for attr in ("function", "activation"):
            fn = getattr(layer, attr, None)
            if callable(fn) and not isinstance(fn, type):
                found[getattr(fn, "__name__", "")] = fn
        stack.extend(layer._tracked_layers())
    return found


def _keras_can_read(case, layer):
    if case.name in NOT_FOR_KERAS or isinstance(layer, kg.layers.Lambda):
        return False  # Keras imports a Lambda's function from the module the file names
    return isinstance(getattr(keras.layers, type(layer).__name__, None), type)


CASES = [c for c in all_cases() if c.serializable]


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in CASES])
def test_layer_in_a_keras_file_both_ways(case, tmp_path, rng):
    layer, _, model = cf.build(case)
    _randomize(model, rng)
    inputs = cf.make_inputs(case)
    reference = _outputs(model, inputs)
    path = str(tmp_path / "model.keras")
    model.save(path)
    if case.name in UNLOADABLE:
        with pytest.raises(ValueError, match=UNLOADABLE[case.name]):
            kg.load_model(path, custom_objects=_custom_objects(model), safe_mode=False)
        return

    loaded = kg.load_model(path, custom_objects=_custom_objects(model), safe_mode=False)
    for a, b in zip(loaded.get_weights(), model.get_weights()):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    for a, b in zip(_outputs(loaded, inputs), reference):
        np.testing.assert_array_equal(a, b)

    if not _keras_can_read(case, layer):
        return
    keras_model = keras.saving.load_model(path)
    keras_outputs = _outputs(keras_model, inputs)
    _assert_close(keras_outputs, reference, 1e-4)

    keras_path = str(tmp_path / "keras.keras")
    keras_model.save(keras_path)
    imported = kg.load_model(keras_path)
    for a, b in zip(imported.get_weights(), keras_model.get_weights()):
        assert np.array_equal(np.asarray(a), np.asarray(b))
    _assert_close(_outputs(imported, inputs), keras_outputs, 1e-3)
