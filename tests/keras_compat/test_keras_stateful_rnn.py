"""Stateful recurrent layers (``stateful=True``) against Keras 3, weights copied from Keras:
streaming over chunks in eager calls (``SimpleRNN``, ``LSTM``, ``GRU``, stacked cells,
``Bidirectional``, ``ConvLSTM1D``, with masks), ``reset_state`` / ``reset_states``, how the
state variables are listed (not weights, not saved: Keras's files both ways), Keras's
errors, a functional model's ``predict`` and its compiled program streaming as Keras's
eager model calls do, and ``predict`` / ``evaluate`` / ``fit`` (with validation) against
Keras's numbers recorded on TensorFlow (``stateful_rnn_oracle.json``: on JAX, Keras's
compiled steps drop the states, see ``tests/support/record_stateful_rnn_oracle.py``)."""

import json
import os

import h5py
import jax
import keras
import numpy as np
import pytest

import compiler
import kgraph as kg
from tests.support import record_stateful_rnn_oracle as oracle

RNG = np.random.default_rng(0)
CHUNKS = RNG.normal(size=(3, 2, 4, 3)).astype("float32")  # three chunks of a (2, 12, 3) stream


def _same(ours, theirs, rtol=1e-5):
    ours, theirs = jax.tree_util.tree_leaves(ours), jax.tree_util.tree_leaves(theirs)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=1e-6)


def _layer_pair(make, shape=(2, 4, 3)):
    theirs, ours = make(keras), make(kg)
    theirs.build(shape)
    ours.build(shape)
    ours.set_weights(theirs.get_weights())
    return ours, theirs


def _stream(layer, chunks, **kwargs):
    return [layer(chunk, **kwargs) for chunk in chunks]


@pytest.mark.parametrize("name", ["SimpleRNN", "LSTM", "GRU"])
@pytest.mark.parametrize("return_sequences", [False, True])
@pytest.mark.parametrize("return_state", [False, True])
def test_stateful_layers_stream_and_reset_as_keras(name, return_sequences, return_state):
    ours, theirs = _layer_pair(lambda lib: getattr(lib.layers, name)(
        5, stateful=True, return_sequences=return_sequences, return_state=return_state))
    _same(_stream(ours, CHUNKS), _stream(theirs, CHUNKS))
    _same([v.numpy() for v in ours.states], [v.numpy() for v in theirs.states])
    theirs.reset_states()
    ours.reset_states()
    _same([v.numpy() for v in ours.states], [v.numpy() for v in theirs.states])
    _same(_stream(ours, CHUNKS[:2]), _stream(theirs, CHUNKS[:2]))
    theirs.reset_state()
    ours.reset_state()
    _same(ours(CHUNKS[2]), theirs(CHUNKS[2]))
    # an explicit initial state replaces the kept one, and the final states are kept
    initial = [np.full((2, 5), 0.3, "float32")] * len(ours.states)
    _same(ours(CHUNKS[0], initial_state=initial), theirs(CHUNKS[0], initial_state=initial))
    _same(ours(CHUNKS[1]), theirs(CHUNKS[1]))


def test_stateful_layers_stream_with_masks_as_keras():
    masks = RNG.uniform(size=(3, 2, 4)) > 0.4
    ours, theirs = _layer_pair(lambda lib: lib.layers.LSTM(3, stateful=True,
                                                           return_sequences=True))
    _same([ours(c, mask=m) for c, m in zip(CHUNKS, masks)],
          [theirs(c, mask=m) for c, m in zip(CHUNKS, masks)])

    def stacked(lib):
        return lib.layers.RNN([lib.layers.LSTMCell(3), lib.layers.GRUCell(2)], stateful=True,
                              return_state=True)

    ours, theirs = _layer_pair(stacked)
    _same([ours(c, mask=m) for c, m in zip(CHUNKS, masks)],
          [theirs(c, mask=m) for c, m in zip(CHUNKS, masks)])


def test_stateful_bidirectional_and_conv_lstm_stream_and_reset_as_keras():
    ours, theirs = _layer_pair(lambda lib: lib.layers.Bidirectional(
        lib.layers.GRU(3, stateful=True, return_sequences=True)))
    _same(_stream(ours, CHUNKS), _stream(theirs, CHUNKS))
    assert len(ours.states) == len(theirs.states) == 2
    ours.reset_states()
    theirs.reset_states()
    _same(ours(CHUNKS[1]), theirs(CHUNKS[1]))
    frames = RNG.normal(size=(3, 2, 3, 5, 2)).astype("float32")
    ours, theirs = _layer_pair(lambda lib: lib.layers.ConvLSTM1D(
        2, 3, stateful=True, return_state=True), shape=(2, 3, 5, 2))
    _same(_stream(ours, frames), _stream(theirs, frames))
    ours.reset_state()
    theirs.reset_state()
    _same(ours(frames[0]), theirs(frames[0]))


def _model(lib):
    inputs = lib.Input(batch_shape=(2, 4, 3))
    h = lib.layers.LSTM(4, stateful=True, return_sequences=True, name="lstm")(inputs)
    h = lib.layers.GRU(3, stateful=True, name="gru")(h)
    return lib.Model(inputs, lib.layers.Dense(1, name="out")(h))


def _model_pair():
    theirs, ours = _model(keras), _model(kg)
    ours.set_weights(theirs.get_weights())
    return ours, theirs


def _states(model):
    return [v.numpy() for name in ("lstm", "gru") for v in model.get_layer(name).states]


def test_state_variables_are_listed_as_keras():
    ours, theirs = _model_pair()
    for attribute in ("weights", "trainable_weights", "non_trainable_weights", "variables"):
        # (the variables list the cells' dropout seed generators' states, as Keras's)
        assert ([(v.name, tuple(v.shape)) for v in getattr(ours, attribute)]
                == [(v.name, tuple(v.shape)) for v in getattr(theirs, attribute)]), attribute
    assert ours.count_params() == theirs.count_params()
    assert len(ours.get_weights()) == len(theirs.get_weights())
    for name in ("lstm", "gru"):
        ours_layer, theirs_layer = ours.get_layer(name), theirs.get_layer(name)
        assert [v.shape for v in ours_layer.states] == [v.shape for v in theirs_layer.states]
        assert all(not v.trainable for v in ours_layer.states)
        assert ours_layer.get_config()["stateful"] is theirs_layer.get_config()["stateful"]
    assert hasattr(kg.Model, "reset_states") == hasattr(keras.Model, "reset_states")
    assert kg.layers.LSTM(2).states is keras.layers.LSTM(2).states is None


def test_stateful_errors_as_keras():
    for lib in (keras, kg):
        with pytest.raises(ValueError, match="batch size must be static"):
            lib.layers.LSTM(3, stateful=True)(lib.Input(shape=(4, 3)))
        layer = lib.layers.GRU(3, stateful=True)
        layer(CHUNKS[0])
        with pytest.raises(ValueError, match="(?s)Expected batch size: 2.*Received batch "
                                             "size: 1"):
            layer(CHUNKS[0][:1])
        with pytest.raises(AttributeError, match="stateful"):
            lib.layers.Bidirectional(lib.layers.GRU(3)).reset_states()


def test_model_calls_predict_and_compiled_program_stream_as_keras():
    ours, theirs = _model_pair()
    expected = _stream(theirs, CHUNKS)  # Keras's eager model calls carry the states
    expected_states = _states(theirs)
    _same(_stream(ours, CHUNKS), expected)
    _same(_states(ours), expected_states)
    for name in ("lstm", "gru"):
        ours.get_layer(name).reset_states()
    # predict over the three chunks as batches, then the compiled program chunk by chunk
    _same(ours.predict(CHUNKS.reshape(6, 4, 3), batch_size=2, verbose=0),
          np.concatenate(expected))
    _same(_states(ours), expected_states)
    program = compiler.compile(ours)
    params, state = program.init(jax.random.PRNGKey(0))
    params = compiler.variables(ours)[0]
    state = jax.tree_util.tree_map(np.zeros_like, state)
    outputs = []
    for chunk in CHUNKS:
        out, state = jax.jit(program.apply)(params, state, chunk)
        outputs.append(out)
    _same(outputs, expected)
    _same([state["lstm"]["rnn_state"], state["lstm"]["rnn_state_1"], state["gru"]["rnn_state"]],
          expected_states)


def test_predict_evaluate_and_fit_match_keras_recorded_on_tensorflow():
    with open(os.path.join(os.path.dirname(__file__), "stateful_rnn_oracle.json")) as f:
        expected = json.load(f)
    got = oracle.record(lambda: oracle.build(kg))

    def close(key, ours, theirs):  # weights and states are lists of arrays
        pairs = [(ours, theirs)]
        if "states" in key or "weights" in key:
            assert len(ours) == len(theirs), key
            pairs = zip(ours, theirs)
        for a, b in pairs:
            np.testing.assert_allclose(np.asarray(a, "float64"), np.asarray(b), rtol=1e-5,
                                       atol=1e-6, err_msg=key)

    for key in ("predict", "states_after_predict", "evaluate", "states_after_evaluate"):
        close(key, got[key], expected[key])
    for run in ("fit", "fit_with_validation"):
        for key, value in expected[run].items():
            close(f"{run}/{key}", got[run][key], value)
    # the predict part is also what Keras on JAX streams in eager calls
    x = oracle.data()[0]
    model = oracle.build(keras)
    _same(np.concatenate([model(x[i:i + 2]) for i in range(0, 6, 2)]),
          np.asarray(expected["predict"]))


def _h5_layout(path):
    with h5py.File(path) as f:
        found = []
        f.visititems(lambda name, obj: found.append(
            (name, getattr(obj, "shape", None))))
        return found


@pytest.mark.parametrize("direction", ["kgraph_to_keras", "keras_to_kgraph"])
def test_files_hold_no_states_and_load_both_ways(direction, tmp_path):
    ours, theirs = _model_pair()
    _stream(ours, CHUNKS[:2])  # states that files must not hold
    _stream(theirs, CHUNKS[:2])
    source, target_lib = (ours, keras) if direction == "kgraph_to_keras" else (theirs, kg)
    source.save(tmp_path / "m.keras")
    source.save_weights(tmp_path / "m.weights.h5")
    (ours if source is theirs else theirs).save_weights(tmp_path / "other.weights.h5")
    assert _h5_layout(tmp_path / "m.weights.h5") == _h5_layout(tmp_path / "other.weights.h5")
    loaded = target_lib.saving.load_model(tmp_path / "m.keras")
    fresh = _model(target_lib)
    fresh.load_weights(tmp_path / "m.weights.h5")
    reference = _model(keras)
    reference.set_weights(source.get_weights())
    expected = _stream(reference, CHUNKS)  # from zero states
    _same(_stream(loaded, CHUNKS), expected)
    _same(_stream(fresh, CHUNKS), expected)
