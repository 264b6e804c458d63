"""Checks of ``fit`` / ``evaluate`` / ``predict`` arguments and data before any step runs.

Everything here is cheap and happens on the host: argument values (``batch_size``,
``class_weight``), integer labels against the number of classes of a sparse loss (when the
labels are in-memory arrays), and validation data traced abstractly (``jax.eval_shape``:
shapes and dtypes only) through the model and its losses, so a wrong feature size fails
before the first training epoch rather than after it.
"""

from __future__ import annotations

import jax
import numpy as np

from kgraph.losses import losses as losses_lib
from kgraph.utils.class_weights import check_class_weight
from runtime.objective import _targets

__all__ = [
    "check_batch_size", "check_class_weight", "check_fit_arguments", "check_sample_weight",
    "check_sparse_labels", "check_validation", "num_classes", "output_shapes"
]


def check_batch_size(value, argument="batch_size"):
    """``value`` (None or a positive int) as given, else a ValueError naming ``argument``."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"`{argument}` must be a positive integer (or None for 32), "
                         f"received {argument}={value!r}.")
    return int(value)


def num_classes(model):
    """The class count of a single-output classifier (a 1-unit output means 2), or None."""
    outputs = list(getattr(model, "outputs", None) or ())
    if len(outputs) != 1 or not outputs[0].shape or outputs[0].shape[-1] is None:
        return None
    return max(int(outputs[0].shape[-1]), 2)


def check_sparse_labels(objective, y, output_shapes, what="y") -> None:
    """Integer labels of sparse crossentropy losses in ``[0, classes)`` (``ignore_class``
    aside); runs only on host arrays (NumPy), where it costs one pass over the labels."""
    if objective is None or not hasattr(objective, "losses") or y is None:
        return
    try:
        targets = _targets(y, objective.names, objective._covered())
    except ValueError:
        return  # (the targets' structure errors come from the objective, at the step)
    for name, loss, labels, shape in zip(objective.names, objective.losses, targets,
                                         output_shapes):
        if not isinstance(loss, losses_lib.SparseCategoricalCrossentropy):
            continue
        if not isinstance(labels, np.ndarray) or shape is None or not shape:
            continue
        classes = shape[loss.axis]
        if classes is None or labels.size == 0:
            continue
        values = labels[labels != loss.ignore_class] if loss.ignore_class is not None else labels
        bad = values[(values < 0) | (values >= classes)]
        if bad.size:
            raise ValueError(f"Output {name!r}, loss {loss.name}: {what} labels must be class "
                             f"indices in [0, {classes}) ({classes} classes), received label "
                             f"{bad.flat[0]} ({bad.size} out of range).")


def output_shapes(model, count):
    """The model's output shapes (None where unknown), one per loss."""
    outputs = list(getattr(model, "outputs", None) or ())
    if len(outputs) != count:
        return [None] * count
    return [tuple(t.shape) for t in outputs]


def check_validation(trainer, val_data) -> None:
    """Trace one validation batch abstractly through the model and its losses: the model's
    input checks and the loss's target checks run on shapes, with nothing computed."""
    x, y, sample_weight = val_data.arrays
    rows = min(val_data.batch_size, val_data.size)

    def spec(a):
        return jax.ShapeDtypeStruct((rows, *np.shape(a)[1:]), np.asarray(a).dtype)

    try:
        trainer.on_shapes(jax.tree_util.tree_map(spec, x), jax.tree_util.tree_map(spec, y),
                          lambda y, run: trainer.objective.check(y, run.outputs))
    except (ValueError, TypeError, KeyError) as error:
        raise type(error)(f"validation_data does not fit the model {trainer.model.name!r}: "
                          f"{error}") from None


def _count(value, name, low):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        kind = "a positive integer" if low > 0 else "a non-negative integer"
        raise ValueError(f"`{name}` must be {kind}, received {name}={value!r}.")


def check_fit_arguments(epochs, initial_epoch, steps_per_epoch, validation_freq,
                        validation_steps) -> None:
    """``fit``'s counting arguments: ints in range (None where optional)."""
    _count(epochs, "epochs", 0)
    _count(initial_epoch, "initial_epoch", 0)
    _count(validation_freq, "validation_freq", 1)
    for name, value in (("steps_per_epoch", steps_per_epoch),
                        ("validation_steps", validation_steps)):
        if value is not None:
            _count(value, name, 1)


def check_sample_weight(sample_weight, y) -> None:
    """A single ``sample_weight`` array for a single ``y`` array: its shape (trailing 1s
    aside) must be a leading part of y's, e.g. ``(n,)`` for one weight per sample."""
    if not isinstance(sample_weight, np.ndarray) or not isinstance(y, np.ndarray):
        return
    shape = sample_weight.shape
    while len(shape) > 1 and shape[-1] == 1:
        shape = shape[:-1]
    if shape != y.shape[:len(shape)]:
        raise ValueError(f"`sample_weight` of shape {sample_weight.shape} does not match y of "
                         f"shape {y.shape}: expected {y.shape[:1]} (one weight per sample) or "
                         f"a leading part of y's shape.")
