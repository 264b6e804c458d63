"""Unique automatic names: ``dense``, ``dense_1``, ``dense_2``, ..."""

import collections
import re

_counters: collections.Counter = collections.Counter()


def to_snake_case(name: str) -> str:
    """Keras's ``to_snake_case``: ``BatchNormalization`` -> ``batch_normalization``,
    ``Conv2D`` -> ``conv2d``, ``TopKCategoricalAccuracy`` -> ``top_k_categorical_accuracy``
    (characters other than letters, digits and ``_`` are dropped)."""
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", re.sub(r"\W+", "", name))
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


def unique_name(prefix: str) -> str:
    """The next unused name for ``prefix``, Keras-style (O(1) per call)."""
    count = _counters[prefix]
    _counters[prefix] += 1
    return prefix if count == 0 else f"{prefix}_{count}"


def reset_names() -> None:
    """Forget every name handed out so far (tests and notebooks)."""
    _counters.clear()
