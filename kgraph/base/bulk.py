"""Bulk passes over a large graph without the cyclic garbage collector's pauses.

A pass that orders, names or reads a graph of thousands of layers makes many small
objects (lists, sets, tuples) and no cyclic garbage; the collections its allocations
trigger each walk every object of the graph, which on a 10,000-layer model costs more
than the pass itself and makes its time grow faster than the graph.

>>> import gc
>>> with collector_paused():
...     gc.isenabled()
False
"""

from __future__ import annotations

import contextlib
import gc

__all__ = ["collector_paused"]


@contextlib.contextmanager
def collector_paused():
    """Pause the cyclic garbage collector within the block (reference counting goes on);
    restore it after, as it was."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
