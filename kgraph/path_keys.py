"""Keras's lookup of a layer or weight path among keys that are paths or patterns
(``LayoutMap``, ``DTypePolicyMap``, and the runtime's path rules): the exact key first,
else the one key that ``re.fullmatch``es the path; two matching keys are an error.

>>> matching_key({"dense": 1, "block_[0-9]+/.*": 2}, "block_3/attn")
'block_[0-9]+/.*'
>>> matching_key({"dense": 1}, "dense/kernel") is None
True
"""

from __future__ import annotations

import collections.abc
import re

__all__ = ["PatternMap", "matches", "matching_key"]


def matches(keys, path: str) -> list:
    """The keys that stand for ``path``: ``[path]`` if it is one of them, else every key
    that ``re.fullmatch``es it."""
    if path in keys:
        return [path]
    return [key for key in keys if re.fullmatch(key, path)]


def matching_key(keys, path: str, what: str = "map"):
    """The key of ``keys`` that stands for ``path``, or None; ValueError naming ``what``
    if several patterns match."""
    found = matches(keys, path)
    if len(found) > 1:
        raise ValueError(f"Path {path!r} matches several {what} keys: {found}. Make the keys "
                         "more specific.")
    return found[0] if found else None


class PatternMap(collections.abc.MutableMapping):
    """Values by path or path pattern, looked up by ``matching_key``; a key is set once
    (delete it to set it again). Subclasses convert what is stored (``_entry``) and say
    what a path no key matches gets (``_missing``); ``in`` asks for a key, not a match.

    >>> sizes = PatternMap()
    >>> sizes["encoder/.*"] = 2
    >>> sizes["encoder/dense"], sizes["decoder"], "encoder/dense" in sizes
    (2, None, False)
    """

    _what = "map"

    def __init__(self):
        self._entries: dict = {}

    def _entry(self, key, value):
        return value

    def _missing(self, path):
        return None

    def __getitem__(self, path):
        found = matching_key(self._entries, path, self._what)
        return self._missing(path) if found is None else self._entries[found]

    def __setitem__(self, key, value):
        if key in self._entries:
            raise ValueError(f"{self._what} key {key!r} is set already "
                             f"({self._entries[key]!r}); delete it first.")
        self._entries[key] = self._entry(key, value)

    def __delitem__(self, key):
        del self._entries[key]

    def __iter__(self):
        return iter(self._entries)

    def __len__(self):
        return len(self._entries)

    def __contains__(self, key):
        return key in self._entries
