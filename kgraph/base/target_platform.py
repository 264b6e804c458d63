"""The platform a program is traced for: the default backend's, unless a planner compiles
for chips that are not attached (``runtime.plan`` traces for TPU on a CPU machine).

Trace-time choices made for a platform (XLA:CPU runs convolution gradients in loops
slowly, so scans over convolving steps or blocks are unrolled there; CPU's argmax of
signed zeros) read ``target()``, so a program planned for TPU is the one TPU runs.

>>> with tracing_for("tpu"):
...     target()
'tpu'
"""

from __future__ import annotations

import contextlib
import threading

import jax

__all__ = ["target", "tracing_for"]

_local = threading.local()


def target() -> str:
    """``"cpu"``, ``"gpu"``, ``"tpu"``: the platform being traced for."""
    return getattr(_local, "platform", None) or jax.default_backend()


@contextlib.contextmanager
def tracing_for(platform: str):
    """Trace for ``platform`` inside the block (the one before it again after)."""
    previous = getattr(_local, "platform", None)
    _local.platform = platform
    try:
        yield
    finally:
        _local.platform = previous
