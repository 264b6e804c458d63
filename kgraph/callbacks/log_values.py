"""Log values as Keras hands them to callbacks and ``History``: Python floats, or NumPy
arrays for metrics with one value per class or threshold (``F1Score()`` with its default
``average=None``, ``Precision(thresholds=[...])``).

>>> import numpy as np
>>> python_logs({"loss": np.float32(0.5), "compile_metrics": {"f1": np.ones(3)}})
{'loss': 0.5, 'f1': array([1., 1., 1.])}
>>> scalar("EarlyStopping", "f1", np.ones(3))
Traceback (most recent call last):
...
ValueError: EarlyStopping monitors 'f1', whose value is an array of shape (3,) (a metric with one value per class or threshold), but it needs one number to compare: monitor a scalar, e.g. a metric with average='macro' or a single threshold.
"""

from __future__ import annotations

import numpy as np

__all__ = ["python_logs", "python_value", "scalar"]


def python_value(value):
    """A float for a scalar, a NumPy array for anything with more than one value (as
    Keras's ``pythonify_logs``); other objects (strings) as they are."""
    try:
        array = np.asarray(value)
    except (TypeError, ValueError):
        return value
    if array.dtype.kind not in "biuf":
        return value
    return float(array) if array.ndim == 0 else array


def python_logs(logs) -> dict:
    """``logs`` with nested dicts flattened (a metric's dict of results, as Keras's
    ``compile_metrics``) and values made ``python_value``s."""
    result = {}
    for name, value in (logs or {}).items():
        if isinstance(value, dict):
            result.update(python_logs(value))
        else:
            result[name] = python_value(value)
    return result


def scalar(owner: str, monitor: str, value) -> float:
    """``value`` of the monitored quantity as a float (an array of one value too, as Keras
    compares it: ``F1Score()`` of one class), or a ValueError saying why an array of
    several values can't be monitored.

    >>> scalar("EarlyStopping", "f1", np.full((1,), 0.5))
    0.5
    """
    array = np.asarray(value)
    if array.size != 1:
        raise ValueError(
            f"{owner} monitors {monitor!r}, whose value is an array of shape {array.shape} "
            "(a metric with one value per class or threshold), but it needs one number to "
            "compare: monitor a scalar, e.g. a metric with average='macro' or a single "
            "threshold.")
    return float(array.reshape(()))
