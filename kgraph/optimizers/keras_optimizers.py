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

from kgraph.optimizers.base import Optimizer
from kgraph.optimizers.transforms import decayed

__all__ = ["Adadelta", "Adafactor", "Adagrad", "Adam", "AdamW", "Adamax", "Lion", "Nadam",
           "Optimizer", "RMSprop", "SGD"]


def _scale_by_keras_adam(beta_1, beta_2, epsilon, amsgrad):
    """Keras's Adam direction ``sqrt(1 - b2^t) / (1 - b1^t) * m / (sqrt(v) + epsilon)``:
    epsilon added before the bias correction (optax adds it after), hand-written so the
    numbers are Keras's even where ``v`` is tiny."""
    def init(params):
        zeros = lambda: jax.tree_util.tree_map(jnp.zeros_like, params)  # noqa: E731
        return jnp.zeros((), jnp.int32), zeros(), zeros(), zeros() if amsgrad else ()

    def update(grads, state, params=None):
        count, m, v, v_max = state
        t = (count + 1).astype(jnp.float32)
        m = jax.tree_util.tree_map(lambda m, g: m + (g - m) * (1 - beta_1), m, grads)
        v = jax.tree_util.tree_map(lambda v, g: v + (g * g - v) * (1 - beta_2), v, grads)
        if amsgrad:  # the maximum second moment is kept only when it is used
            v_max = jax.tree_util.tree_map(jnp.maximum, v_max, v)
        scale = jnp.sqrt(1 - jnp.power(beta_2, t)) / (1 - jnp.power(beta_1, t))
        denominators = v_max if amsgrad else v
        direction = jax.tree_util.tree_map(
            lambda m, v: scale * m / (jnp.sqrt(v) + epsilon), m, denominators)
        return direction, (count + 1, m, v, v_max)

    return optax.GradientTransformation(init, update)


def _keras_sgd(learning_rate, momentum, nesterov):
    """Keras's SGD: the momentum ``m = momentum * m - lr * g`` carries the learning rate of
    each step (optax's trace does not, which differs once the rate changes), and is the
    weight's update (Nesterov: ``momentum * m - lr * g``)."""
    def init(params):
        return (jax.tree_util.tree_map(jnp.zeros_like, params),) if momentum else ()

    def update(grads, state, params=None):
        def step(g):  # - lr * g, in the gradient's dtype (as Keras casts the rate)
            return -jnp.asarray(learning_rate, g.dtype) * g

        if not momentum:
            return jax.tree_util.tree_map(step, grads), state
        m = jax.tree_util.tree_map(lambda m, g: momentum * m + step(g), state[0], grads)
        if nesterov:
            return jax.tree_util.tree_map(lambda m, g: momentum * m + step(g), m, grads), (m,)
        return m, (m,)

    return optax.GradientTransformation(init, update)


def _interleaved(state, *fields):
    """Keras's layout of slots kept per weight: for each weight, each slot in turn."""
    return [[state[i] for i in fields]]


class SGD(Optimizer):
    """Gradient descent with optional (Nesterov) momentum."""

    _elementwise_rule = True

    _default_learning_rate, _default_name = 0.01, "sgd"
    _defaults = {"momentum": 0.0, "nesterov": False}

    @staticmethod
    def _rule(learning_rate, momentum, nesterov):
        if not 0 <= momentum <= 1:
            raise ValueError("`momentum` must be a float between [0, 1].")
        return _keras_sgd(learning_rate, momentum, nesterov)

    def _keras_slot_names(self):
        return ([["momentum"]] if self._config["momentum"] else []), []

    def _keras_slots(self, state, params):
        return ([[state[0]]] if state else []), []

    def _from_keras_slots(self, state, groups, scalars, params):
        return (groups[0][0],) if state else ()


class Adam(Optimizer):
    """Adam (``amsgrad`` keeps the maximum second moment)."""

    _elementwise_rule = True

    _default_learning_rate, _default_name = 0.001, "adam"
    _defaults = {"beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-7, "amsgrad": False}

    @staticmethod
    def _rule(learning_rate, beta_1, beta_2, epsilon, amsgrad):
        return optax.chain(_scale_by_keras_adam(beta_1, beta_2, epsilon, amsgrad),
                           optax.scale_by_learning_rate(learning_rate))

    def _keras_slot_names(self):
        return [["momentum", "velocity"]] + ([["velocity_hat"]] if self._config["amsgrad"] else []), []

    def _keras_slots(self, state, params):
        (_, m, v, v_max), _ = state  # momentum and velocity per weight, then velocity_hat
        return [[m, v]] + ([[v_max]] if self._config["amsgrad"] else []), []

    def _from_keras_slots(self, state, groups, scalars, params):
        (count, _, _, _), scale = state
        v_max = groups[1][0] if self._config["amsgrad"] else ()
        return (count, groups[0][0], groups[0][1], v_max), scale


class AdamW(Adam):
    """Adam with decoupled weight decay (default 0.004)."""

    _default_name = "adam_w"
    _common_defaults = {"weight_decay": 0.004}
    _positional = ("learning_rate", "weight_decay", "beta_1", "beta_2", "epsilon", "amsgrad")

    @classmethod
    def _check(cls, config) -> None:
        if config["weight_decay"] is None:
            raise ValueError(f"Optimizer {config['name']!r} (AdamW): Argument `weight_decay` "
                             "must be a float. Received: weight_decay=None")


class RMSprop(Optimizer):
    """RMSprop: ``lr * g / sqrt(v + epsilon)`` (``centered``, ``momentum`` as Keras)."""

    _elementwise_rule = True

    _default_learning_rate, _default_name = 0.001, "rm_sprop"
    _defaults = {"rho": 0.9, "momentum": 0.0, "epsilon": 1e-7, "centered": False}

    @staticmethod
    def _rule(learning_rate, rho, momentum, epsilon, centered):
        return optax.rmsprop(learning_rate, decay=rho, eps=epsilon, centered=centered,
                             momentum=momentum or None, eps_in_sqrt=True)

    # optax's state: (scale_by_rms | scale_by_stddev, scale_by_learning_rate[, trace]). Keras
    # keeps every weight's velocity, then every momentum, then every average gradient; its
    # momentum adds ``+lr * g / rms`` where optax's trace adds the update ``-lr * g / rms``.
    def _keras_slot_names(self):
        config = self._config
        return ([["velocity"]] + ([["momentum"]] if config["momentum"] else [])
                + ([["average_gradient"]] if config["centered"] else [])), []

    def _keras_slots(self, state, params):
        rms = state[0]
        groups = [[rms.nu]]
        if self._config["momentum"]:
            groups.append([jax.tree_util.tree_map(jnp.negative, state[2].trace)])
        if self._config["centered"]:
            groups.append([rms.mu])
        return groups, []

    def _from_keras_slots(self, state, groups, scalars, params):
        rms, *rest = state
        velocity, *more = [g[0] for g in groups]
        if self._config["momentum"]:
            momentum, *more = more
            rest[1] = rest[1]._replace(trace=jax.tree_util.tree_map(jnp.negative, momentum))
        rms = rms._replace(nu=velocity, **({"mu": more[0]} if self._config["centered"] else {}))
        return (rms, *rest)


class Adagrad(Optimizer):
    """Adagrad with Keras's initial accumulator 0.1."""

    _elementwise_rule = True

    _default_learning_rate, _default_name = 0.001, "adagrad"
    _defaults = {"initial_accumulator_value": 0.1, "epsilon": 1e-7}

    @staticmethod
    def _rule(learning_rate, initial_accumulator_value, epsilon):
        return optax.adagrad(learning_rate, initial_accumulator_value, epsilon)

    def _keras_slot_names(self):
        return [["accumulator"]], []

    def _keras_slots(self, state, params):
        return [[state[0].sum_of_squares]], []  # Keras's accumulator

    def _from_keras_slots(self, state, groups, scalars, params):
        return (state[0]._replace(sum_of_squares=groups[0][0]), *state[1:])


class Adadelta(Optimizer):
    """Adadelta (Keras's default learning rate 0.001)."""

    _elementwise_rule = True

    _default_learning_rate, _default_name = 0.001, "adadelta"
    _defaults = {"rho": 0.95, "epsilon": 1e-7}

    @staticmethod
    def _rule(learning_rate, rho, epsilon):
        return optax.adadelta(learning_rate, rho, epsilon)

    # optax's state: (a weight decay of 0, scale_by_adadelta, scale_by_learning_rate)
    def _keras_slot_names(self):
        return [["accumulated_grad", "accumulated_delta_var"]], []

    def _keras_slots(self, state, params):  # accumulated_grad, accumulated_delta_var
        return [[state[1].e_g, state[1].e_x]], []

    def _from_keras_slots(self, state, groups, scalars, params):
        return (state[0], state[1]._replace(e_g=groups[0][0], e_x=groups[0][1]), *state[2:])


def _scale_by_keras_adamax(beta_1, beta_2, epsilon):
    """Keras's Adamax direction ``m / ((1 - b1^t) (u + epsilon))`` with
    ``u = max(b2 u, |g|)`` (optax keeps ``max(b2 u, |g| + epsilon)`` instead)."""
    def init(params):
        zeros = lambda: jax.tree_util.tree_map(jnp.zeros_like, params)  # noqa: E731
        return jnp.zeros((), jnp.int32), zeros(), zeros()

    def update(grads, state, params=None):
        count, m, u = state
        t = (count + 1).astype(jnp.float32)
        m = jax.tree_util.tree_map(lambda m, g: m + (g - m) * (1 - beta_1), m, grads)
        u = jax.tree_util.tree_map(lambda u, g: jnp.maximum(beta_2 * u, jnp.abs(g)), u, grads)
        correction = 1 - jnp.power(beta_1, t)
        return (jax.tree_util.tree_map(lambda m, u: m / (correction * (u + epsilon)), m, u),
                (count + 1, m, u))

    return optax.GradientTransformation(init, update)


class Adamax(Optimizer):
    """Adamax: Adam with the infinity norm."""

    _elementwise_rule = True

    _default_learning_rate, _default_name = 0.001, "adamax"
    _defaults = {"beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-7}

    @staticmethod
    def _rule(learning_rate, beta_1, beta_2, epsilon):
        return optax.chain(_scale_by_keras_adamax(beta_1, beta_2, epsilon),
                           optax.scale_by_learning_rate(learning_rate))

    def _keras_slot_names(self):
        return [["momentum", "norm"]], []

    def _keras_slots(self, state, params):  # momentum and norm per weight
        return _interleaved(state[0], 1, 2), []

    def _from_keras_slots(self, state, groups, scalars, params):
        return (state[0][0], *groups[0]), state[1]


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

    def _keras_slot_names(self):
        return [["momentum"]], []

    def _keras_slots(self, state, params):
        return [[state[0].mu]], []  # Keras's momentum

    def _from_keras_slots(self, state, groups, scalars, params):
        return (state[0]._replace(mu=groups[0][0]), *state[1:])


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

    def _keras_slot_names(self):
        return [["momentum", "velocity"]], ["variable"]  # u_product: unscoped

    @property
    def _u_product(self):
        """Keras's ``u_product`` variable (the product of the momentum schedule), once the
        optimizer has a state."""
        variables = self.variables
        if len(variables) <= 2:
            raise AttributeError(f"Nadam {self.name!r} has no u_product before it is built.")
        return variables[-1]

    def _keras_slots(self, state, params):  # momentum and velocity per weight, u_product
        return _interleaved(state[0], 2, 3), [state[0][1]]

    def _from_keras_slots(self, state, groups, scalars, params):
        return (state[0][0], scalars[0], *groups[0]), state[1]


def _keras_adafactor(learning_rate, weight_decay, beta_2_decay, epsilon_1, epsilon_2,
                     clip_threshold, relative_step):
    """Keras's Adafactor update (its relative step and factored second moments differ from
    optax.adafactor's): hand-written for Keras's numbers; includes the learning rate, and
    ``weight_decay`` first, since the step size reads the (decayed) weights' scale."""
    def rms(x):
        return jnp.sqrt(jnp.mean(jnp.square(x)))

    def init(params):
        def slots(p):
            if p.ndim >= 2:
                return (jnp.zeros(p.shape[:-1], p.dtype), jnp.zeros(p.shape[:-2] + p.shape[-1:],
                                                                     p.dtype), jnp.zeros((), p.dtype))
            return (jnp.zeros((), p.dtype), jnp.zeros((), p.dtype), jnp.zeros(p.shape, p.dtype))

        return jnp.zeros((), jnp.int32), jax.tree_util.tree_map(slots, params)

    def update(grads, state, params=None, *, decay_mask=None, **extra_args):
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
        flat_d = treedef.flatten_up_to(decayed(params, learning_rate, weight_decay,
                                               decay_mask))
        flat_s = treedef.flatten_up_to(slots)
        results = [one(g, d, s) for g, d, s in zip(flat_g, flat_d, flat_s)]
        results = [(d + u - p, s) for (u, s), d, p in zip(results, flat_d, flat_p)]
        updates = treedef.unflatten([u for u, _ in results])
        return updates, (count + 1, treedef.unflatten([s for _, s in results]))

    return optax.GradientTransformationExtraArgs(init, update)


def _factor_path(weight, ref, scope) -> str:
    """Keras's path of Adafactor's ``r`` and ``c`` of ``weight``: named after the weight
    alone, under the optimizer's scope for a factored weight, unscoped for the
    placeholders of a vector."""
    return f"{scope}/{weight.name}" if len(weight.shape) >= 2 else weight.name


class Adafactor(Optimizer):
    """Adafactor with factored second moments and Keras's relative step size."""

    _elementwise_rule = False  # factored second moments: statistics per weight
    _decays_itself = True

    _default_learning_rate, _default_name = 0.001, "adafactor"
    _defaults = {"beta_2_decay": -0.8, "epsilon_1": 1e-30, "epsilon_2": 1e-3,
                 "clip_threshold": 1.0, "relative_step": True}

    @staticmethod
    def _rule(learning_rate, **hyper):
        return _keras_adafactor(learning_rate, **hyper)

    def _keras_slot_names(self):
        return [[_factor_path, _factor_path, "velocity"]], []

    # Keras keeps r, c and v for every weight: a factored weight's v is the full second
    # moment its r and c make (recomputed at every step; here it is not kept), and a
    # vector's r and c are int32 placeholders. A file's v of a factored weight, r and c of
    # a vector are not read.
    def _keras_slots(self, state, params):
        def keras(slot, p):
            r, c, v = slot
            if p.ndim >= 2:
                mean = jnp.mean(r, axis=-1, keepdims=True)
                v = (r / jnp.where(mean > 0, mean, 1))[..., None] * c[..., None, :]
                return r, c, v
            return jnp.zeros((), jnp.int32), jnp.zeros((), jnp.int32), v

        slots = jax.tree_util.tree_map(keras, state[1], params,
                                       is_leaf=lambda x: isinstance(x, tuple))
        r, c, v = (jax.tree_util.tree_map(lambda s: s[i], slots,
                                          is_leaf=lambda x: isinstance(x, tuple))
                   for i in range(3))
        return [[r, c, v]], []

    def _from_keras_slots(self, state, groups, scalars, params):
        count, slots = state

        def ours(r, c, v, p, old):
            return (r, c, old[2]) if p.ndim >= 2 else (old[0], old[1], v)

        return count, jax.tree_util.tree_map(ours, *groups[0], params, slots)
