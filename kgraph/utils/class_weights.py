"""Class weights (``fit(class_weight={class: weight})``): checked, and turned into one
weight per sample, as Keras 3 does.

>>> class_weights_to_sample_weights(np.array([[0.0, 1.0], [1.0, 0.0]]), {0: 3.0}).tolist()
[1.0, 3.0]
"""

from __future__ import annotations

import numpy as np

__all__ = ["check_class_weight", "class_weights_to_sample_weights"]


def check_class_weight(class_weight, num_classes=None) -> None:
    """``class_weight``: a dict of non-negative int class -> number (classes < num_classes)."""
    if class_weight is None:
        return
    if not isinstance(class_weight, dict):
        raise TypeError(f"`class_weight` must be a dict {{class index: weight}}, received "
                        f"{type(class_weight).__name__}.")
    for key, weight in class_weight.items():
        if isinstance(key, bool) or not isinstance(key, (int, np.integer)) or key < 0:
            raise ValueError(f"`class_weight` keys must be class indices (non-negative ints), "
                             f"received key {key!r} of type {type(key).__name__}.")
        if num_classes is not None and key >= num_classes:
            raise ValueError(f"`class_weight` has key {key}, but the model has {num_classes} "
                             f"classes (expected keys in 0..{num_classes - 1}).")
        if isinstance(weight, bool) or not isinstance(weight, (int, float, np.number)):
            raise ValueError(f"`class_weight` values must be numbers, received "
                             f"{weight!r} for class {key}.")


def class_weights_to_sample_weights(y, class_weight: dict) -> np.ndarray:
    """Per-sample weights ``class_weight[class of y]`` (integer, (n, 1) or one-hot ``y``)."""
    y = np.asarray(y)
    one_hot = y.ndim > 1 and y.shape[-1] > 1
    check_class_weight(class_weight, y.shape[-1] if one_hot else None)
    if one_hot:
        classes = np.argmax(y, axis=-1)
    else:
        classes = np.round(y.reshape(y.shape[0], -1)[:, 0]).astype(np.int64)
    table = np.ones((max([int(classes.max(initial=0)), *map(int, class_weight)]) + 1,),
                    np.float32)  # (classes without a weight: 1, as Keras; {} weighs all 1)
    for c, w in class_weight.items():
        table[int(c)] = w
    return table[classes]
