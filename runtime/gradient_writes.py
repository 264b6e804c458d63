"""State weights written with their gradient, as Keras's ``overwrite_with_gradient``.

A weight whose new value only the backward pass knows (a float8 layer's
``outputs_grad_amax_history``: the output gradient's ``max|x|`` rolled in) is a state
weight marked ``_written_by_gradient``, whose gradient is its new value (the layer's custom
gradient returns it). A training step differentiates the loss with respect to those weights
too, and puts each gradient in the new state in place of the weight's value, as Keras's
optimizer overwrites such a weight with its gradient (a loss scale, which the gradient
carries, divided out first, as Keras's ``LossScaleOptimizer`` unscales every gradient).

>>> import jax.numpy as jnp
>>> writes = GradientWrites({"layer": {"history": True, "count": False}})
>>> state = {"layer": {"history": jnp.zeros(2), "count": jnp.ones(())}}
>>> probes = writes.probes(state)
>>> [p.shape for p in probes]
[(2,)]
>>> written = writes.written(state, [jnp.full(2, 8.0)], scale=2.0)
>>> written["layer"]["history"].tolist(), float(written["layer"]["count"])
([4.0, 4.0], 1.0)
"""

from __future__ import annotations

import jax

__all__ = ["GradientWrites"]


class GradientWrites:
    """Which leaves of a state pytree a training step writes with their gradient.

    Args:
      flags: a pytree shaped like the state whose leaves are True for the weights
        written with their gradient.
    """

    def __init__(self, flags):
        self._flags = flags

    def __bool__(self) -> bool:
        return any(jax.tree_util.tree_leaves(self._flags))

    def _positions(self, state):
        leaves, treedef = jax.tree_util.tree_flatten(state)
        flags = treedef.flatten_up_to(self._flags)
        return leaves, treedef, [i for i, flag in enumerate(flags) if flag]

    def probes(self, state) -> list:
        """The values of the written weights in ``state``: what to differentiate by."""
        leaves, _, positions = self._positions(state)
        return [leaves[i] for i in positions]

    def with_values(self, state, values):
        """``state`` with ``values`` (one per written weight, ``probes``' order) in place."""
        leaves, treedef, positions = self._positions(state)
        for i, value in zip(positions, values):
            leaves[i] = value
        return jax.tree_util.tree_unflatten(treedef, leaves)

    def written(self, state, gradients, scale=None):
        """``state`` with each written weight's gradient (divided by the loss ``scale``
        the gradients carry, if any) as its new value, in its dtype."""
        leaves, _, positions = self._positions(state)
        values = []
        for i, gradient in zip(positions, gradients):
            if scale is not None:
                gradient = gradient / scale
            values.append(gradient.astype(leaves[i].dtype))
        return self.with_values(state, values)
