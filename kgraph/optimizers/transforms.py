"""The optax pieces every Keras optimizer class chains around its update rule: Keras's
``clipnorm`` per weight, its decoupled ``weight_decay`` (with the weights
``exclude_from_weight_decay`` names left alone) and ``use_ema``'s moving average.

A decay reads the extra argument ``decay_mask`` (optax's extra arguments reach every
transformation of a chain): a tree shaped like the weights, True where the weight decays;
None decays every weight.

>>> import jax.numpy as jnp
>>> params = {"kernel": jnp.ones(2), "bias": jnp.ones(2)}
>>> decay = decoupled_decay(0.5, 0.1)
>>> updates, _ = decay.update(params, decay.init(params), params,
...                           decay_mask={"kernel": True, "bias": False})
>>> updates["kernel"].tolist(), updates["bias"].tolist()
([0.949999988079071, 0.949999988079071], [1.0, 1.0])
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import optax

__all__ = ["EmaState", "clip_by_norm", "decayed", "decoupled_decay", "moving_average"]


def clip_by_norm(clipnorm):
    """Keras's ``clipnorm``: each gradient scaled to an L2 norm of at most ``clipnorm``."""
    def clip(g):
        norm = jnp.sqrt(jnp.sum(jnp.square(g)))
        return g * clipnorm / jnp.maximum(norm, clipnorm)

    return optax.stateless(lambda updates, params=None: jax.tree_util.tree_map(clip, updates))


def _where_decayed(mask, params):
    """``mask`` as a tree of bools shaped like ``params`` (None: every weight decays)."""
    if mask is None:
        return jax.tree_util.tree_map(lambda _: True, params)
    return mask


def decayed(params, learning_rate, weight_decay, mask=None):
    """The weights after Keras's decoupled decay ``w - w * weight_decay * lr``, for rules
    that read the weights (``Optimizer._decays_itself``); ``mask``: ``decay_mask``."""
    if not weight_decay:
        return params
    return jax.tree_util.tree_map(
        lambda p, m: p - p * weight_decay * learning_rate if m else p,
        params, _where_decayed(mask, params))


def decoupled_decay(learning_rate, weight_decay):
    """Keras's decoupled weight decay: ``- lr * weight_decay * w`` added to the update of
    each weight ``decay_mask`` marks (identity for a decay of None or 0)."""
    def init(params):
        return optax.EmptyState()

    def update(updates, state, params=None, *, decay_mask=None, **extra_args):
        if not weight_decay:
            return updates, state
        if params is None:
            raise ValueError("weight_decay needs the params: call update(grads, state, params).")
        return jax.tree_util.tree_map(
            lambda u, p, m: u - learning_rate * weight_decay * p if m else u,
            updates, params, _where_decayed(decay_mask, params)), state

    return optax.GradientTransformationExtraArgs(init, update)


class EmaState(NamedTuple):
    """The moving average of the weights kept by an optimizer with ``use_ema=True``;
    ``ema_count``: the steps it has seen."""

    ema_count: jnp.ndarray
    ema: object


def moving_average(momentum, overwrite_frequency, every=1):
    """Keras's ``use_ema``: at each step, ``ema = m * ema + (1 - m) * weights`` with the
    weights after the step (``m`` is 0 while Keras's ``iterations`` is 0: the average
    starts as the weights); when ``(iterations + 1) % overwrite_frequency == 0`` the
    weights are replaced by the average. Under ``gradient_accumulation_steps=every`` it
    runs at every batch, as Keras's, where ``iterations`` counts updates (batches //
    ``every``). ``Optimizer.finalize_variable_values`` reads it at the end."""
    def init(params):
        return EmaState(jnp.zeros((), jnp.int32), jax.tree_util.tree_map(jnp.copy, params))

    def update(updates, state, params=None):
        if params is None:
            raise ValueError("use_ema needs the params: call update(grads, state, params).")
        iterations = state.ema_count // every
        new = optax.apply_updates(params, updates)
        m = jnp.where(iterations == 0, 0.0, momentum)
        ema = jax.tree_util.tree_map(lambda a, w: (m * a + (1 - m) * w).astype(w.dtype),
                                     state.ema, new)
        if overwrite_frequency:
            swap = (iterations + 1) % overwrite_frequency == 0
            updates = jax.tree_util.tree_map(lambda u, a, p: jnp.where(swap, a - p, u),
                                             updates, ema, params)
        return updates, EmaState(state.ema_count + 1, ema)

    return optax.GradientTransformation(init, update)
