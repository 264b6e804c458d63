"""What a layer tracks: the sub-layers and weights its attributes hold.

A layer's attributes hold its sub-layers and weights directly or inside (nested) lists,
tuples and dicts; ``collect`` finds them there, in attribute order. The attributes of the
layer machinery itself (``UNTRACKED``) are never searched. ``structure_read_once`` lets a
pass that reads a large graph several times (compiling) find each layer's sub-layers once.

>>> collect([1, {"a": "x", "b": ["y"]}], str)
['x', 'y']
"""

from __future__ import annotations

import contextlib
import threading

from kgraph.base import bulk

__all__ = ["PLAIN", "StateLock", "UNTRACKED", "collect", "memo", "structure_read_once"]

# Attributes of the Layer machinery itself, never searched for sub-layers or weights.
UNTRACKED = frozenset({"_inbound_nodes", "_output_spec_cache", "_own_variables", "_var_attrs",
                        "_namespaces", "_warned_input_keys",
                        "losses", "input_spec", "_dtype_policy", "activity_regularizer",
                        "_tracker", "_call_losses"})


PLAIN = frozenset({str, int, float, bool, type(None)})

LOCKED_MESSAGE = ("You cannot add new elements of state (variables or sub-layers) to a layer "
                  "that is already built. All state must be created in the `__init__()` method "
                  "or in the `build()` method.")


class StateLock:
    """``layer._tracker``, as Keras's: once the layer is built it is ``locked`` and the layer
    refuses new weights; ``unlock()`` / ``lock()`` around code that adds some on purpose
    (quantizing, enabling LoRA).

    >>> lock = StateLock()
    >>> lock.lock()
    >>> lock.locked, lock.unlock(), lock.locked
    (True, None, False)
    """

    def __init__(self):
        self.locked = False
        self.lock_msg = LOCKED_MESSAGE

    def lock(self, msg=None) -> None:
        self.locked = True
        if msg is not None:
            self.lock_msg = msg

    def unlock(self) -> None:
        self.locked = False


def collect(value, kind):
    """Instances of ``kind`` in ``value``: itself, or inside nested lists, tuples, sets and
    dict values (not inside other objects), in order. A container that holds itself (a
    list appended to itself) is searched once.

    >>> blocks = []
    >>> blocks.append(blocks)
    >>> collect([blocks, "x"], str)
    ['x']
    """
    found, stack, seen = [], [value], set()
    while stack:
        item = stack.pop()
        if isinstance(item, kind):
            found.append(item)
        elif isinstance(item, (dict, list, tuple)):
            if id(item) in seen:
                continue
            seen.add(id(item))
            stack.extend(reversed(list(item.values())) if isinstance(item, dict)
                         else reversed(item))
    return found


_STRUCTURE = threading.local()


@contextlib.contextmanager
def structure_read_once():
    """Within this block, each layer's sub-layers are found once and remembered: for
    passes that read a large graph several times without changing it (compiling a model
    reads every layer's weights three times). Linear instead of one walk per read; the
    garbage collector pauses meanwhile (``kgraph.base.bulk``)."""
    if getattr(_STRUCTURE, "memo", None) is not None:
        yield
        return
    _STRUCTURE.memo = {}
    try:
        with bulk.collector_paused():
            yield
    finally:
        _STRUCTURE.memo = None


def memo():
    """The sub-layer lists found so far inside ``structure_read_once`` (None outside)."""
    return getattr(_STRUCTURE, "memo", None)
