"""``TensorBoard``: epoch (and batch) logs as TensorBoard scalars, weight histograms, as
Keras 3 lays them out (``log_dir/train`` and ``log_dir/validation``, tags ``epoch_loss``,
``epoch_accuracy``, ``batch_loss`` ...). Event files are written with ``tensorboardX``
(a small, well-kept writer of TensorBoard's format): ``pip install kgraph[tensorboard]``.
"""

from __future__ import annotations

import os

import numpy as np

from kgraph.callbacks.callback import Callback

__all__ = ["TensorBoard"]


def _writer(folder):
    try:
        from tensorboardX import SummaryWriter
    except ImportError as error:
        raise ImportError("The TensorBoard callback writes event files with tensorboardX: "
                          "install it with `pip install tensorboardX` (or the extra "
                          "`pip install kgraph[tensorboard]`).") from error
    return SummaryWriter(folder)


class TensorBoard(Callback):
    """Write logs for TensorBoard (Keras's arguments).

    Args:
      log_dir: the folder; runs go to ``log_dir/train`` and ``log_dir/validation``.
      histogram_freq: every this many epochs, histograms of every weight (0: never).
      write_graph: accepted as Keras (its default is True); a compiled JAX program has no
        TensorFlow graph to draw. ``write_images=True`` is an error: weights are not
        written as images (histograms show them).
      write_steps_per_second: also log ``epoch_steps_per_second``.
      update_freq: "epoch", or "batch" / an integer n: also ``batch_*`` scalars every n
        batches.
      profile_batch, embeddings_freq, embeddings_metadata: profiling and embeddings are not
        supported (0 / None only).
    """

    def __init__(self, log_dir="logs", histogram_freq=0, write_graph=True, write_images=False,
                 write_steps_per_second=False, update_freq="epoch", profile_batch=0,
                 embeddings_freq=0, embeddings_metadata=None):
        super().__init__()
        if profile_batch:
            raise ValueError("TensorBoard(profile_batch=...) is not supported; profile with "
                             "jax.profiler.trace(log_dir) around the steps you want.")
        if embeddings_freq or embeddings_metadata:
            raise ValueError("TensorBoard embeddings are not supported (embeddings_freq=0).")
        if update_freq != "epoch" and update_freq != "batch" and not (
                isinstance(update_freq, int) and update_freq > 0):
            raise ValueError(f"Unrecognized update_freq: {update_freq!r}")
        if write_images:
            raise ValueError("TensorBoard(write_images=True) is not supported; histograms "
                             "(histogram_freq) show the weights.")
        self.log_dir = os.fspath(log_dir)
        self.histogram_freq, self.write_graph = histogram_freq, write_graph
        self.write_images, self.write_steps_per_second = write_images, write_steps_per_second
        self.update_freq = 1 if update_freq == "batch" else update_freq
        self._writers = {}
        self._global_batch = 0
        self._epoch_start = None

    def _get(self, run):
        if run not in self._writers:
            self._writers[run] = _writer(os.path.join(self.log_dir, run))
        return self._writers[run]

    def uses_batch_hooks(self, mode="train"):
        """Batch hooks only for ``update_freq`` other than "epoch" (so fit runs free)."""
        return mode == "train" and self.update_freq != "epoch"

    def on_train_begin(self, logs=None):
        self._global_batch = 0

    def on_epoch_begin(self, epoch, logs=None):
        import time

        self._epoch_start = time.perf_counter()
        self._epoch_batches = 0

    def on_train_batch_end(self, batch, logs=None):
        self._global_batch += 1
        self._epoch_batches = batch + 1
        if self.update_freq == "epoch" or self._global_batch % self.update_freq:
            return
        writer = self._get("train")
        for name, value in (logs or {}).items():
            _add_scalars(writer, f"batch_{name}", value, self._global_batch)

    def on_epoch_end(self, epoch, logs=None):
        import time

        logs = dict(logs or {})
        train, validation = self._get("train"), None
        for name, value in logs.items():
            if name.startswith("val_"):
                validation = validation or self._get("validation")
                _add_scalars(validation, f"epoch_{name[4:]}", value, epoch)
            else:
                _add_scalars(train, f"epoch_{name}", value, epoch)
        if self.write_steps_per_second and self._epoch_start is not None:
            elapsed = time.perf_counter() - self._epoch_start
            steps = self.params.get("steps") or self._epoch_batches
            if steps and elapsed > 0:
                train.add_scalar("epoch_steps_per_second", steps / elapsed, epoch)
        if self.histogram_freq and epoch % self.histogram_freq == 0 and self.model is not None:
            for weight in self.model.weights:
                train.add_histogram(weight.path, np.asarray(weight.numpy()), epoch)
        for writer in self._writers.values():
            writer.flush()

    def on_train_end(self, logs=None):
        for writer in self._writers.values():
            writer.close()
        self._writers = {}


def _add_scalars(writer, tag, value, step) -> None:
    """One scalar, or for a metric with one value per class or threshold one scalar each
    (``tag/0``, ``tag/1``, ...)."""
    values = np.asarray(value, np.float64)
    if values.ndim == 0:
        writer.add_scalar(tag, float(values), step)
        return
    for index, item in enumerate(values.reshape(-1)):
        writer.add_scalar(f"{tag}/{index}", float(item), step)
