"""Keras's ``Ftrl`` and ``Lamb`` on optax. Both read the weights themselves (FTRL sets them,
LAMB scales its step by their norm), so Keras's decoupled ``weight_decay``, which Keras
applies to the weights before the update rule, is applied inside the rule here.

>>> import jax.numpy as jnp, optax
>>> params = [jnp.ones((2, 2))]
>>> opt = Lamb(learning_rate=0.1)
>>> updates, _ = opt.update([jnp.ones((2, 2))], opt.init(params), params)
>>> [round(float(u), 4) for u in updates[0].ravel()]  # each weight moves by lr * |w| / |step|
[-0.1, -0.1, -0.1, -0.1]
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import optax

from kgraph.optimizers.base import Optimizer
from kgraph.optimizers.transforms import decayed as _decayed

__all__ = ["Ftrl", "Lamb"]


def _keras_ftrl(learning_rate, weight_decay, learning_rate_power, initial_accumulator_value,
                l1_regularization_strength, l2_regularization_strength,
                l2_shrinkage_regularization_strength, beta):
    """Keras's FTRL-proximal step: the new weight is ``(clip(linear, -l1, l1) - linear) /
    quadratic``; the update is its difference from the weight."""
    power = -learning_rate_power

    def init(params):
        return (jax.tree_util.tree_map(lambda p: jnp.full_like(p, initial_accumulator_value),
                                       params),
                jax.tree_util.tree_map(jnp.zeros_like, params))

    def update(grads, state, params=None, *, decay_mask=None, **extra_args):
        if params is None:
            raise ValueError("Ftrl needs the params: call update(grads, state, params).")
        accumulators, linears = state
        decayed = _decayed(params, learning_rate, weight_decay, decay_mask)
        l2 = l2_regularization_strength + beta / (2.0 * learning_rate)

        def one(g, w, accumulator, linear, original):
            shrunk = g + 2 * l2_shrinkage_regularization_strength * w
            new_accumulator = accumulator + jnp.square(g)
            linear = linear + shrunk - (jnp.power(new_accumulator, power)
                                        - jnp.power(accumulator, power)) / learning_rate * w
            quadratic = jnp.power(new_accumulator, power) / learning_rate + 2 * l2
            clipped = jnp.clip(linear, -l1_regularization_strength, l1_regularization_strength)
            return (clipped - linear) / quadratic - original, new_accumulator, linear

        out = jax.tree_util.tree_map(one, grads, decayed, accumulators, linears, params)
        treedef = jax.tree_util.tree_structure(grads)
        updates, new_accumulators, new_linears = (
            jax.tree_util.tree_unflatten(treedef, [t[i] for t in treedef.flatten_up_to(out)])
            for i in range(3))
        return updates, (new_accumulators, new_linears)

    return optax.GradientTransformationExtraArgs(init, update)


def _keras_lamb(learning_rate, weight_decay, beta_1, beta_2, epsilon):
    """Keras's LAMB step: Adam's direction scaled so that it moves each weight by
    ``lr * |w| / |direction|`` (1 when either norm is 0)."""
    def init(params):
        zeros = lambda: jax.tree_util.tree_map(jnp.zeros_like, params)  # noqa: E731
        return jnp.zeros((), jnp.int32), zeros(), zeros()

    def update(grads, state, params=None, *, decay_mask=None, **extra_args):
        if params is None:
            raise ValueError("Lamb needs the params: call update(grads, state, params).")
        count, m, v = state
        t = (count + 1).astype(jnp.float32)
        m = jax.tree_util.tree_map(lambda m, g: m + (g - m) * (1 - beta_1), m, grads)
        v = jax.tree_util.tree_map(lambda v, g: v + (g * g - v) * (1 - beta_2), v, grads)
        decayed = _decayed(params, learning_rate, weight_decay, decay_mask)

        def one(m, v, w, original):
            direction = (m / (1.0 - beta_1 ** t)) / (jnp.sqrt(v / (1.0 - beta_2 ** t)) + epsilon)
            w_norm = jnp.sqrt(jnp.sum(jnp.square(w)))
            d_norm = jnp.sqrt(jnp.sum(jnp.square(direction)))
            ratio = jnp.where((w_norm > 0) & (d_norm > 0), w_norm / d_norm, 1.0)
            return w - ratio * learning_rate * direction - original

        return (jax.tree_util.tree_map(one, m, v, decayed, params), (count + 1, m, v))

    return optax.GradientTransformationExtraArgs(init, update)


class Ftrl(Optimizer):
    """FTRL-proximal (``l1`` / ``l2`` / shrinkage regularization, ``beta``), as Keras."""

    _elementwise_rule = True
    _decays_itself = True

    _default_learning_rate, _default_name = 0.001, "ftrl"
    _defaults = {"learning_rate_power": -0.5, "initial_accumulator_value": 0.1,
                 "l1_regularization_strength": 0.0, "l2_regularization_strength": 0.0,
                 "l2_shrinkage_regularization_strength": 0.0, "beta": 0.0}

    @staticmethod
    def _rule(learning_rate, weight_decay, **hyper):
        checks = {"initial_accumulator_value": "positive or zero",
                  "l1_regularization_strength": "positive or zero",
                  "l2_regularization_strength": "positive or zero",
                  "l2_shrinkage_regularization_strength": "positive or zero"}
        for key, needed in checks.items():
            if hyper[key] < 0.0:
                raise ValueError(f"`{key}` needs to be {needed}. Received: {key}={hyper[key]}.")
        if hyper["learning_rate_power"] > 0.0:
            raise ValueError("`learning_rate_power` needs to be negative or zero. Received: "
                             f"learning_rate_power={hyper['learning_rate_power']}.")
        return _keras_ftrl(learning_rate, weight_decay, **hyper)

    def _keras_slot_names(self):
        return [["accumulator", "linear"]], []

    def _keras_slots(self, state, params):  # accumulator and linear per weight
        return [list(state)], []

    def _from_keras_slots(self, state, groups, scalars, params):
        return tuple(groups[0])


class Lamb(Optimizer):
    """LAMB: Adam's direction with a per-weight trust ratio, as Keras."""

    _elementwise_rule = False  # the trust ratio is a norm per weight
    _decays_itself = True

    _default_learning_rate, _default_name = 0.001, "lamb"
    _defaults = {"beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-7}

    @staticmethod
    def _rule(learning_rate, weight_decay, beta_1, beta_2, epsilon):
        return _keras_lamb(learning_rate, weight_decay, beta_1, beta_2, epsilon)

    def _keras_slot_names(self):
        return [["momentum", "velocity"]], []

    def _keras_slots(self, state, params):  # momentum and velocity per weight
        return [[state[1], state[2]]], []

    def _from_keras_slots(self, state, groups, scalars, params):
        return (state[0], *groups[0])
