"""Keras's ``Muon`` and ``ScheduleFreeAdamW`` on optax, with Keras's arguments, defaults
and numbers.

``Muon`` orthogonalises the momentum of each matrix (Newton-Schulz iterations) and trains
every other weight with AdamW, choosing by weight path and shape as Keras does, through
``optax.multi_transform``. ``ScheduleFreeAdamW`` keeps Keras's schedule-free sequences:
the weights hold the interpolation ``y``, the state the base sequence ``z``.

>>> import jax.numpy as jnp, optax
>>> params = {"dense": {"kernel": jnp.eye(3), "bias": jnp.zeros(3)}}
>>> opt = Muon(learning_rate=0.1)
>>> updates, _ = opt.update(params, opt.init(params), params)
>>> updates["dense"]["kernel"].shape  # the kernel takes Muon's step, the bias AdamW's
(3, 3)
"""

from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import optax

from kgraph.optimizers.base import Optimizer
from kgraph.optimizers.transforms import decayed, decoupled_decay
from kgraph.optimizers.keras_optimizers import _scale_by_keras_adam

__all__ = ["Muon", "ScheduleFreeAdamW", "path_string"]


def path_string(key_path) -> str:
    """A params tree path as Keras's variable path: ``"dense/kernel"``."""
    parts = []
    for entry in key_path:
        for attribute in ("key", "name", "idx"):
            if hasattr(entry, attribute):
                parts.append(str(getattr(entry, attribute)))
                break
    return "/".join(parts)


def _newton_schulz(x, steps, a, b, c):
    """Keras's quintic Newton-Schulz iteration towards the orthogonal factor of ``x``
    (on the wider orientation, normalised by the Frobenius norm first)."""
    tall = x.shape[-2] > x.shape[-1]
    if tall:
        x = jnp.swapaxes(x, -2, -1)
    x = x / (jnp.linalg.norm(x, axis=(-2, -1), keepdims=True) + 1e-7)
    for _ in range(steps):
        gram = x @ jnp.swapaxes(x, -2, -1)
        x = a * x + (b * gram + c * gram @ gram) @ x
    return jnp.swapaxes(x, -2, -1) if tall else x


def _rms_scaled(step, rms_rate):
    """Moonlight's scaling of a matrix's step by ``sqrt(max(n, m)) * rms_rate`` (none for
    ``rms_rate=None``)."""
    if rms_rate is None:
        return step
    return step * jnp.sqrt(float(max(step.shape[0], step.shape[1]))) * rms_rate


def _uses_adamw(path, ndim, exclude_layers, exclude_embeddings) -> bool:
    """Whether Muon trains the weight at ``path`` with AdamW: not a matrix, an embedding
    (``exclude_embeddings``), or a path matching a pattern of ``exclude_layers``."""
    return (ndim != 2 or (exclude_embeddings and "embedding" in path.lower())
            or any(re.search(pattern, path) for pattern in exclude_layers or ()))


def _scale_by_keras_muon(momentum, nesterov, steps, a, b, c, rms_rate):
    """Keras's Muon direction: momentum ``m = momentum * m + g``, Nesterov's look-ahead
    ``g + momentum * m``, orthogonalised; scaled by ``sqrt(max(n, m)) * rms_rate``."""
    def init(params):
        return jax.tree_util.tree_map(jnp.zeros_like, params)

    def update(grads, state, params=None):
        m = jax.tree_util.tree_map(lambda m, g: momentum * m + g, state, grads)

        def direction(m, g):
            return _rms_scaled(_newton_schulz(g + momentum * m if nesterov else m, steps,
                                              a, b, c), rms_rate)

        return jax.tree_util.tree_map(direction, m, grads), m

    return optax.GradientTransformation(init, update)


class Muon(Optimizer):
    """Muon for the matrices, AdamW for the rest (weights that are not 2-D, embeddings
    when ``exclude_embeddings``, and paths matching a pattern of ``exclude_layers``)."""

    _decays_itself = True
    _default_learning_rate, _default_name = 0.001, "muon"
    _common_defaults = {"weight_decay": 0.004}
    _defaults = {"adam_beta_1": 0.9, "adam_beta_2": 0.999, "adam_weight_decay": 0.004,
                 "epsilon": 1e-7, "exclude_layers": None, "exclude_embeddings": True,
                 "muon_a": 3.4445, "muon_b": -4.7750, "muon_c": 2.0315, "adam_lr_ratio": 1,
                 "momentum": 0.95, "ns_steps": 5, "nesterov": True, "rms_rate": 0.2}
    _positional = ("learning_rate", "adam_beta_1", "adam_beta_2", "adam_weight_decay",
                   "epsilon", "weight_decay", "clipnorm", "clipvalue", "global_clipnorm",
                   "use_ema", "ema_momentum", "ema_overwrite_frequency", "loss_scale_factor",
                   "gradient_accumulation_steps", "name", "exclude_layers",
                   "exclude_embeddings", "muon_a", "muon_b", "muon_c", "adam_lr_ratio",
                   "momentum", "ns_steps", "nesterov", "rms_rate")
    _reads_paths = True

    @staticmethod
    def _rule(learning_rate, weight_decay, adam_beta_1, adam_beta_2, adam_weight_decay,
              epsilon, exclude_layers, exclude_embeddings, muon_a, muon_b, muon_c,
              adam_lr_ratio, momentum, ns_steps, nesterov, rms_rate):
        def labels(params):
            return jax.tree_util.tree_map_with_path(
                lambda key_path, w: "adamw" if _uses_adamw(
                    path_string(key_path), jnp.ndim(w), exclude_layers, exclude_embeddings)
                else "muon", params)

        muon = optax.chain(
            _scale_by_keras_muon(momentum, nesterov, ns_steps, muon_a, muon_b, muon_c,
                                 rms_rate),
            optax.scale_by_learning_rate(learning_rate),
            decoupled_decay(learning_rate, weight_decay))
        adamw = optax.chain(
            _scale_by_keras_adam(adam_beta_1, adam_beta_2, epsilon, False),
            optax.scale_by_learning_rate(learning_rate * adam_lr_ratio),
            decoupled_decay(learning_rate, adam_weight_decay))
        return optax.multi_transform({"muon": muon, "adamw": adamw}, labels,
                                     mask_compatible_extra_args=True)  # decay_mask

    def get_config(self) -> dict:
        config = super().get_config()
        config["exclude_layers"] = list(config["exclude_layers"] or [])
        return config

    # Keras's Muon methods, on the functions its update rule uses
    def _should_use_adamw(self, variable) -> bool:
        """Whether ``variable`` is trained by AdamW rather than by Muon's step."""
        return _uses_adamw(variable.path, len(variable.shape), self.exclude_layers,
                           self.exclude_embeddings)

    def lr_adjust(self, x):
        """``x`` scaled as a matrix's step: by ``sqrt(max(n, m)) * rms_rate``."""
        return _rms_scaled(jnp.asarray(x), self.rms_rate)

    def zeropower_via_newtonschulz5(self, x, steps: int):
        """The approximate orthogonal factor of ``x`` after ``steps`` Newton-Schulz
        iterations with this optimizer's coefficients."""
        return _newton_schulz(jnp.asarray(x), steps, self.muon_a, self.muon_b, self.muon_c)

    def _apply_weight_decay(self, variables) -> None:
        """Decay each of ``variables`` in place, as one step's decoupled decay does: by
        ``adam_weight_decay`` where AdamW trains it, else by ``weight_decay``."""
        rate = self._read_rate()
        for variable in variables:
            decay = (self.adam_weight_decay if self._should_use_adamw(variable)
                     else self.weight_decay)
            if self._decay_exclusion is None or self._decay_exclusion.decays(variable):
                variable.assign(decayed(variable.value, rate, decay))


def _keras_schedule_free_adamw(learning_rate, weight_decay, beta_1, beta_2, epsilon,
                               warmup_steps):
    """Keras's schedule-free AdamW step on ``y`` (the weights): ``z`` takes the Adam-scaled
    gradient step, the average ``x`` moves towards it by ``1 / t``, ``y`` interpolates."""
    def init(params):
        return (jnp.zeros((), jnp.int32), jax.tree_util.tree_map(jnp.copy, params),
                jax.tree_util.tree_map(jnp.zeros_like, params))

    def update(grads, state, params=None, *, decay_mask=None, **extra_args):
        if params is None:
            raise ValueError("ScheduleFreeAdamW needs the params: call "
                             "update(grads, state, params).")
        count, z, v = state
        t = (count + 1).astype(jnp.float32)
        rate = learning_rate
        if warmup_steps > 0:
            rate = rate * jnp.minimum(t / warmup_steps, 1.0)
        v = jax.tree_util.tree_map(lambda v, g: v + (g * g - v) * (1 - beta_2), v, grads)
        correction = 1 - jnp.power(beta_2, t)
        y_old = decayed(params, learning_rate, weight_decay, decay_mask)

        def step(g, v, z_old, y, original):
            z_new = z_old - rate * g / (jnp.sqrt(v / correction) + epsilon)
            x_old = (y - (1 - beta_1) * z_old) / beta_1
            x_new = (1 - 1 / t) * x_old + z_new / t
            return (1 - beta_1) * z_new + beta_1 * x_new - original, z_new

        out = jax.tree_util.tree_map(step, grads, v, z, y_old, params)
        treedef = jax.tree_util.tree_structure(grads)
        updates, z = (jax.tree_util.tree_unflatten(
            treedef, [pair[i] for pair in treedef.flatten_up_to(out)]) for i in range(2))
        return updates, (count + 1, z, v)

    return optax.GradientTransformationExtraArgs(init, update)


class ScheduleFreeAdamW(Optimizer):
    """Schedule-free AdamW (no learning-rate schedule needed; ``warmup_steps`` ramps the
    rate linearly)."""

    _elementwise_rule = True
    _decays_itself = True
    _default_learning_rate, _default_name = 0.0025, "schedule_free_adam_w"
    _defaults = {"beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-8, "warmup_steps": 0}

    @staticmethod
    def _rule(learning_rate, weight_decay, beta_1, beta_2, epsilon, warmup_steps):
        return _keras_schedule_free_adamw(learning_rate, weight_decay, beta_1, beta_2,
                                          epsilon, warmup_steps)

    def _keras_slot_names(self):
        return [["momentum", "velocity"]], []

    def _keras_slots(self, state, params):  # each weight's momentum (z), then velocity
        return [[state[1], state[2]]], []

    def _from_keras_slots(self, state, groups, scalars, params):
        return state[0], groups[0][0], groups[0][1]
