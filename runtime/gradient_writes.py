"""State weights written with their gradient, as Keras's ``overwrite_with_gradient``.

A weight whose new value its layer computes in a training step (a float8 layer's scales
and amax histories) is a state weight marked ``_written_by_gradient``, whose gradient is
its new value (the layer's custom gradient returns it). A training step differentiates the
loss with respect to those weights too, and the optimizer says what each becomes
(``Optimizer.overwrite``: the gradient as it is, as Keras's optimizer overwrites such a
weight; under gradient accumulation, the largest since the last update, at update steps).
Their gradients are not divided by a loss scale (Keras's optimizers leave them unscaled).

>>> import jax.numpy as jnp
>>> writes = GradientWrites({"layer": {"history": True, "count": False}})
>>> state = {"layer": {"history": jnp.zeros(2), "count": jnp.ones(())}}
>>> writes.values(state)
{'layer': {'history': Array([0., 0.], dtype=float32)}}
>>> written = writes.written(state, {"layer": {"history": jnp.full(2, 4.0)}})
>>> written["layer"]["history"].tolist(), float(written["layer"]["count"])
([4.0, 4.0], 1.0)
"""

from __future__ import annotations

import jax

__all__ = ["GradientWrites"]


def _subset(tree: dict, flags: dict) -> dict:
    out = {}
    for name, flag in flags.items():
        if isinstance(flag, dict):
            inner = _subset(tree[name], flag)
            if inner:
                out[name] = inner
        elif flag:
            out[name] = tree[name]
    return out


def _merged(tree: dict, values: dict) -> dict:
    out = dict(tree)
    for name, value in values.items():
        out[name] = _merged(tree[name], value) if isinstance(value, dict) else value
    return out


class GradientWrites:
    """Which leaves of a state pytree (nested dicts) a training step writes with their
    gradient.

    Args:
      flags: a pytree shaped like the state whose leaves are True for the weights
        written with their gradient.
    """

    def __init__(self, flags):
        self._flags = flags

    @property
    def flags(self):
        return self._flags

    def __bool__(self) -> bool:
        return any(jax.tree_util.tree_leaves(self._flags))

    def values(self, state) -> dict:
        """The written weights of ``state``, alone in a tree of the same nesting: what to
        differentiate by (their gradients come back alike)."""
        return _subset(state, self._flags)

    def with_values(self, state, values):
        """``state`` with ``values`` (a tree as ``values`` gives) in place."""
        return _merged(state, values)

    def written(self, state, values):
        """``with_values``, each value in its weight's dtype."""
        return self.with_values(state, jax.tree_util.tree_map(
            lambda value, old: value.astype(old.dtype), values, self.values(state)))
