"""``Optimizer``: Keras's optimizer classes as optax ``GradientTransformation``s.

An optimizer is built from optax pieces inside ``optax.inject_hyperparams``, so its
learning rate lives in the optimizer state (``FitLoop.learning_rate`` and callbacks change
it between steps without recompiling; a schedule is evaluated at each step). The chain is
Keras's: clip the gradients (``clipnorm`` per weight, ``global_clipnorm``, ``clipvalue``),
decay the weights (``weight_decay``: ``w -= lr * weight_decay * w``), then the update rule.

It also answers Keras's questions: ``learning_rate`` (read and set: during ``fit`` it is the
running value), ``iterations``, ``get_config`` / ``from_config``, and Keras's stateful API
(``build``, ``variables``, ``apply_gradients``, ``apply``) and stateless one
(``stateless_apply``) over lists of weights.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import optax

from kgraph.optimizers import schedules as schedules_lib
from kgraph.serializable import from_keras_object_config, keras_object_config
from kgraph.base.state_arrays import StateArray

__all__ = ["EmaState", "Optimizer", "decayed", "from_keras_config", "keras_classes",
           "to_keras_config"]


_COMMON = ("weight_decay", "clipnorm", "clipvalue", "global_clipnorm", "use_ema",
           "ema_momentum", "ema_overwrite_frequency", "loss_scale_factor",
           "gradient_accumulation_steps")


def _clip_by_norm(clipnorm):
    """Keras's ``clipnorm``: each gradient scaled to an L2 norm of at most ``clipnorm``."""
    def clip(g):
        norm = jnp.sqrt(jnp.sum(jnp.square(g)))
        return g * clipnorm / jnp.maximum(norm, clipnorm)

    return optax.stateless(lambda updates, params=None: jax.tree_util.tree_map(clip, updates))


def _decay(learning_rate, weight_decay):
    """Keras's decoupled weight decay: ``- lr * weight_decay * w`` added to the update."""
    def apply(updates, params):
        if params is None:
            raise ValueError("weight_decay needs the params: call update(grads, state, params).")
        return jax.tree_util.tree_map(lambda u, p: u - learning_rate * weight_decay * p,
                                      updates, params)

    return optax.stateless(apply)


def decayed(params, learning_rate, weight_decay):
    """The weights after Keras's decoupled decay ``w - w * weight_decay * lr``, for rules
    that read the weights (``Optimizer._decays_itself``)."""
    if not weight_decay:
        return params
    return jax.tree_util.tree_map(lambda p: p - p * weight_decay * learning_rate, params)


class EmaState(NamedTuple):
    """The moving average of the weights kept by an optimizer with ``use_ema=True``."""

    ema_count: jnp.ndarray
    ema: object


def _ema(momentum, overwrite_frequency):
    """Keras's ``use_ema``: after each update, ``ema = m * ema + (1 - m) * weights`` (the
    first update copies the weights); every ``overwrite_frequency`` updates the weights are
    replaced by the average. ``Optimizer.finalize_variable_values`` reads it at the end."""
    def init(params):
        return EmaState(jnp.zeros((), jnp.int32), jax.tree_util.tree_map(jnp.copy, params))

    def update(updates, state, params=None):
        if params is None:
            raise ValueError("use_ema needs the params: call update(grads, state, params).")
        new = optax.apply_updates(params, updates)
        m = jnp.where(state.ema_count == 0, 0.0, momentum)
        ema = jax.tree_util.tree_map(lambda a, w: (m * a + (1 - m) * w).astype(w.dtype),
                                     state.ema, new)
        if overwrite_frequency:
            swap = (state.ema_count + 1) % overwrite_frequency == 0
            updates = jax.tree_util.tree_map(lambda u, a, p: jnp.where(swap, a - p, u),
                                             updates, ema, params)
        return updates, EmaState(state.ema_count + 1, ema)

    return optax.GradientTransformation(init, update)


def _values(variables):
    return [getattr(v, "value", v) for v in variables]


_KERAS_CLASSES: dict = {}  # class name -> the optimizer class of that Keras name


def keras_classes() -> dict:
    """``{class name: class}`` of Keras's optimizer classes defined here (each registers
    itself; user subclasses do not)."""
    return dict(_KERAS_CLASSES)


def to_keras_config(optimizer) -> dict:
    """Keras's ``{"module", "class_name", "config"}`` of an optimizer."""
    return keras_object_config(optimizer, "keras.optimizers")


def from_keras_config(config, custom_objects=None):
    """The optimizer a Keras config describes (its class by name among Keras's, or in
    ``custom_objects``)."""
    return from_keras_object_config(config, custom_objects, _KERAS_CLASSES, "optimizer")


class Optimizer(optax.GradientTransformationExtraArgs):
    """Base class of the Keras optimizers. Subclasses set ``_defaults`` (their own
    arguments, Keras's defaults) and implement ``_rule(learning_rate, **hyper) ->
    GradientTransformation`` (the update rule, already scaled by ``-learning_rate``)."""

    _defaults: dict = {}
    _default_name = "optimizer"

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.__module__.startswith("kgraph.optimizers."):
            _KERAS_CLASSES[cls.__name__] = cls
    _common_defaults: dict = {}  # e.g. AdamW's weight_decay
    _positional = None  # the order of positional arguments, when not Keras's usual one

    def __new__(cls, *args, **kwargs):
        config = cls._resolve(args, kwargs)
        make = cls._chain_for(config)
        rate = config["learning_rate"]
        make(0.0 if callable(rate) else rate)  # the rule checks its arguments now, as Keras
        transformation = optax.inject_hyperparams(make)(learning_rate=rate)

        def init(params):
            """A fresh state, at the learning rate set last (``optimizer.learning_rate =``
            before any training reaches the first fit, as in Keras)."""
            state = transformation.init(params)
            current = config["learning_rate"]
            if callable(current):
                return state
            return optax.tree_utils.tree_set(
                state, learning_rate=jnp.asarray(current, jnp.asarray(
                    optax.tree_utils.tree_get(state, "learning_rate")).dtype))

        self = super().__new__(cls, init, transformation.update)
        self._config = config
        self._loop = None
        self._state = None
        self._treedef = None
        self._slots = []
        self._paths = None
        return self

    def __init__(self, *args, **kwargs):  # everything happened in __new__
        pass

    #: The update rule treats every weight element by element (no per-weight norms or
    #: factored statistics); a subclass says so (Keras's own classes do, but Adafactor).
    _elementwise_rule = False

    @property
    def elementwise(self) -> bool:
        """Whether an update treats every element of every weight on its own, so that
        stacking weights (``compiler.stacking``) leaves it unchanged: not with ``clipnorm``
        (a norm per weight) or a rule with per-weight statistics (``Adafactor``)."""
        return self._elementwise_rule and not self._config["clipnorm"]

    def __getnewargs__(self):
        return ()

    # ----------------------------------------------------------------- configuration
    @classmethod
    def _resolve(cls, args, kwargs):
        names = ["learning_rate", *cls._defaults, *_COMMON, "name"]
        positional = list(cls._positional or names)
        if len(args) > len(positional):
            raise TypeError(f"{cls.__name__} takes at most {len(positional)} positional "
                            "arguments.")
        given = dict(zip(positional, args))
        for key in kwargs:
            if key in given:
                raise TypeError(f"{cls.__name__} got multiple values for argument {key!r}.")
        given.update(kwargs)
        unknown = sorted(set(given) - set(names))
        if unknown:
            raise TypeError(f"{cls.__name__} got unexpected keyword argument(s) {unknown}.")
        config = {"learning_rate": cls._default_learning_rate, **cls._defaults,
                  "weight_decay": None, "clipnorm": None, "clipvalue": None,
                  "global_clipnorm": None, "use_ema": False, "ema_momentum": 0.99,
                  "ema_overwrite_frequency": None, "loss_scale_factor": None,
                  "gradient_accumulation_steps": None, "name": cls._default_name,
                  **cls._common_defaults, **given}
        if isinstance(config["learning_rate"], dict):  # a serialized schedule
            config["learning_rate"] = schedules_lib.deserialize(config["learning_rate"])
        clips = [k for k in ("clipnorm", "clipvalue", "global_clipnorm") if config[k]]
        if len(clips) > 1:
            raise ValueError(f"Only one of `clipnorm`, `clipvalue` and `global_clipnorm` can "
                             f"be set. Received: {', '.join(f'{k}={config[k]}' for k in clips)}")
        if config["use_ema"] and not 0 <= config["ema_momentum"] <= 1:
            raise ValueError("`ema_momentum` must be in the range [0, 1]. Received: "
                             f"ema_momentum={config['ema_momentum']}")
        if config["loss_scale_factor"] is not None:
            raise ValueError(f"{cls.__name__}: loss_scale_factor is not supported (kgraph's "
                             "mixed precision keeps float32 weights and losses).")
        steps = config["gradient_accumulation_steps"]
        if steps is not None and (not isinstance(steps, int) or steps < 2):
            raise ValueError("`gradient_accumulation_steps` must be an integer >= 2. "
                             f"Received: gradient_accumulation_steps={steps}")
        return config

    #: The rule applies ``weight_decay`` itself, to the weights it reads (Keras decays the
    #: weights before the update rule; only rules that read the weights can tell).
    _decays_itself = False

    @classmethod
    def _chain_for(cls, config):
        hyper = {k: config[k] for k in cls._defaults}
        if cls._decays_itself:
            hyper["weight_decay"] = config["weight_decay"]

        def make(learning_rate):
            parts = []
            if config["clipnorm"]:
                parts.append(_clip_by_norm(config["clipnorm"]))
            elif config["global_clipnorm"]:
                parts.append(optax.clip_by_global_norm(config["global_clipnorm"]))
            elif config["clipvalue"]:
                parts.append(optax.clip(config["clipvalue"]))
            parts.append(cls._rule(learning_rate, **hyper))
            if config["weight_decay"] and not cls._decays_itself:
                parts.append(_decay(learning_rate, config["weight_decay"]))
            if config["use_ema"]:
                parts.append(_ema(config["ema_momentum"], config["ema_overwrite_frequency"]))
            chain = optax.chain(*parts)
            if config["gradient_accumulation_steps"]:
                chain = optax.MultiSteps(chain, config["gradient_accumulation_steps"])
            return chain

        return make

    @staticmethod
    def _rule(learning_rate, **hyper):
        raise NotImplementedError

    # Keras's optimizer variables (``kgraph.optimizers.keras_variables``): a subclass maps
    # its rule's state to Keras's slots and back. ``_keras_slots(state, params)`` gives
    # ``(groups, scalars)``: each group a list of slot trees shaped like ``params``, which
    # Keras lays out weight by weight (for each weight, each slot of the group), groups one
    # after the other, then the scalars. ``_from_keras_slots`` is its inverse.
    def _keras_slots(self, state, params):
        raise NotImplementedError(f"{type(self).__name__} does not say how its state maps "
                                  "to Keras's optimizer variables")

    def _from_keras_slots(self, state, groups, scalars, params):
        raise NotImplementedError(f"{type(self).__name__} does not say how its state maps "
                                  "to Keras's optimizer variables")

    # The names Keras gives those slots (``<weight path>_<slot>``) and scalars, group by
    # group as ``_keras_slots`` lays them out; None: no Keras state-tree layout.
    def _keras_slot_names(self):
        return None

    def get_config(self) -> dict:
        """Keras's config keys (a schedule's learning rate as its serialized config)."""
        config = dict(self._config)
        if isinstance(config["learning_rate"], schedules_lib.LearningRateSchedule):
            config["learning_rate"] = schedules_lib.serialize(config["learning_rate"])
        ordered = {"name": config.pop("name"), "learning_rate": config.pop("learning_rate")}
        ordered.update({k: config.pop(k) for k in _COMMON})
        return {**ordered, **config}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        return cls(**config)

    @property
    def name(self) -> str:
        return self._config["name"]

    def __repr__(self):
        return f"<{type(self).__name__} learning_rate={self._config['learning_rate']!r}>"

    # --------------------------------------------------------------- learning rate
    def _bind(self, loop) -> None:
        """Let ``learning_rate`` read and set the value in ``loop``'s train state."""
        self._loop = loop

    @property
    def learning_rate(self):
        """The current learning rate: during (and after) ``fit``, the running one; a
        schedule's value at the current step."""
        rate = self._config["learning_rate"]
        if callable(rate):
            return rate(self.iterations)
        if self._loop is not None:
            return self._loop.learning_rate
        if self._state is not None:
            return optax.tree_utils.tree_get(self._state, "learning_rate")
        return rate

    @learning_rate.setter
    def learning_rate(self, value):
        if callable(self._config["learning_rate"]):
            raise TypeError("This optimizer's learning rate is a schedule; it cannot be set.")
        if self._loop is not None:
            self._loop.learning_rate = value
        elif self._state is not None:
            self._state = optax.tree_utils.tree_set(
                self._state, learning_rate=jnp.asarray(value, jnp.float32))
        else:
            self._config["learning_rate"] = float(value)

    @property
    def iterations(self):
        """How many updates this optimizer has applied (its state's step count)."""
        state = self._loop.train_state.opt_state if self._loop is not None else self._state
        if state is None:
            return 0
        # inject_hyperparams's count: one per batch; with gradient accumulation an update
        # applies every k of them (Keras's iterations count the updates)
        return state.count // (self._config["gradient_accumulation_steps"] or 1)

    # --------------------------------------------------- Keras's stateful/stateless API
    #: The rule tells weights apart by their paths (``Muon``): Keras's list API then passes
    #: the weights to the rule as ``{variable.path: value}``, not by position.
    _reads_paths = False

    def build(self, variables) -> None:
        """Create the optimizer state for ``variables`` (a list of weights or arrays)."""
        variables = list(variables)
        paths = [getattr(v, "path", None) for v in variables]
        self._paths = (paths if self._reads_paths and all(isinstance(p, str) for p in paths)
                       and len(set(paths)) == len(paths) else None)
        self._state = self.init(self._as_tree(_values(variables)))
        leaves, self._treedef = jax.tree_util.tree_flatten(self._state)
        self._slots = [StateArray(v, f"{self.name}/slot_{i}") for i, v in enumerate(leaves)]

    def _as_tree(self, values):
        values = list(values)
        return dict(zip(self._paths, values)) if self._paths else values

    def _as_list(self, tree):
        return [tree[p] for p in self._paths] if self._paths else list(tree)

    @property
    def built(self) -> bool:
        return self._treedef is not None

    @property
    def variables(self) -> list:
        """The optimizer state as a list of arrays holders, in a fixed order."""
        if self._treedef is None:
            return []
        for slot, leaf in zip(self._slots, jax.tree_util.tree_leaves(self._state)):
            slot.value = leaf
        return list(self._slots)

    def loss_scale(self, opt_state):
        """The factor a train step multiplies the loss by before its gradient (None: the
        loss as it is; ``LossScaleOptimizer`` keeps one in its state)."""
        return None

    def scale_loss(self, loss):
        """``loss`` as the gradient is taken of it (Keras's ``scale_loss``)."""
        return loss

    def stateless_scale_loss(self, optimizer_variables, loss):
        """``scale_loss`` with the state given as Keras's ``optimizer_variables``."""
        return loss

    def stateless_apply(self, optimizer_variables, grads, trainable_variables):
        """``(new_trainable_variables, new_optimizer_variables)`` as lists, without touching
        any stored state (jittable; ``build`` first)."""
        if self._treedef is None:
            raise ValueError(f"Optimizer {self.name!r} has not been built: call "
                             "optimizer.build(model.trainable_variables) first.")
        state = jax.tree_util.tree_unflatten(self._treedef, _values(optimizer_variables))
        params = self._as_tree(_values(trainable_variables))
        updates, state = self.update(self._as_tree(grads), state, params)
        return (self._as_list(optax.apply_updates(params, updates)),
                jax.tree_util.tree_leaves(state))

    def apply(self, grads, trainable_variables=None):
        """Update ``trainable_variables`` (kgraph Variables) in place with ``grads``."""
        if trainable_variables is None:
            raise ValueError("apply() needs trainable_variables (kgraph Variables).")
        variables = list(trainable_variables)
        if self._treedef is None:
            self.build(variables)
        new_params, new_state = self.stateless_apply(
            jax.tree_util.tree_leaves(self._state), grads, variables)
        self._state = jax.tree_util.tree_unflatten(self._treedef, new_state)
        for variable, value in zip(variables, new_params):
            variable.assign(value)

    def ema_weights(self, opt_state):
        """The moving average of the weights in ``opt_state`` (``use_ema=True``)."""
        if not self._config["use_ema"]:
            raise ValueError(f"Optimizer {self.name!r} keeps no moving average "
                             "(use_ema=False).")
        return optax.tree_utils.tree_get(opt_state, "ema")

    def finalize_variable_values(self, variables):
        """With ``use_ema``, set ``variables`` to their moving averages (as Keras does at
        the end of ``fit``)."""
        if self._config["use_ema"] and self._state is not None:
            averages = self._as_list(self.ema_weights(self._state))
            for variable, value in zip(variables, averages):
                variable.assign(value)

    def apply_gradients(self, grads_and_vars):
        """``apply`` from ``[(grad, variable), ...]``."""
        pairs = list(grads_and_vars)
        self.apply([g for g, _ in pairs], [v for _, v in pairs])
