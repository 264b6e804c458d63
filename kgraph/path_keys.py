"""Keras's lookup of a layer or weight path among keys that are paths or patterns
(``LayoutMap``, ``DTypePolicyMap``): the exact key first, else the one key that
``re.fullmatch``es the path; two matching keys are an error.

>>> matching_key({"dense": 1, "block_[0-9]+/.*": 2}, "block_3/attn")
'block_[0-9]+/.*'
>>> matching_key({"dense": 1}, "dense/kernel") is None
True
"""

from __future__ import annotations

import re

__all__ = ["matching_key"]


def matching_key(keys, path: str, what: str = "map"):
    """The key of ``keys`` that stands for ``path``, or None; ValueError naming ``what``
    if several patterns match."""
    if path in keys:
        return path
    found = [key for key in keys if re.fullmatch(key, path)]
    if len(found) > 1:
        raise ValueError(f"Path {path!r} matches several {what} keys: {found}. Make the keys "
                         "more specific.")
    return found[0] if found else None
