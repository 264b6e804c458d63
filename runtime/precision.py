"""Mixed precision for a whole model or by layer path, chosen when training starts.

``Precision("mixed_bfloat16")`` runs every layer in bfloat16 while the weights, their
gradients and the optimizer state stay float32: a layer casts its floating inputs and
weights to bfloat16 inside its call (as with a layer's own ``dtype="mixed_bfloat16"``),
and the casts' gradients go back to float32. Contractions with weights (``Dense``,
``EinsumDense``, convolutions) accumulate in float32, forward and backward, so weight
gradients, sums over the batch and over every device of the data axis, are reduced in
float32 (``kgraph.layers.accumulate``). Losses are computed in float32.

By path, the first matching rule wins (an exact path before patterns), and a node's rule
holds for everything it calls (a nested model's or a block's layers) unless one of them
has its own: ``Precision({"head": "float32", ".*": "mixed_bfloat16"})`` keeps the
last layer in float32. Layers that compute in integers (lookups) are left alone. The
model keeps its own weights' dtypes; only the compute dtype changes.

>>> import jax.numpy as jnp
>>> Precision({"head": "float32", ".*": "mixed_bfloat16"}).value_for("dense").compute_dtype
dtype(bfloat16)
"""

from __future__ import annotations

import jax.numpy as jnp

from kgraph import dtype_policy
from kgraph.interpreter import context
from runtime.path_rules import PathRules, RuleHook

__all__ = ["Precision"]


def _policy(value):
    try:
        policy = dtype_policy.get(value)
    except (TypeError, ValueError) as error:
        raise ValueError(f"precision: {value!r} is not a dtype policy ('mixed_bfloat16', "
                         f"'mixed_float16', 'float32', ...): {error}") from None
    if not jnp.issubdtype(policy.compute_dtype, jnp.floating):
        raise ValueError(f"precision: policy {policy.name!r} does not compute in floats.")
    return policy


class Precision(RuleHook):
    """A node hook running the chosen layers in their policy's compute dtype."""

    def __init__(self, precision):
        if isinstance(precision, (str, dtype_policy.DTypePolicy)):
            precision = {".*": precision}
        if not isinstance(precision, dict) or not precision:
            raise TypeError("precision must be a dtype policy name (e.g. 'mixed_bfloat16') "
                            "or a dict {layer path pattern: policy name}, received "
                            f"{precision!r}.")
        self.rules = PathRules({pattern: _policy(value)
                                for pattern, value in precision.items()}, "precision")

    def wrap_node(self, node, path, run):
        policy = self.value_for(path)
        if policy is None:
            return None
        dtype = policy.compute_dtype

        def in_policy(node, args, kwargs, input_masks):
            ctx = context.current()
            saved, ctx.options.compute_dtype = ctx.options.compute_dtype, dtype
            try:
                return run(node, args, kwargs, input_masks)
            finally:
                ctx.options.compute_dtype = saved

        return in_policy
