"""Keras 3's optimizers (names, arguments, defaults and numbers) on optax.

>>> import optax
>>> opt = Adam(learning_rate=1e-3)
>>> isinstance(opt, optax.GradientTransformation), opt.get_config()["beta_2"]
(True, 0.999)
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import optax

from runtime.optimizers.base import Optimizer

__all__ = ["Adadelta", "Adafactor", "Adagrad", "Adam", "AdamW", "Adamax", "Lion", "Nadam",
           "Optimizer", "RMSprop", "SGD"]


def _scale_by_keras_adam(beta_1, beta_2, epsilon, amsgrad):
    """Keras's Adam direction ``sqrt(1 - b2^t) / (1 - b1^t) * m / (sqrt(v) + epsilon)``:
    epsilon added before the bias correction (optax adds it after), hand-written so the
    numbers are Keras's even where ``v`` is tiny."""
    def init(params):
        zeros = lambda: jax.tree_util.tree_map(jnp.zeros_like, params)  # noqa: E731
        return jnp.zeros((), jnp.int32), zeros(), zeros(), zeros()

    def update(grads, state, params=None):
        count, m, v, v_max = state
        t = (count + 1).astype(jnp.float32)
        m = jax.tree_util.tree_map(lambda m, g: m + (g - m) * (1 - beta_1), m, grads)
        v = jax.tree_util.tree_map(lambda v, g: v + (g * g - v) * (1 - beta_2), v, grads)
        if amsgrad:
            v_max = jax.tree_util.tree_map(jnp.maximum, v_max, v)
        scale = jnp.sqrt(1 - jnp.power(beta_2, t)) / (1 - jnp.power(beta_1, t))
        denominators = v_max if amsgrad else v
        direction = jax.tree_util.tree_map(
            lambda m, v: scale * m / (jnp.sqrt(v) + epsilon), m, denominators)
        return direction, (count + 1, m, v, v_max)

    return optax.GradientTransformation(init, update)


class SGD(Optimizer):
    """Gradient descent with optional (Nesterov) momentum."""

    _elementwise_rule = True

    _default_learning_rate, _default_name = 0.01, "SGD"
    _defaults = {"momentum": 0.0, "nesterov": False}

    @staticmethod
    def _rule(learning_rate, momentum, nesterov):
        if not 0 <= momentum <= 1:
            raise ValueError("`momentum` must be a float between [0, 1].")
        return optax.sgd(learning_rate, momentum or None, nesterov)


class Adam(Optimizer):
    """Adam (``amsgrad`` keeps the maximum second moment)."""

    _elementwise_rule = True

    _default_learning_rate, _default_name = 0.001, "adam"
    _defaults = {"beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-7, "amsgrad": False}

    @staticmethod
    def _rule(learning_rate, beta_1, beta_2, epsilon, amsgrad):
        return optax.chain(_scale_by_keras_adam(beta_1, beta_2, epsilon, amsgrad),
                           optax.scale_by_learning_rate(learning_rate))


class AdamW(Adam):
    """Adam with decoupled weight decay (default 0.004)."""

    _default_name = "adamw"
    _common_defaults = {"weight_decay": 0.004}
    _positional = ("learning_rate", "weight_decay", "beta_1", "beta_2", "epsilon", "amsgrad")


class RMSprop(Optimizer):
    """RMSprop: ``lr * g / sqrt(v + epsilon)`` (``centered``, ``momentum`` as Keras)."""

    _elementwise_rule = True

    _default_learning_rate, _default_name = 0.001, "rmsprop"
    _defaults = {"rho": 0.9, "momentum": 0.0, "epsilon": 1e-7, "centered": False}

    @staticmethod
    def _rule(learning_rate, rho, momentum, epsilon, centered):
        return optax.rmsprop(learning_rate, decay=rho, eps=epsilon, centered=centered,
                             momentum=momentum or None, eps_in_sqrt=True)


class Adagrad(Optimizer):
    """Adagrad with Keras's initial accumulator 0.1."""

    _elementwise_rule = True

    _default_learning_rate, _default_name = 0.001, "adagrad"
    _defaults = {"initial_accumulator_value": 0.1, "epsilon": 1e-7}

    @staticmethod
    def _rule(learning_rate, initial_accumulator_value, epsilon):
        return optax.adagrad(learning_rate, initial_accumulator_value, epsilon)


class Adadelta(Optimizer):
    """Adadelta (Keras's default learning rate 0.001)."""

    _elementwise_rule = True

    _default_learning_rate, _default_name = 0.001, "adadelta"
    _defaults = {"rho": 0.95, "epsilon": 1e-7}

    @staticmethod
    def _rule(learning_rate, rho, epsilon):
        return optax.adadelta(learning_rate, rho, epsilon)


class Adamax(Optimizer):
    """Adamax: Adam with the infinity norm."""

    _elementwise_rule = True

    _default_learning_rate, _default_name = 0.001, "adamax"
    _defaults = {"beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-7}

    @staticmethod
    def _rule(learning_rate, beta_1, beta_2, epsilon):
        return optax.adamax(learning_rate, beta_1, beta_2, epsilon)


class Lion(Optimizer):
    """Lion: sign of interpolated momentum."""

    _elementwise_rule = True

    _default_learning_rate, _default_name = 0.001, "lion"
    _defaults = {"beta_1": 0.9, "beta_2": 0.99}

    @staticmethod
    def _rule(learning_rate, beta_1, beta_2):
        if beta_1 <= 0 or beta_1 > 1:
            raise ValueError(f"Argument `beta_1` must be in the [0, 1] range. Otherwise, the "
                             f"optimizer degenerates to SignSGD. Received: beta_1={beta_1}.")
        return optax.lion(learning_rate, beta_1, beta_2, weight_decay=0.0)


def _scale_by_keras_nadam(beta_1, beta_2, epsilon):
    """Keras's Nadam direction (its momentum schedule ``beta_1 (1 - 0.5 * 0.96 ** t)``,
    which optax's nadam does not use): hand-written for Keras's numbers."""
    def init(params):
        zeros = jax.tree_util.tree_map(jnp.zeros_like, params)
        return (jnp.zeros((), jnp.int32), jnp.ones((), jnp.float32), zeros,
                jax.tree_util.tree_map(jnp.zeros_like, params))

    def update(grads, state, params=None):
        count, u_product, m, v = state
        t = (count + 1).astype(jnp.float32)
        u_t = beta_1 * (1.0 - 0.5 * jnp.power(0.96, t))
        u_t_1 = beta_1 * (1.0 - 0.5 * jnp.power(0.96, t + 1.0))
        u_product = u_product * u_t
        u_product_1 = u_product * u_t_1
        m = jax.tree_util.tree_map(lambda m, g: m + (g - m) * (1 - beta_1), m, grads)
        v = jax.tree_util.tree_map(lambda v, g: v + (g * g - v) * (1 - beta_2), v, grads)
        beta_2_power = jnp.power(beta_2, t)

        def direction(m, v, g):
            m_hat = u_t_1 * m / (1 - u_product_1) + (1 - u_t) * g / (1 - u_product)
            return m_hat / (jnp.sqrt(v / (1 - beta_2_power)) + epsilon)

        return (jax.tree_util.tree_map(direction, m, v, grads),
                (count + 1, u_product, m, v))

    return optax.GradientTransformation(init, update)


class Nadam(Optimizer):
    """Nesterov Adam with Keras's momentum schedule."""

    _elementwise_rule = True

    _default_learning_rate, _default_name = 0.001, "nadam"
    _defaults = {"beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-7}

    @staticmethod
    def _rule(learning_rate, beta_1, beta_2, epsilon):
        return optax.chain(_scale_by_keras_nadam(beta_1, beta_2, epsilon),
                           optax.scale_by_learning_rate(learning_rate))


def _keras_adafactor(learning_rate, beta_2_decay, epsilon_1, epsilon_2, clip_threshold,
                     relative_step):
    """Keras's Adafactor update (its relative step and factored second moments differ from
    optax.adafactor's): hand-written for Keras's numbers; includes the learning rate."""
    def rms(x):
        return jnp.sqrt(jnp.mean(jnp.square(x)))

    def init(params):
        def slots(p):
            if p.ndim >= 2:
                return (jnp.zeros(p.shape[:-1], p.dtype), jnp.zeros(p.shape[:-2] + p.shape[-1:],
                                                                     p.dtype), jnp.zeros((), p.dtype))
            return (jnp.zeros((), p.dtype), jnp.zeros((), p.dtype), jnp.zeros(p.shape, p.dtype))

        return jnp.zeros((), jnp.int32), jax.tree_util.tree_map(slots, params)

    def update(grads, state, params=None):
        if params is None:
            raise ValueError("Adafactor needs the params: call update(grads, state, params).")
        count, slots = state
        t = (count + 1).astype(jnp.float32)
        lr = jnp.asarray(learning_rate, jnp.float32)
        if relative_step:
            lr = jnp.minimum(lr, 1 / jnp.sqrt(t))
        rho_t = jnp.minimum(lr, 1 / jnp.sqrt(t))
        beta_2_t = 1 - jnp.power(t, beta_2_decay)

        def one(g, p, slot):
            r, c, v = slot
            alpha = jnp.maximum(epsilon_2, rms(p)) * rho_t
            squared = jnp.square(g) + epsilon_1
            if p.ndim >= 2:
                r = beta_2_t * r + (1 - beta_2_t) * jnp.mean(squared, axis=-1)
                c = beta_2_t * c + (1 - beta_2_t) * jnp.mean(squared, axis=-2)
                v_full = (r / jnp.mean(r, axis=-1, keepdims=True))[..., None] * c[..., None, :]
            else:
                v = beta_2_t * v + (1 - beta_2_t) * squared
                v_full = v
            u = g / jnp.sqrt(v_full)
            u = u / jnp.maximum(1.0, rms(u) / clip_threshold)
            return -alpha * u, (r, c, v)

        flat_g, treedef = jax.tree_util.tree_flatten(grads)
        flat_p = treedef.flatten_up_to(params)
        flat_s = treedef.flatten_up_to(slots)
        results = [one(g, p, s) for g, p, s in zip(flat_g, flat_p, flat_s)]
        updates = treedef.unflatten([u for u, _ in results])
        return updates, (count + 1, treedef.unflatten([s for _, s in results]))

    return optax.GradientTransformation(init, update)


class Adafactor(Optimizer):
    """Adafactor with factored second moments and Keras's relative step size."""

    _elementwise_rule = False  # factored second moments: statistics per weight

    _default_learning_rate, _default_name = 0.001, "adafactor"
    _defaults = {"beta_2_decay": -0.8, "epsilon_1": 1e-30, "epsilon_2": 1e-3,
                 "clip_threshold": 1.0, "relative_step": True}

    @staticmethod
    def _rule(learning_rate, **hyper):
        return _keras_adafactor(learning_rate, **hyper)
