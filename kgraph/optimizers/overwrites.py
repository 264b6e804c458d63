"""Weights a training step overwrites with their gradient (Keras's
``overwrite_with_gradient``: a float8 layer's scales and amax histories), as an optimizer
writes them.

Without ``gradient_accumulation_steps`` each such weight takes its gradient at every step.
With ``k`` steps it changes at update steps only: the optimizer keeps, for each, the
largest of the gradients since the last update (element by element, from zeros), and at an
update step writes the largest of those and the step's own, and starts again from zeros.
Those maxima are part of the optimizer state (``OverwriteState``, the last piece of the
chain under accumulation), so they save and restore with it: they are Keras's
``gradient_accumulator`` variables of those weights.

>>> import jax.numpy as jnp
>>> maxima = {"dense": {"scale": jnp.zeros(())}}
>>> current = {"dense": {"scale": jnp.ones(())}}
>>> values, maxima = accumulated(2, jnp.int32(0), {"dense": {"scale": jnp.float32(3.0)}},
...                              current, maxima)
>>> float(values["dense"]["scale"]), float(maxima["dense"]["scale"])  # no update yet
(1.0, 3.0)
>>> values, maxima = accumulated(2, jnp.int32(1), {"dense": {"scale": jnp.float32(2.0)}},
...                              current, maxima)
>>> float(values["dense"]["scale"]), float(maxima["dense"]["scale"])  # the largest, written
(3.0, 0.0)
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import optax

__all__ = ["OverwriteState", "accumulated", "accumulated_in", "init_state", "keeper",
           "overwrite", "with_maxima"]


class OverwriteState(NamedTuple):
    """Each overwritten weight's largest gradient since the last update (a tree shaped like
    those weights; ``{}`` when the optimizer was made for none)."""

    overwrite_maxima: Any


def keeper() -> optax.GradientTransformation:
    """The chain's piece that holds the ``OverwriteState``: its update passes the updates
    through and leaves the state as it is (``Optimizer.overwrite`` changes it)."""
    return optax.GradientTransformation(lambda params: OverwriteState({}),
                                        lambda updates, state, params=None: (updates, state))


def accumulated(every, count, proposed, current, maxima):
    """``(values, maxima)`` of the overwritten weights after a step with
    ``gradient_accumulation_steps=every``, at Keras's ``iterations`` ``count`` (the batches
    trained on before this one); ``proposed``: their gradients, ``current``: their values."""
    update = (count + 1) % every == 0
    largest = jax.tree_util.tree_map(
        lambda g, m: jnp.maximum(g.astype(m.dtype), m), proposed, maxima)
    values = jax.tree_util.tree_map(
        lambda value, now: jnp.where(update, value, now).astype(now.dtype), largest, current)
    maxima = jax.tree_util.tree_map(lambda m: jnp.where(update, jnp.zeros_like(m), m), largest)
    return values, maxima


def with_maxima(opt_state, maxima):
    """A Keras optimizer class's ``opt_state`` (under ``gradient_accumulation_steps``)
    keeping ``maxima`` for the overwritten weights (in its chain's last piece)."""
    inner = opt_state.inner_state
    return opt_state._replace(inner_state=inner[:-1] + (OverwriteState(maxima),))


def accumulated_in(opt_state, every, proposed, current, name):
    """``accumulated`` with the maxima that ``opt_state`` (a Keras optimizer class's, named
    ``name``) keeps: ``(values, opt_state)``."""
    maxima = opt_state.inner_state[-1].overwrite_maxima
    wanted = jax.tree_util.tree_structure(proposed)
    if jax.tree_util.tree_structure(maxima) != wanted:
        raise ValueError(
            f"Optimizer {name!r}: its state keeps the maxima of "
            f"{jax.tree_util.tree_structure(maxima)}, not of the weights a step overwrites "
            f"with their gradient ({wanted}, a float8 layer's scales and amax histories). "
            "Make the state with init(params, overwritten=...) for those weights.")
    values, maxima = accumulated(every, opt_state.count, proposed, current, maxima)
    return values, with_maxima(opt_state, maxima)


def init_state(optimizer, params, overwritten):
    """``optimizer``'s fresh state for training ``params`` and overwriting the weights of
    ``overwritten`` (a tree of them, or of their shapes)."""
    if jax.tree_util.tree_leaves(overwritten) and getattr(optimizer, "_keeps_overwrites",
                                                          False):
        return optimizer.init(params, overwritten=overwritten)
    return optimizer.init(params)


def overwrite(optimizer, opt_state, proposed, current):
    """``(values, opt_state)``: the overwritten weights' new values after a step whose
    gradients of them are ``proposed`` (``current``: their values), and the optimizer state
    holding what it keeps of them. An optimizer that keeps nothing of them (an optax
    transformation) writes the gradients as they are."""
    method = getattr(optimizer, "overwrite", None)
    if method is None or not jax.tree_util.tree_leaves(proposed):
        return proposed, opt_state
    return method(opt_state, proposed, current)
