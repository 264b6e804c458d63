"""Weight-path masks for optax's ``mask=`` arguments, aware of stacked repeated blocks.

>>> import jax.numpy as jnp
>>> mask_by_path(lambda path: path[-1] == "kernel")({"dense": {"kernel": jnp.ones(2)}})
{'dense': {'kernel': True}}
"""

from __future__ import annotations

import jax

from compiler.stacking import block_names

__all__ = ["decay_arguments", "mask_by_path"]


def mask_by_path(predicate):
    """A mask function for optax's ``mask=`` arguments, from a predicate on weight paths.

    ``predicate(path)`` gets a weight's path as a tuple of names, e.g.
    ``("block_1", "dense", "kernel")``, and returns True where the transformation applies.
    Repeated blocks kept stacked in a train state (``"block_0..block_47"``, see
    ``compiler.stacking``) share one answer: the predicate is asked for each block's path,
    and different answers are an error (treating the blocks of one run differently needs
    them unstacked: ``Trainer(..., stack_blocks=False)``).

    >>> import jax.numpy as jnp, optax
    >>> decay_kernels = mask_by_path(lambda path: path[-1] == "kernel")
    >>> decay_kernels({"dense": {"kernel": jnp.ones(2), "bias": jnp.ones(2)}})
    {'dense': {'bias': False, 'kernel': True}}
    >>> opt = optax.adamw(1e-3, weight_decay=1e-4, mask=decay_kernels)
    """
    def stacked_at(names):
        """The position of the stacked key among ``names`` and its runs' block names."""
        for i, name in enumerate(names):
            runs = block_names(name)
            if not runs:
                first, dots, last = str(name).partition("..")
                runs = [(first, last)] if dots else []  # a stacked key planned elsewhere
            if runs:
                return i, runs
        return None, []

    def answer(path, _):
        names = tuple(getattr(k, "key", getattr(k, "name", k)) for k in path)
        at, runs = stacked_at(names)
        if not runs:
            return bool(predicate(names))
        answers = {block: bool(predicate((*names[:at], block, *names[at + 1:])))
                   for run in runs for block in run}
        if len(set(answers.values())) > 1:
            split = sorted(answers, key=lambda block: answers[block])
            rest = "/".join(map(str, names[at + 1:]))
            if len(runs) > 1:
                raise ValueError(
                    f"mask_by_path: models compiled in this process have different blocks "
                    f"under the stacked key {names[at]!r}, and the predicate's answers for "
                    f"them differ ({rest}), so the blocks of these params can't be told "
                    "apart: give the blocks unique names, or train with "
                    "Trainer(..., stack_blocks=False).")
            raise ValueError(
                f"mask_by_path: the predicate treats blocks {split[0]!r} and {split[-1]!r} "
                f"of the stacked run {names[at]!r} differently ({rest}); blocks kept "
                "stacked share one answer. Train with Trainer(..., stack_blocks=False) to "
                "treat them separately.")
        return next(iter(answers.values()))

    def mask(params):
        return jax.tree_util.tree_map_with_path(answer, params)

    return mask


def decay_arguments(optimizer, entries, params) -> dict:
    """The extra arguments of ``optimizer.update`` for ``params`` (a train state's, in the
    named or stacked layout; ``entries``: the weights' entries, each a ``path`` and a
    ``variable``): ``decay_mask`` when ``exclude_from_weight_decay`` keeps some weights out
    of the decay (found from the weights' paths when the step is compiled), else none."""
    decay_mask = getattr(optimizer, "decay_mask", None)
    decays = None if decay_mask is None else decay_mask([e.variable for e in entries])
    if decays is None:
        return {}
    by_path = dict(zip((tuple(e.path) for e in entries), decays))
    return {"decay_mask": mask_by_path(by_path.__getitem__)(params)}
