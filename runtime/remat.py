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

import re

import jax

from kgraph.interpreter import context
from kgraph.interpreter.walk import NodeHook

POLICIES = ("everything_saveable", "nothing_saveable", "dots_saveable",
            "dots_with_no_batch_dims_saveable", "checkpoint_dots",
            "checkpoint_dots_with_no_batch_dims")


def _policy(name: str):
    if name not in POLICIES:
        raise ValueError(f"Unknown rematerialisation policy {name!r}; use one of "
                         f"{list(POLICIES)} (jax.checkpoint_policies).")
    return getattr(jax.checkpoint_policies, name)


class Remat(NodeHook):
    """A node hook running the chosen layers under ``jax.checkpoint``."""

    def __init__(self, remat):
        if isinstance(remat, str):
            remat = {".*": remat}
        if not isinstance(remat, dict) or not remat:
            raise TypeError("remat must be a policy name (e.g. 'dots_saveable') or a dict "
                            f"{{layer path pattern: policy name}}, received {remat!r}.")
        self.rules = [(pattern, _policy(policy)) for pattern, policy in remat.items()]
        for pattern, _ in self.rules:
            try:
                re.compile(pattern)
            except re.error as error:
                raise ValueError(f"remat pattern {pattern!r} is not a regular expression: "
                                 f"{error}.") from None
        self.used: set = set()

    def policy_for(self, path: str):
        """The policy of the node at ``path`` (None: not rematerialised)."""
        for pattern, policy in self.rules:
            if pattern == path:
                self.used.add(pattern)
                return policy
        for pattern, policy in self.rules:
            if re.fullmatch(pattern, path):
                self.used.add(pattern)
                return policy
        return None

    def check_all_used(self, model_name: str) -> None:
        """After a trace: a pattern that matched no layer is an error (a typo)."""
        unused = [pattern for pattern, _ in self.rules if pattern not in self.used]
        if unused:
            raise ValueError(f"remat patterns {unused} match no layer of model "
                             f"{model_name!r} (patterns match layer paths, e.g. "
                             "\"encoder/dense\").")

    def wrap_node(self, node, path, run):
        policy = self.policy_for(path)
        if policy is None:
            return None

        def checkpointed(node, args, kwargs, input_masks):
            return context.checkpoint(lambda a, k, m: run(node, a, k, m), args, kwargs,
                                      input_masks, policy=policy)

        return checkpointed
