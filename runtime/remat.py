"""Rematerialisation by layer path: ``jax.checkpoint`` around chosen nodes.

``Remat({"block_.*": "dots_saveable"})`` recomputes, in the backward pass, what the named
nodes computed, keeping only what the policy saves (``jax.checkpoint_policies``): memory
for compute. A pattern is a layer path (``"encoder/dense"``; a nested model's call is one
node, so naming it rematerialises the whole block), matched exactly or by
``re.fullmatch``; ``remat="dots_saveable"`` (a policy alone) applies to every layer.
The numbers are those of the plain program; ``Trainer.memory_report`` shows what it saves.

>>> Remat({"dense.*": "nothing_saveable"}).policy_for("dense_1") is not None
True
>>> Remat("dots_saveable").policy_for("anything") is not None
True
"""

from __future__ import annotations

import jax

from kgraph.interpreter import context
from runtime.path_rules import PathRules, RuleHook

__all__ = ["POLICIES", "Remat"]


POLICIES = ("everything_saveable", "nothing_saveable", "dots_saveable",
            "dots_with_no_batch_dims_saveable", "checkpoint_dots",
            "checkpoint_dots_with_no_batch_dims")


def _policy(name: str):
    if name not in POLICIES:
        raise ValueError(f"Unknown rematerialisation policy {name!r}; use one of "
                         f"{list(POLICIES)} (jax.checkpoint_policies).")
    return getattr(jax.checkpoint_policies, name)


class Remat(RuleHook):
    """A node hook running the chosen layers under ``jax.checkpoint``."""

    def __init__(self, remat):
        if isinstance(remat, str):
            remat = {".*": remat}
        if not isinstance(remat, dict) or not remat:
            raise TypeError("remat must be a policy name (e.g. 'dots_saveable') or a dict "
                            f"{{layer path pattern: policy name}}, received {remat!r}.")
        self.rules = PathRules({pattern: _policy(policy) for pattern, policy in remat.items()},
                               "remat")

    def policy_for(self, path: str):
        """The policy of the node at ``path`` (None: not rematerialised)."""
        return self.value_for(path)

    def wrap_node(self, node, path, run):
        policy = self.policy_for(path)
        if policy is None:
            return None

        def checkpointed(node, args, kwargs, input_masks):
            return context.checkpoint(lambda a, k, m: run(node, a, k, m), args, kwargs,
                                      input_masks, policy=policy)

        return checkpointed
