"""``MonitorCallback``: Keras's base class of the callbacks that watch one logged quantity
for improvement (``EarlyStopping``, ``ReduceLROnPlateau``, ``ModelCheckpoint``,
``OrbaxCheckpoint``).

Its comparison, ``monitor_op``, is ``ops.less`` (minimize) or ``ops.greater`` (maximize),
as Keras's. It is chosen when first needed (at the first epoch end, once the model's
metrics exist): by ``mode``, else by the monitored metric's direction (``loss`` is
minimized; a compiled metric of that name says which way it improves), else by the name
(losses and errors are minimized; accuracy, AUC, precision, recall, F1, IoU, R2 maximized).

>>> watch = MonitorCallback(monitor="val_accuracy", min_delta=0.01)
>>> watch._set_monitor_op()
>>> watch.monitor_op.__name__, watch._is_improvement(0.52, 0.5), watch._is_improvement(0.505, 0.5)
('greater', True, False)
"""

from __future__ import annotations

import warnings

from kgraph import ops
from kgraph.base import naming
from kgraph.callbacks.callback import Callback
from kgraph.callbacks.log_values import scalar

__all__ = ["MonitorCallback", "metric_direction"]

# Metric names (without "val_") by the direction they improve in.
_MAXIMIZED = ("acc", "auc", "precision", "recall", "f1", "fbeta", "iou", "r2",
              "true_positives", "true_negatives", "specificity", "sensitivity",
              "cosine_similarity", "correlation")
_MINIMIZED = ("loss", "error", "crossentropy", "hinge", "divergence", "poisson", "logcosh",
              "false_positives", "false_negatives", "mse", "mae", "mape", "msle", "rmse")


def _name_direction(name: str) -> str | None:
    if name.endswith("loss"):
        return "down"
    if any(marker in name for marker in _MAXIMIZED):
        return "up"
    if any(marker in name for marker in _MINIMIZED):
        return "down"
    return None


def _compiled_metrics(model) -> list:
    """The metric objects ``model`` was compiled with (those inside Keras's
    ``CompileMetrics`` and metric lists too)."""
    found = []
    for metric in getattr(model, "metrics", None) or ():
        inner = getattr(metric, "metrics", None)
        found.extend(inner if isinstance(inner, (list, tuple)) else [metric])
    return found


def metric_direction(name: str, model=None) -> str | None:
    """``"up"`` or ``"down"``: the way the logged quantity ``name`` improves (``val_`` or
    not), from ``model``'s compiled metric of that name (its ``_direction``, else its name,
    else its class name), else from ``name``; None if nothing tells.

    >>> metric_direction("val_loss"), metric_direction("f1_score"), metric_direction("widgets")
    ('down', 'up', None)
    """
    name = name.removeprefix("val_")
    if name == "loss":
        return "down"
    for metric in _compiled_metrics(model):
        if getattr(metric, "name", None) != name:
            continue
        direction = getattr(metric, "_direction", None)
        if direction in ("up", "down"):
            return direction
        direction = (_name_direction(name)
                     or _name_direction(naming.to_snake_case(type(metric).__name__)))
        if direction is not None:
            return direction
    return _name_direction(name)


class MonitorCallback(Callback):
    """Base class of callbacks that watch ``monitor`` for improvement (Keras's).

    Args:
      monitor: the logged quantity to watch.
      mode: "min", "max", or "auto" (the direction of the metric, see the module).
      baseline: the initial ``best`` value (None: the first value seen).
      min_delta: changes smaller than this are no improvement.
    """

    def __init__(self, monitor="val_loss", mode="auto", baseline=None, min_delta=0):
        super().__init__()
        if mode not in ("auto", "min", "max"):
            warnings.warn(f"{type(self).__name__} mode '{mode}' is unknown, fallback to auto "
                          "mode.", stacklevel=2)
            mode = "auto"
        self.monitor = monitor
        self.mode = mode
        self.best = baseline
        self.min_delta = abs(min_delta)
        self.monitor_op = None

    def _set_monitor_op(self) -> None:
        """Choose ``monitor_op`` (and the sign of ``min_delta``) as the module says."""
        if self.mode == "min":
            direction = "down"
        elif self.mode == "max":
            direction = "up"
        else:
            direction = metric_direction(self.monitor, self.model)
            if direction is None:
                raise ValueError(
                    f"{type(self).__name__} callback received monitor={self.monitor}, but "
                    "can't tell whether that metric should be maximized or minimized (no "
                    "compiled metric of that name says it, nor does its name). Pass "
                    "`mode='max'` in order to monitor based on the highest metric value, "
                    "or pass `mode='min'` in order to use the lowest value.")
        self.monitor_op = ops.greater if direction == "up" else ops.less
        self.min_delta = abs(self.min_delta) * (1 if direction == "up" else -1)

    def _is_improvement(self, monitor_value, reference_value) -> bool:
        if self.monitor_op is None:
            self._set_monitor_op()
        monitor_value = scalar(type(self).__name__, self.monitor, monitor_value)
        if reference_value is None:
            return True
        return bool(self.monitor_op(monitor_value - self.min_delta, reference_value))
