"""The IoU family (``IoU``, ``MeanIoU``, ``BinaryIoU``, ``OneHotIoU``, ``OneHotMeanIoU``):
intersection over union from a weighted confusion matrix, with Keras's numbers.

As Keras's, the confusion matrix is counted in the metric's ``dtype``, ``int32`` unless
given, so counts stay exact however many pixels are seen (float sample weights are then
truncated, with Keras's warning). Labels or predictions outside ``[0, num_classes)`` and
entries labelled ``ignore_class`` are left out.

>>> import jax.numpy as jnp
>>> iou = MeanIoU(num_classes=2)
>>> float(iou(jnp.array([0, 0, 1, 1]), jnp.array([0, 1, 0, 1]))), iou.total_cm.dtype
(0.3333333432674408, dtype('int32'))
"""

from __future__ import annotations

import warnings

import jax.numpy as jnp

from kgraph.config import epsilon
from kgraph.losses.weighting import trailing_product
from kgraph.metrics.metric import Metric
from kgraph.metrics.reduction_metrics import merge_weights

__all__ = ["BinaryIoU", "IoU", "MeanIoU", "OneHotIoU", "OneHotMeanIoU"]


class IoU(Metric):
    """Intersection over union of ``target_class_ids``, averaged, from a weighted confusion
    matrix (labels and predictions as class ids, or one-hot/scores with ``sparse_*``)."""

    _variable_names = {"total_cm": "total_confusion_matrix"}

    def __init__(self, num_classes, target_class_ids, name=None, dtype=None,
                 ignore_class=None, sparse_y_true=True, sparse_y_pred=True, axis=-1):
        super().__init__(name, dtype or "int32")
        if max(target_class_ids) >= num_classes:
            raise ValueError(f"Metric {self.name!r}: Target class id "
                             f"{max(target_class_ids)} is out of range, which is [0, "
                             f"{num_classes}).")
        self.num_classes, self.target_class_ids = num_classes, list(target_class_ids)
        self.ignore_class, self.axis = ignore_class, axis
        self.sparse_y_true, self.sparse_y_pred = sparse_y_true, sparse_y_pred

    def init(self):
        return {"total_cm": jnp.zeros((self.num_classes, self.num_classes), self.dtype)}

    def _classes(self, y_pred):
        return jnp.argmax(y_pred, axis=self.axis) if not self.sparse_y_pred else y_pred

    def update(self, state, y_true, y_pred, sample_weight=None, mask=None):
        y_true = jnp.asarray(y_true)
        y_true = y_true if self.sparse_y_true else jnp.argmax(y_true, axis=self.axis)
        y_pred = self._classes(jnp.asarray(y_pred))
        integer_counts = jnp.issubdtype(self.dtype, jnp.integer)
        weight_dtype = getattr(sample_weight, "dtype", None)  # (as Keras: arrays only)
        if integer_counts and weight_dtype is not None and \
                jnp.issubdtype(weight_dtype, jnp.floating):
            warnings.warn(f"Metric {self.name!r}: You are passing weight as `float`, but "
                          f"dtype is `int` ({self.dtype}). This may result in an incorrect "
                          "weight due to type casting. Consider using integer weights.",
                          stacklevel=3)
        weight = merge_weights(sample_weight, mask)
        if weight is None:
            weight = jnp.ones(y_true.shape, jnp.float32)
        elif weight.ndim < y_true.ndim:  # a weight per sample of multi-entry samples
            weight = trailing_product(weight, jnp.ones(y_true.shape, jnp.float32))
        weight = jnp.broadcast_to(weight.reshape(-1) if weight.ndim else weight,
                                  (y_true.size,))
        y_true, y_pred = (x.reshape(-1).astype(jnp.int32) for x in (y_true, y_pred))
        valid = (y_true >= 0) & (y_true < self.num_classes) & (y_pred >= 0) & \
            (y_pred < self.num_classes)
        if self.ignore_class is not None:
            valid = valid & (y_true != self.ignore_class)
        weight = jnp.where(valid, weight, 0).astype(self.dtype)
        cm = jnp.zeros((self.num_classes, self.num_classes), self.dtype).at[
            jnp.where(valid, y_true, 0), jnp.where(valid, y_pred, 0)].add(weight)
        return {"total_cm": state["total_cm"] + cm}

    def result(self, state):
        cm = state["total_cm"]
        predicted, actual, tp = jnp.sum(cm, 0), jnp.sum(cm, 1), jnp.diagonal(cm)
        ids = jnp.asarray(self.target_class_ids)
        denominator = (predicted + actual - tp)[ids].astype(jnp.float32)
        tp = tp[ids].astype(jnp.float32)
        valid = denominator > 1e-9
        iou = jnp.where(valid, tp / (denominator + epsilon()), 0.0)
        return jnp.sum(iou) / (jnp.sum(valid.astype(jnp.float32)) + epsilon())

    def get_config(self):
        return {**Metric.get_config(self), "num_classes": self.num_classes,
                "target_class_ids": self.target_class_ids, "ignore_class": self.ignore_class,
                "sparse_y_true": self.sparse_y_true, "sparse_y_pred": self.sparse_y_pred,
                "axis": self.axis}


class MeanIoU(IoU):
    """IoU averaged over all ``num_classes`` classes."""

    def __init__(self, num_classes, name=None, dtype=None, ignore_class=None,
                 sparse_y_true=True, sparse_y_pred=True, axis=-1):
        super().__init__(num_classes, list(range(num_classes)), name, dtype, ignore_class,
                         sparse_y_true, sparse_y_pred, axis)

    def get_config(self):
        config = super().get_config()
        del config["target_class_ids"]
        return config


class BinaryIoU(IoU):
    """IoU of binary labels and scores thresholded at ``threshold``."""

    def __init__(self, target_class_ids=(0, 1), threshold=0.5, name=None, dtype=None):
        super().__init__(2, list(target_class_ids), name, dtype)
        self.threshold = threshold

    def _classes(self, y_pred):
        return (y_pred >= self.threshold).astype(jnp.int32)

    def get_config(self):
        return {**Metric.get_config(self), "target_class_ids": self.target_class_ids,
                "threshold": self.threshold}


class OneHotIoU(IoU):
    """IoU of one-hot labels and class scores."""

    def __init__(self, num_classes, target_class_ids, name=None, dtype=None,
                 ignore_class=None, sparse_y_pred=False, axis=-1):
        super().__init__(num_classes, target_class_ids, name, dtype, ignore_class, False,
                         sparse_y_pred, axis)

    def get_config(self):
        config = super().get_config()
        del config["sparse_y_true"]
        return config


class OneHotMeanIoU(MeanIoU):
    """Mean IoU of one-hot labels and class scores."""

    def __init__(self, num_classes, name=None, dtype=None, ignore_class=None,
                 sparse_y_pred=False, axis=-1):
        super().__init__(num_classes, name, dtype, ignore_class, False, sparse_y_pred, axis)

    def get_config(self):
        config = super().get_config()
        del config["sparse_y_true"]
        return config
