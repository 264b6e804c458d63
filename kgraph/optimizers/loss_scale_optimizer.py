"""Keras's ``LossScaleOptimizer``: dynamic loss scaling for float16 training.

The loss is multiplied by ``dynamic_scale`` before the gradient is taken (the train step
asks ``loss_scale(opt_state)``), so small float16 gradients do not underflow; the update
divides the gradients by it again and hands them to the inner optimizer. Gradients with
an inf or NaN skip the step (weights and the inner optimizer's state unchanged) and halve
the scale; ``dynamic_growth_steps`` finite steps in a row double it. The scale and its
step counter live in the optimizer state, beside the inner optimizer's.

``compile`` wraps the optimizer in one when the model computes in float16 (Keras's
``auto_scale_loss=True``).

>>> import jax.numpy as jnp
>>> from kgraph.optimizers import SGD
>>> opt = LossScaleOptimizer(SGD(0.1), initial_scale=8.0)
>>> params = [jnp.ones(2)]
>>> state = opt.init(params)
>>> float(opt.loss_scale(state))
8.0
>>> updates, state = opt.update([jnp.array([8.0, jnp.inf])], state, params)  # not finite
>>> updates[0].tolist(), float(opt.loss_scale(state))
([0.0, 0.0], 4.0)
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import optax

from kgraph.base.state_variable import StateVariable
from kgraph.optimizers import overwrites as overwrites_lib
from kgraph.optimizers.base import Optimizer, from_keras_config, to_keras_config

__all__ = ["LossScaleOptimizer", "LossScaleState"]

_BASE_DEFAULTS = {"weight_decay": None, "clipnorm": None, "global_clipnorm": None,
                  "clipvalue": None, "use_ema": False, "ema_momentum": 0.99,
                  "ema_overwrite_frequency": None, "loss_scale_factor": None,
                  "gradient_accumulation_steps": None}


class LossScaleState(NamedTuple):
    """Finite steps since the scale last changed, the scale, the inner optimizer's state."""

    step_counter: jnp.ndarray
    dynamic_scale: jnp.ndarray
    inner: object


class LossScaleOptimizer(Optimizer):
    """``inner_optimizer`` with dynamic loss scaling (Keras's arguments and defaults)."""

    _keras_layout = False

    def __new__(cls, inner_optimizer, initial_scale=2.0 ** 15, dynamic_growth_steps=2000,
                name=None, **kwargs):
        if not kwargs.pop("dynamic", True):
            raise ValueError("LossScaleOptimizer no longer supports `dynamic=False`. Instead, "
                             "simply set `loss_scale_factor` directly on the "
                             "`inner_optimizer`.")
        for key, default in _BASE_DEFAULTS.items():
            if key in kwargs and kwargs.pop(key) != default:
                raise ValueError(f"LossScaleOptimizer does not support `{key}`. Instead, set "
                                 f"`{key}` on the `inner_optimizer`.")
        if kwargs:
            raise ValueError("LossScaleOptimizer does not support arguments: "
                             f"`{'`, `'.join(kwargs)}`.")
        if not isinstance(inner_optimizer, optax.GradientTransformation):
            raise ValueError("LossScaleOptimizer wraps an optimizer (kgraph.optimizers.* or an "
                             f"optax transformation); received {inner_optimizer!r}.")
        if isinstance(inner_optimizer, LossScaleOptimizer):
            raise ValueError("LossScaleOptimizer cannot wrap another LossScaleOptimizer.")
        growth = int(dynamic_growth_steps)

        def init(params, overwritten=None):
            return LossScaleState(jnp.zeros((), jnp.int32),
                                  jnp.asarray(initial_scale, jnp.float32),
                                  overwrites_lib.init_state(inner_optimizer, params,
                                                            overwritten))

        def update(grads, state, params=None, **extra_args):
            finite = jnp.all(jnp.asarray([jnp.all(jnp.isfinite(g))
                                          for g in jax.tree_util.tree_leaves(grads)]))
            unscaled = jax.tree_util.tree_map(
                lambda g: g / state.dynamic_scale.astype(g.dtype), grads)
            updates, inner = inner_optimizer.update(unscaled, state.inner, params,
                                                    **extra_args)
            updates = jax.tree_util.tree_map(
                lambda u: jnp.where(finite, u, jnp.zeros_like(u)), updates)
            inner = jax.tree_util.tree_map(lambda new, old: jnp.where(finite, new, old),
                                           inner, state.inner)
            grow = state.step_counter == growth - 1
            counter = jnp.where(finite & ~grow, state.step_counter + 1, 0)
            scale = state.dynamic_scale * jnp.where(finite, jnp.where(grow, 2.0, 1.0), 0.5)
            return updates, LossScaleState(counter.astype(jnp.int32), scale, inner)

        if isinstance(inner_optimizer, Optimizer):  # as Keras: else unscaled twice
            inner_optimizer._set_loss_scale_factor(None)
        self = optax.GradientTransformationExtraArgs.__new__(cls, init, update)
        self.inner_optimizer = inner_optimizer
        self.initial_scale, self.dynamic_growth_steps = initial_scale, growth
        inner_config = getattr(inner_optimizer, "_config", {})
        self._config = {"name": name or "loss_scale_optimizer", "learning_rate": None,
                        "loss_scale_factor": None, "use_ema": inner_config.get("use_ema")}
        self._loop = self._state = None
        return self

    # ------------------------------------------------------------------ the scale
    def loss_scale(self, opt_state):
        """The factor the loss is multiplied by in the step that uses ``opt_state``."""
        return opt_state.dynamic_scale

    @property
    def dynamic_scale(self):
        state = self._running_state()
        return self.initial_scale if state is None else state.dynamic_scale

    @property
    def step_counter(self):
        state = self._running_state()
        return 0 if state is None else state.step_counter

    def scale_loss(self, loss):
        """``loss`` times the current scale (Keras's ``scale_loss``)."""
        return loss * self.dynamic_scale

    def stateless_scale_loss(self, optimizer_variables, loss):
        """``loss`` times the scale held in ``optimizer_variables`` (Keras's stateless
        train step scales its loss so)."""
        return loss * self._state_from_list(optimizer_variables).dynamic_scale

    # ------------------------------------------------------- Keras's list API
    # Built on a list of weights, its variables are Keras's: ``step_counter``,
    # ``dynamic_scale``, then the inner optimizer's.
    @property
    def _reads_paths(self) -> bool:
        return bool(getattr(self.inner_optimizer, "_reads_paths", False))

    def build(self, variables) -> None:
        variables = list(variables)
        if isinstance(self.inner_optimizer, Optimizer):
            self.inner_optimizer.build(variables)
        super().build(variables)

    def _inner_lists(self) -> bool:
        return isinstance(self.inner_optimizer, Optimizer) and self.inner_optimizer.built

    def _state_to_list(self, state) -> list:
        inner = (self.inner_optimizer._state_to_list(state.inner) if self._inner_lists()
                 else jax.tree_util.tree_leaves(state.inner))
        return [state.step_counter, state.dynamic_scale, *inner]

    def _state_from_list(self, values):
        values = list(values)
        inner = (self.inner_optimizer._state_from_list(values[2:]) if self._inner_lists()
                 else jax.tree_util.tree_unflatten(self._treedef.children()[2], values[2:]))
        return LossScaleState(jnp.asarray(values[0], jnp.int32),
                              jnp.asarray(values[1], jnp.float32), inner)

    def _list_names(self) -> list:
        inner = (self.inner_optimizer._list_names() if self._inner_lists() else
                 [f"slot_{i}" for i in range(len(jax.tree_util.tree_leaves(self._state.inner)))])
        return ["step_counter", "dynamic_scale", *inner]

    def _list_header(self) -> list:
        return []

    def _running_state(self):
        return self._loop.train_state.opt_state if self._loop is not None else self._state

    # ------------------------------------------------------- the inner optimizer's
    @property
    def elementwise(self) -> bool:
        return bool(getattr(self.inner_optimizer, "elementwise", False))

    @property
    def learning_rate(self):
        if self._loop is not None:
            return self._loop.learning_rate
        return self.inner_optimizer.learning_rate

    @learning_rate.setter
    def learning_rate(self, value):
        if self._loop is not None:
            self._loop.learning_rate = value
        else:
            self.inner_optimizer.learning_rate = value

    @property
    def iterations(self):
        """The updates the inner optimizer applied (skipped steps do not count): a
        variable, as Keras's (the inner optimizer's)."""
        def read():
            state = self._running_state()
            if state is None or not hasattr(state.inner, "count"):
                return jnp.zeros((), jnp.int32)
            every = getattr(self.inner_optimizer, "_config", {}).get(
                "gradient_accumulation_steps") or 1
            return jnp.asarray(state.inner.count // every, jnp.int32)

        def write(value):
            raise ValueError(f"LossScaleOptimizer {self.name!r}: its iterations are the "
                             "inner optimizer's; assign them there.")

        return StateVariable("iteration", (), jnp.int32, read, write, self.name)

    def ema_weights(self, opt_state):
        return self.inner_optimizer.ema_weights(opt_state.inner)

    @property
    def _keeps_overwrites(self) -> bool:
        return bool(getattr(self.inner_optimizer, "_keeps_overwrites", False))

    def overwrite(self, opt_state, proposed, current):
        """The inner optimizer's (the gradients are not unscaled, as Keras's)."""
        values, inner = overwrites_lib.overwrite(self.inner_optimizer, opt_state.inner,
                                                 proposed, current)
        return values, opt_state._replace(inner=inner)

    def decay_mask(self, variables):
        """The inner optimizer's (``exclude_from_weight_decay`` on it)."""
        inner = getattr(self.inner_optimizer, "decay_mask", None)
        return None if inner is None else inner(variables)

    def get_config(self) -> dict:
        return {"name": self.name, "inner_optimizer": to_keras_config(self.inner_optimizer),
                "initial_scale": self.initial_scale,
                "dynamic_growth_steps": self.dynamic_growth_steps}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        inner = from_keras_config(config.pop("inner_optimizer"), custom_objects)
        return cls(inner, **config)

    def __repr__(self):
        return f"<LossScaleOptimizer of {self.inner_optimizer!r}>"
