"""``TensorBoard``: what Keras 3's callback writes for TensorBoard, in Keras's runs and tags.

Runs ``log_dir/train`` and ``log_dir/validation``; scalars ``epoch_<metric>`` (with
``epoch_learning_rate``, and ``epoch_steps_per_second`` if asked), ``batch_<metric>`` (and
``batch_steps_per_second``) every ``update_freq`` batches,
``evaluation_<metric>_vs_iterations`` at the end of each evaluation (stepped by the
optimizer's iterations); weight histograms (``<Keras's weight path>/histogram``) and images
(``.../image``; a weight's several images tiled into one) every ``histogram_freq`` epochs;
for ``embeddings_freq``, the projector's ``projector_config.pbtxt`` and the weights files it
points at. Event files are written with ``tensorboardX`` (a small, well-kept writer of
TensorBoard's format): ``pip install kgraph[tensorboard]``. ``profile_batch`` profiles those
batches with ``jax.profiler`` into the train run (Python 3.12 or newer, as Keras on JAX).
"""

from __future__ import annotations

import os
import sys
import time
import warnings

import jax
import numpy as np

from kgraph import config
from kgraph.callbacks.callback import Callback
from kgraph.callbacks.callbacks import _optimizer_rate_holders
from kgraph.callbacks.log_values import python_value
from kgraph.layers import Embedding

__all__ = ["TensorBoard"]


def _writer(folder):
    try:
        from tensorboardX import SummaryWriter
    except ImportError as error:
        raise ImportError("The TensorBoard callback writes event files with tensorboardX: "
                          "install it with `pip install tensorboardX` (or the extra "
                          "`pip install kgraph[tensorboard]`).") from error
    return SummaryWriter(folder)


def _profile_range(profile_batch) -> tuple[int, int]:
    """Keras's ``profile_batch`` (n, "start,stop" or (start, stop)) as (start, stop)."""
    message = ("profile_batch must be a non-negative integer or 2-tuple of positive integers. "
               "A pair of positive integers signifies a range of batches to profile. Found: "
               f"{profile_batch}")
    if isinstance(profile_batch, str):
        try:
            profile_batch = [int(part) for part in profile_batch.split(",")]
        except ValueError:
            raise ValueError(message) from None
        profile_batch = profile_batch[0] if len(profile_batch) == 1 else profile_batch
    if isinstance(profile_batch, int) and not isinstance(profile_batch, bool):
        start = stop = profile_batch
    elif isinstance(profile_batch, (tuple, list)) and len(profile_batch) == 2:
        start, stop = profile_batch
    else:
        raise ValueError(message)
    if start < 0 or stop < start:
        raise ValueError(message)
    return start, stop


class TensorBoard(Callback):
    """Write logs for TensorBoard (Keras's arguments; see the module for what is written).

    Args:
      log_dir: the folder; runs go to ``log_dir/train`` and ``log_dir/validation``.
      histogram_freq: every this many epochs, histograms of every weight (0: never).
      write_graph: accepted as Keras (its default is True); a compiled JAX program has no
        TensorFlow graph to draw.
      write_images: with ``histogram_freq``, also each weight as an image.
      write_steps_per_second: also log ``epoch_steps_per_second`` (and per batch).
      update_freq: "epoch", or "batch" / an integer n: also ``batch_*`` scalars every n
        batches.
      profile_batch: a batch (or a ``(start, stop)`` range) to profile; 0: none.
      embeddings_freq: every this many epochs, the weights of the ``Embedding`` layers for
        the projector (0: never). embeddings_metadata: a metadata file for every embedding,
        or ``{layer name: file}``.
    """

    def __init__(self, log_dir="logs", histogram_freq=0, write_graph=True, write_images=False,
                 write_steps_per_second=False, update_freq="epoch", profile_batch=0,
                 embeddings_freq=0, embeddings_metadata=None):
        super().__init__()
        if update_freq != "epoch" and update_freq != "batch" and not (
                isinstance(update_freq, int) and update_freq > 0):
            raise ValueError(f"Unrecognized update_freq: {update_freq!r}")
        self.log_dir = os.fspath(log_dir)
        self.histogram_freq, self.write_graph = histogram_freq, write_graph
        self.write_images, self.write_steps_per_second = write_images, write_steps_per_second
        self.update_freq = 1 if update_freq == "batch" else update_freq
        self.embeddings_freq, self.embeddings_metadata = embeddings_freq, embeddings_metadata
        self._start_batch, self._stop_batch = _profile_range(profile_batch)
        if self._stop_batch and sys.version_info < (3, 12):
            warnings.warn("Profiling with the jax backend requires python >= 3.12; "
                          f"profile_batch={profile_batch!r} is ignored.", stacklevel=2)
            self._start_batch = self._stop_batch = 0
        self._profiling = False
        self._writers = {}
        self._global_batch = 0
        self._epoch_start = None
        self._epoch_batches = 0
        self._batch_start = None

    @property
    def _train_dir(self) -> str:
        return os.path.join(self.log_dir, "train")

    def _get(self, run):
        if run not in self._writers:
            self._writers[run] = _writer(os.path.join(self.log_dir, run))
        return self._writers[run]

    def set_model(self, model) -> None:
        super().set_model(model)
        if self.embeddings_freq and model is not None:
            self._configure_embeddings()

    def uses_batch_hooks(self, mode="train"):
        """Train batch hooks only for ``update_freq`` other than "epoch" or profiling (so
        fit runs free otherwise)."""
        return mode == "train" and (self.update_freq != "epoch" or self._stop_batch > 0)

    # ------------------------------------------------------------------ train
    def on_train_begin(self, logs=None):
        self._global_batch = 0

    def on_epoch_begin(self, epoch, logs=None):
        self._epoch_start = time.perf_counter()
        self._epoch_batches = 0

    def on_train_batch_begin(self, batch, logs=None):
        self._global_batch += 1
        self._batch_start = time.perf_counter()
        if self._global_batch == self._start_batch and self._stop_batch > 0:
            jax.profiler.start_trace(self._train_dir)
            self._profiling = True

    def on_train_batch_end(self, batch, logs=None):
        self._epoch_batches = batch + 1
        if self.update_freq != "epoch" and self._global_batch % self.update_freq == 0:
            writer = self._get("train")
            for name, value in (logs or {}).items():
                _add_scalars(writer, f"batch_{name}", value, self._global_batch)
            if self.write_steps_per_second and self._batch_start is not None:
                elapsed = time.perf_counter() - self._batch_start
                if elapsed > 0:
                    writer.add_scalar("batch_steps_per_second", 1.0 / elapsed,
                                      self._global_batch)
        if self._profiling and self._global_batch >= self._stop_batch:
            self._stop_profiling()

    def on_epoch_end(self, epoch, logs=None):
        logs = dict(logs or {})
        train = {name: value for name, value in logs.items() if not name.startswith("val_")}
        self._collect_learning_rate(train)
        if self.write_steps_per_second and self._epoch_start is not None:
            elapsed = time.perf_counter() - self._epoch_start
            steps = self.params.get("steps") or self._epoch_batches
            if steps and elapsed > 0:
                train["steps_per_second"] = steps / elapsed
        writer = self._get("train")
        for name, value in train.items():
            _add_scalars(writer, f"epoch_{name}", value, epoch)
        validation = {name[4:]: value for name, value in logs.items()
                      if name.startswith("val_")}
        for name, value in validation.items():
            _add_scalars(self._get("validation"), f"epoch_{name}", value, epoch)
        if self.histogram_freq and epoch % self.histogram_freq == 0 and self.model is not None:
            self._log_weights(epoch)
        if self.embeddings_freq and epoch % self.embeddings_freq == 0 and self.model is not None:
            self.model.save_weights(os.path.join(
                self._train_dir, f"keras_embedding.ckpt-{epoch}.weights.h5"))
        for each in self._writers.values():
            each.flush()

    def on_train_end(self, logs=None):
        if self._profiling:
            self._stop_profiling()
        for writer in self._writers.values():
            writer.close()
        self._writers = {}

    # --------------------------------------------------------------- evaluate
    def on_test_end(self, logs=None):
        optimizer = getattr(self.model, "optimizer", None)
        if optimizer is None or not hasattr(optimizer, "iterations"):
            return
        step = int(np.asarray(optimizer.iterations))
        writer = self._get("validation")
        for name, value in (logs or {}).items():
            _add_scalars(writer, f"evaluation_{name}_vs_iterations", value, step)
        writer.flush()

    # ---------------------------------------------------------------- helpers
    def _collect_learning_rate(self, logs) -> dict:
        """``logs`` with Keras's ``learning_rate`` (``learning_rate_<name>`` per optimizer of
        a multi-optimizer) of the model's Keras optimizer; nothing for other optimizers."""
        optimizer = getattr(self.model, "optimizer", None)
        inner = getattr(optimizer, "inner_optimizer", optimizer)
        if hasattr(inner, "optimizers") or hasattr(inner, "iterations"):
            logs.update({key: float(np.asarray(holder.learning_rate))
                         for key, holder in _optimizer_rate_holders(optimizer)})
        return logs

    def _log_weights(self, epoch) -> None:
        writer = self._get("train")
        for layer in self.model.layers:
            for weight in layer.weights:
                name = weight.path.replace(":", "_")  # Keras's tags name its paths
                values = np.asarray(weight.numpy())
                finite = values[np.isfinite(values)]
                if finite.size < values.size:
                    warnings.warn(f"TensorBoard: weight {weight.path!r} has non-finite values "
                                  f"at epoch {epoch} (did training diverge?); its histogram "
                                  "shows its finite values only"
                                  + (" (none: not written)." if not finite.size else "."),
                                  RuntimeWarning, stacklevel=2)
                if finite.size:
                    writer.add_histogram(f"{name}/histogram", finite, epoch)
                if self.write_images:
                    image = _weight_image(values)
                    if image is not None:
                        writer.add_images(f"{name}/image", image, epoch, dataformats="NHWC")
        writer.flush()

    def _configure_embeddings(self) -> None:
        """Keras's projector config: each ``Embedding`` layer, with its metadata file."""
        by_layer = (dict(self.embeddings_metadata)
                    if isinstance(self.embeddings_metadata, dict) else None)
        lines = []
        for layer in self.model.layers:
            if not isinstance(layer, Embedding):
                continue
            lines += ["embeddings {",
                      '  tensor_name: "layer_with_weights-0/embeddings/.ATTRIBUTES/'
                      'VARIABLE_VALUE"']
            metadata = (self.embeddings_metadata if isinstance(self.embeddings_metadata, str)
                        else by_layer.pop(layer.name, None) if by_layer else None)
            if metadata is not None:
                lines.append(f'  metadata_path: "{_text_escaped(metadata)}"')
            lines.append("}")
        if by_layer:
            raise ValueError("Unrecognized `Embedding` layer names passed to "
                             "`keras.callbacks.TensorBoard` `embeddings_metadata` argument: "
                             f"{by_layer.keys()} (the model's Embedding layers: "
                             f"{[l.name for l in self.model.layers if isinstance(l, Embedding)]})")
        os.makedirs(self.log_dir, exist_ok=True)
        with open(os.path.join(self.log_dir, "projector_config.pbtxt"), "w") as file:
            file.write("".join(line + "\n" for line in lines))

    def _stop_profiling(self) -> None:
        self._profiling = False
        jax.profiler.stop_trace()


def _add_scalars(writer, tag, value, step) -> None:
    """One scalar, or for a metric with one value per class or threshold one scalar each
    (``tag/0``, ``tag/1``, ...)."""
    values = np.asarray(python_value(value), np.float64)
    if values.ndim == 0:
        writer.add_scalar(tag, float(values), step)
        return
    for index, item in enumerate(values.reshape(-1)):
        writer.add_scalar(f"{tag}/{index}", float(item), step)


def _weight_image(weight):
    """A weight as Keras shows it, images of shape (n, height, width, 1), values clipped to
    [0, 1]: a bias as one row, a kernel as one image (wider than tall), a 3-D kernel as one
    image per channel; None for other shapes."""
    image = np.squeeze(weight)
    if image.ndim == 1:
        image = image.reshape(1, image.shape[0], 1, 1)
    elif image.ndim == 2:
        if image.shape[0] > image.shape[1]:
            image = image.T
        image = image.reshape(1, *image.shape, 1)
    elif image.ndim == 3:
        if config.image_data_format() == "channels_last":  # one image per output channel
            image = np.transpose(image, (2, 0, 1))
        image = image[..., None]
    if image.ndim != 4 or image.shape[-1] not in (1, 3, 4):
        return None
    return np.clip(np.nan_to_num(image.astype(np.float32)), 0.0, 1.0)


def _text_escaped(text: str) -> str:
    """``text`` as a protobuf text-format string holds it."""
    for plain, escaped in (("\\", "\\\\"), ('"', '\\"'), ("'", "\\'"), ("\n", "\\n"),
                           ("\r", "\\r"), ("\t", "\\t")):
        text = text.replace(plain, escaped)
    return text
