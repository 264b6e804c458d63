"""The call context: what a layer sees while it runs.

A layer's ``call`` reads its weights as ``self.kernel`` and asks for randomness with
``self.random_key()``. Where those come from depends on who is running it:

* eagerly (``layer(array)``), weights are the variables' stored values, assignments to
  non-trainable weights (BatchNorm statistics) update them in place, and random keys come
  from the ``key=`` given to the outermost call or, failing that, from ``kgraph.random``;
* inside ``compiler``'s pure ``apply``, weights are the arrays of the ``params``/``state``
  pytrees (tracers under ``jax.jit``), assignments are collected into the new ``state``
  instead of mutating anything, and keys derive from ``apply``'s ``key`` by layer path.

Both run the same ``Layer.__call__``; only the context differs. Contexts live on a
thread-local stack so nested calls (a model inside a model) share the outermost one.

A context may carry a ``sample_mask``: a float (batch,) array, 1 for real rows and 0 for
rows that only pad a partial batch to full size (``program.apply(..., sample_mask=...)``).
Computations that couple the rows of a batch read it through ``sample_mask_for(x)``:
``BatchNormalization`` takes its training moments over the real rows only, and activity
penalties and per-sample ``add_loss`` values count the real rows only, so a padded batch
gives the real rows exactly what the unpadded batch gives them.
"""

from __future__ import annotations

import contextlib
import threading
import zlib
from typing import Any

import jax
import jax.numpy as jnp

_local = threading.local()


def stable_hash(text: str) -> int:
    """A hash of ``text`` that is the same in every process (unlike ``hash``)."""
    return zlib.crc32(text.encode("utf-8")) & 0x7FFFFFFF


class CallContext:
    """Values, training flag, randomness and collected assignments for one run.

    Args:
      values: ``{id(variable): array}`` to read weights from, or None for stored values.
      training: the default training flag for layers that take one.
      key: a PRNG key that random layers derive theirs from, or None.
      collect_assignments: if True, ``variable.assign`` records the new value here
        instead of mutating the variable (pure execution).

    Attributes set by the runner after construction: ``sample_mask`` (see the module
    docstring; None means every row is real) and ``hooks``.
    """

    def __init__(self, values=None, training=None, key=None, collect_assignments=False):
        self.values = values
        self.training = training
        self.key = key
        self.collect_assignments = collect_assignments
        self.sample_mask = None  # (batch,) floats: 1 for real rows, 0 for padding rows
        self.assignments: dict[int, Any] = {}
        self.losses: list = []  # from layer.add_loss during this run
        self.hooks: tuple = ()  # kgraph.graph.NodeHook objects run around every node
        self.output_masks: dict = {}  # id(model) -> output masks of its last run
        self.path: list[str] = []
        self._key_counts: dict[str, int] = {}

    def read(self, variable):
        """The value of ``variable`` in this context, or None to use its stored value."""
        vid = id(variable)
        if vid in self.assignments:
            return self.assignments[vid]
        if self.values is not None:
            return self.values.get(vid)
        return None

    def next_key(self, owner: str):
        """A fresh key for the layer at the current path (each call gets a new one)."""
        path = "/".join(self.path) or owner
        count = self._key_counts.get(path, 0)
        self._key_counts[path] = count + 1
        if self.key is None:
            from kgraph import random as kg_random

            if self.values is not None:
                raise ValueError(
                    f'Layer "{owner}" needs a random key (it is random in this mode, e.g. '
                    "training=True), but none was given. Pass key=jax.random.PRNGKey(...) "
                    "to apply (or train with a Trainer, which passes one)."
                )
            self.key = kg_random.next_key()
        key = jax.random.fold_in(self.key, stable_hash(path))
        return jax.random.fold_in(key, count)

    def __enter__(self):
        stack = _stack()
        stack.append(self)
        return self

    def __exit__(self, *exc):
        _stack().pop()
        return False


def _stack() -> list:
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


def current() -> CallContext | None:
    """The innermost active context, or None outside any call."""
    stack = _stack()
    return stack[-1] if stack else None


def sample_mask_for(x):
    """The current context's ``sample_mask`` if it describes the rows of ``x``, else None.

    It applies when ``x`` has a leading axis of the mask's length (its batch axis). A layer
    whose computation mixes the rows of a batch uses it to leave padding rows out:

    >>> import jax.numpy as jnp
    >>> ctx = CallContext()
    >>> ctx.sample_mask = jnp.array([1.0, 1.0, 0.0])
    >>> with ctx:
    ...     sample_mask_for(jnp.zeros((3, 4))).tolist(), sample_mask_for(jnp.zeros((4,)))
    ([1.0, 1.0, 0.0], None)
    """
    ctx = current()
    mask = getattr(ctx, "sample_mask", None) if ctx is not None else None
    if mask is None or not getattr(x, "ndim", 0):
        return None
    mask = jnp.asarray(mask)
    return mask if mask.ndim == 1 and x.shape[0] == mask.shape[0] else None


def row_mask(sample_mask, x):
    """``sample_mask`` as booleans shaped to broadcast against ``x`` (batch axis first)."""
    return jnp.reshape(sample_mask > 0, (-1,) + (1,) * (x.ndim - 1))


@contextlib.contextmanager
def sample_mask_scope(mask):
    """Replace the current context's ``sample_mask`` for a block (e.g. for an inner layer
    that sees the batch reshaped, as ``TimeDistributed``'s does); no-op outside a call."""
    ctx = current()
    if ctx is None:
        yield
        return
    saved = getattr(ctx, "sample_mask", None)
    ctx.sample_mask = mask
    try:
        yield
    finally:
        ctx.sample_mask = saved
