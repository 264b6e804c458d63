"""Checks of layer constructor arguments, raising errors that name the argument.

>>> number("ELU", "alpha", "big")
Traceback (most recent call last):
ValueError: ELU: `alpha` must be a number, received alpha='big'.
"""

from __future__ import annotations

import numpy as np

__all__ = ["axes_in_range", "number", "positive_int"]


def number(owner: str, name: str, value, low=None, high=None):
    """``value`` as given if it is a real number in ``[low, high]``, else a ValueError."""
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    if not ok:
        raise ValueError(f"{owner}: `{name}` must be a number, received {name}={value!r}.")
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = (f"between {low} and {high}" if low is not None and high is not None
                  else f">= {low}" if low is not None else f"<= {high}")
        raise ValueError(f"{owner}: `{name}` must be {bounds}, received {name}={value!r}.")
    return value


def positive_int(owner: str, name: str, value) -> int:
    """``value`` as an int if it is a positive integer, else a ValueError."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise ValueError(f"{owner}: `{name}` must be a positive integer, received "
                         f"{name}={value!r}.")
    return int(value)


def axes_in_range(layer, axes, shape) -> None:
    """Every axis in ``axes`` (an int or a list) indexes an axis of ``shape``."""
    ndim = len(shape)
    for axis in axes if isinstance(axes, (list, tuple)) else [axes]:
        if not isinstance(axis, (int, np.integer)) or not -ndim <= axis < ndim:
            raise ValueError(f'Layer "{layer.name}" ({type(layer).__name__}): axis {axis!r} is '
                             f"out of range for inputs of rank {ndim} (shape "
                             f"{tuple(shape)}); expected an axis in [{-ndim}, {ndim}).")

