"""The machine's memory, and arrays that could never fit in it (refused early, by name).

>>> physical_memory() > 0
True
"""

from __future__ import annotations

import functools
import math
import os

import jax.numpy as jnp

__all__ = ["available_memory", "check_allocatable", "physical_memory"]


@functools.lru_cache(maxsize=1)
def physical_memory() -> int:
    """The machine's physical memory in bytes (no limit where the OS does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return 2 ** 63


def available_memory() -> int:
    """The memory free now, in bytes (the physical memory where the OS does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return physical_memory()


def check_allocatable(owner: str, what: str, shape, dtype) -> None:
    """ValueError if an array of ``shape`` and ``dtype`` is larger than physical memory
    (it could never be allocated: better said now than as an abort at first use)."""
    size = math.prod(shape) * jnp.dtype(dtype).itemsize
    if size > physical_memory():
        raise ValueError(f"{owner}: {what} of shape {tuple(shape)} and dtype "
                         f"{jnp.dtype(dtype).name} needs {size:,} bytes, more than this "
                         f"machine's physical memory ({physical_memory():,} bytes). Check "
                         "the layer's sizes and its input shape.")
