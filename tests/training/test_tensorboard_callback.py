"""The TensorBoard callback: Keras's run folders and tags, read back from the event files."""

import os
import struct
import sys

import numpy as np
import pytest

import kgraph as kg


def _events(folder):
    """(tag, step, value-or-histogram-count) from every event file in ``folder``."""
    from tensorboardX.proto import event_pb2

    found = []
    for name in sorted(os.listdir(folder)):
        data = open(os.path.join(folder, name), "rb").read()
        position = 0
        while position < len(data):
            (length,) = struct.unpack("<Q", data[position:position + 8])
            record = data[position + 12:position + 12 + length]
            position += 12 + length + 4
            event = event_pb2.Event.FromString(record)
            for value in event.summary.value:
                kind = value.simple_value if value.HasField("simple_value") else value.histo.num
                found.append((value.tag, event.step, kind))
    return found


def _model():
    x = kg.Input(shape=(3,))
    model = kg.Model(x, kg.layers.Dense(1, name="out")(x))
    model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
    return model


def test_scalars_histograms_and_runs_as_keras(tmp_path):
    data = np.ones((16, 3), np.float32), np.zeros((16, 1), np.float32)
    history = _model().fit(*data, epochs=2, batch_size=8, validation_data=data, verbose=0,
                           callbacks=[kg.callbacks.TensorBoard(tmp_path, histogram_freq=1,
                                                               update_freq="batch")])
    train = _events(tmp_path / "train")
    scalars = {(tag, step): value for tag, step, value in train if tag.startswith("epoch")}
    assert scalars[("epoch_loss", 1)] == pytest.approx(history.history["loss"][1], rel=1e-6)
    assert ("epoch_mae", 0) in scalars
    assert {step for tag, step, _ in train if tag == "batch_loss"} == {1, 2, 3, 4}
    assert {tag for tag, _, _ in train if "/" in tag} == {"out/kernel/histogram",
                                                          "out/bias/histogram"}
    validation = {(t, s): v for t, s, v in _events(tmp_path / "validation")}
    assert validation[("epoch_loss", 1)] == pytest.approx(history.history["val_loss"][1],
                                                          rel=1e-6)


def test_profile_batch_is_checked_and_needs_python_3_12():
    with pytest.raises(ValueError, match="profile_batch must be a non-negative integer"):
        kg.callbacks.TensorBoard(profile_batch=(3, 1))
    if sys.version_info < (3, 12):
        with pytest.warns(UserWarning, match="requires python >= 3.12"):
            assert not kg.callbacks.TensorBoard(profile_batch=2).uses_batch_hooks("train")
    assert not kg.callbacks.TensorBoard().uses_batch_hooks("train")


def test_non_finite_weights_are_said_and_left_out_of_histograms(tmp_path):
    model = _model()
    model.layers[-1].kernel.assign(np.array([[np.inf], [1.0], [2.0]], np.float32))
    board = kg.callbacks.TensorBoard(tmp_path, histogram_freq=1)
    board.set_model(model)
    with pytest.warns(RuntimeWarning, match="'out/kernel' has non-finite values at epoch 0"):
        board.on_epoch_end(0, {"loss": 1.0})
    board.on_train_end()
    counts = {tag: count for tag, _, count in _events(tmp_path / "train") if "/" in tag}
    assert counts == {"out/kernel/histogram": 2, "out/bias/histogram": 1}
