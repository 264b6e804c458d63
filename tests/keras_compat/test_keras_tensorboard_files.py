"""What the TensorBoard callback writes, with Keras 3 as the oracle: Keras's callback runs
with a recording stand-in for TensorFlow's ``tf.summary`` (what it would write: run, kind,
tag, step, value), kgraph's event files are read back. For a fit with histograms, weight
images, batch scalars and steps per second (the same weights in both), the same summaries
at the same steps with the same values (losses, learning rates, the evaluations stepped by
the optimizer's iterations, histogram counts, image shapes); and, for embeddings, weights
files Keras loads."""

from __future__ import annotations

import contextlib
import io
import os
import struct

import keras
import numpy as np
from PIL import Image

import kgraph as kg

TIMINGS = ("epoch_steps_per_second", "batch_steps_per_second")  # values are times


class _Recorder:
    """``tf.summary`` as Keras's TensorBoard uses it, recording instead of writing."""

    def __init__(self, log_dir):
        self.log_dir, self.records, self._defaults, self._conditions = log_dir, {}, [], []

    def create_file_writer(self, folder):
        recorder = self

        class Writer:
            run = os.path.relpath(folder, recorder.log_dir)

            @contextlib.contextmanager
            def as_default(self, step=None):
                recorder._defaults.append((self, step))
                try:
                    yield self
                finally:
                    recorder._defaults.pop()

            def flush(self):
                pass

            def close(self):
                pass

        return Writer()

    @contextlib.contextmanager
    def record_if(self, condition):
        self._conditions.append(condition)
        try:
            yield
        finally:
            self._conditions.pop()

    def _add(self, kind, name, data, step):
        if not self._defaults or not all(c() for c in self._conditions):
            return  # TensorFlow writes nothing without a default writer
        writer, default_step = self._defaults[-1]
        step = int(np.asarray(default_step if step is None else step))
        self.records[(writer.run, kind, name, step)] = np.asarray(data)

    def scalar(self, name, data, step=None):
        self._add("scalars", name, data, step)

    def histogram(self, name, data, step=None):
        self._add("histograms", name, data, step)

    def image(self, name, data, step=None, max_outputs=3):
        self._add("images", name, data, step)


def _keras_summaries(board):
    board._summary_module = _Recorder(board.log_dir)
    return board._summary_module


def _kgraph_summaries(folder) -> dict:
    """(run, kind, tag, step) -> value of every summary in the event files under ``folder``."""
    from tensorboardX.proto import event_pb2

    found = {}
    for where, _, names in os.walk(folder):
        for name in (n for n in names if n.startswith("events.out.")):
            data = open(os.path.join(where, name), "rb").read()
            position = 0
            while position < len(data):
                (length,) = struct.unpack("<Q", data[position:position + 8])
                event = event_pb2.Event.FromString(data[position + 12:position + 12 + length])
                position += 12 + length + 4
                for value in event.summary.value:
                    kind = value.WhichOneof("value")
                    item = {"simple_value": lambda: value.simple_value,
                            "histo": lambda: value.histo.num,
                            "image": lambda: np.asarray(Image.open(io.BytesIO(
                                value.image.encoded_image_string)))}[kind]()
                    kind = {"simple_value": "scalars", "histo": "histograms",
                            "image": "images"}[kind]
                    found[(os.path.relpath(where, folder), kind, value.tag, event.step)] = item
    return found


def _model(lib):
    model = lib.Sequential([lib.layers.Input((4, 4, 1)), lib.layers.Conv2D(2, 2, name="conv"),
                            lib.layers.Flatten(name="flat"), lib.layers.Dense(1, name="out")],
                           name="model")  # (tags hold it: not a name that counts models)
    model.compile(optimizer=lib.optimizers.SGD(lib.optimizers.schedules.ExponentialDecay(
        0.01, 2, 0.5)), loss="mse")
    return model


def test_summaries_as_keras(tmp_path):
    rng = np.random.default_rng(0)
    x, y = rng.random((8, 4, 4, 1)).astype("float32"), rng.random((8, 1)).astype("float32")
    arguments = dict(histogram_freq=1, write_images=True, update_freq=2,
                     write_steps_per_second=True, write_graph=False)
    theirs_model = _model(keras)
    theirs_board = keras.callbacks.TensorBoard(os.fspath(tmp_path / "keras"), **arguments)
    recorded = _keras_summaries(theirs_board)
    ours_model = _model(kg)
    ours_model.set_weights(theirs_model.get_weights())
    ours_board = kg.callbacks.TensorBoard(os.fspath(tmp_path / "kgraph"), **arguments)
    for model, board in ((theirs_model, theirs_board), (ours_model, ours_board)):
        model.fit(x, y, batch_size=2, epochs=2, validation_data=(x, y), callbacks=[board],
                  shuffle=False, verbose=0)
    theirs, ours = recorded.records, _kgraph_summaries(tmp_path / "kgraph")
    assert sorted(ours) == sorted(theirs)
    for key, value in theirs.items():
        run, kind, tag, step = key
        if kind == "scalars" and tag not in TIMINGS:
            np.testing.assert_allclose(ours[key], value, rtol=1e-5, err_msg=str(key))
        elif kind == "histograms":
            assert ours[key] == value.size, key
        elif kind == "images":  # tensorboardX tiles a batch of images into one
            assert ours[key].shape[:2] == _tiled(value.shape), key


def _tiled(shape):
    """The (height, width) of tensorboardX's grid of ``shape`` (n, h, w, c) images: up to 8
    a row, side by side."""
    n, height, width = shape[:3]
    per_row = min(n, 8)
    return -(-n // per_row) * height, per_row * width


def test_embeddings_weights_files_load_into_keras(tmp_path):
    def model(lib):
        made = lib.Sequential([lib.layers.Input((3,)), lib.layers.Embedding(5, 2, name="emb"),
                               lib.layers.Flatten(), lib.layers.Dense(1, name="out")])
        made.compile(optimizer="sgd", loss="mse")
        return made

    ours = model(kg)
    board = kg.callbacks.TensorBoard(os.fspath(tmp_path), embeddings_freq=1,
                                     embeddings_metadata="words.tsv")
    x = np.random.default_rng(0).integers(0, 5, (4, 3))
    ours.fit(x, np.zeros((4, 1)), epochs=2, callbacks=[board], verbose=0)
    files = sorted(n for n in os.listdir(tmp_path / "train") if n.endswith(".h5"))
    assert files == ["keras_embedding.ckpt-0.weights.h5", "keras_embedding.ckpt-1.weights.h5"]
    theirs = model(keras)
    theirs.load_weights(tmp_path / "train" / files[-1])
    np.testing.assert_array_equal(theirs.get_layer("emb").embeddings.numpy(),
                                  np.asarray(ours.get_layer("emb").embeddings))
