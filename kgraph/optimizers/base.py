"""``Optimizer``: Keras's optimizer classes as optax ``GradientTransformation``s.

An optimizer is built from optax pieces inside ``optax.inject_hyperparams``, so its
learning rate lives in the optimizer state (``FitLoop.learning_rate`` and callbacks change
it between steps without recompiling; a schedule is evaluated at each step). The chain is
Keras's: clip the gradients (``clipnorm`` per weight, ``global_clipnorm``, ``clipvalue``),
decay the weights (``weight_decay``: ``w -= lr * weight_decay * w``), then the update rule.

Keras's ``loss_scale_factor`` multiplies the loss before its gradient (the train step asks
``loss_scale``) and divides the gradients before anything else; ``exclude_from_weight_decay``
keeps weights out of the decay. Under ``gradient_accumulation_steps`` the chain but
``use_ema``'s average runs inside ``optax.MultiSteps``; the average runs at every batch.
Weights a step overwrites with their gradient (Keras's ``overwrite_with_gradient``: a float8
layer's scales and amax histories) are written by ``overwrite``; under accumulation the
state keeps their running maxima (``kgraph.optimizers.overwrites``).

It also answers Keras's questions: ``learning_rate`` and ``iterations`` (Keras's variables,
views of the state training continues from: ``state_variables``), ``variables``,
``get_config`` / ``from_config``, and Keras's stateful API (``build``, ``apply_gradients``,
``apply``) and stateless one (``stateless_apply``) over lists of weights.

>>> import kgraph as kg
>>> optimizer = kg.optimizers.SGD(0.1)
>>> _ = optimizer.learning_rate.assign(0.05)
>>> float(optimizer.learning_rate), int(optimizer.iterations), optimizer.iterations.path
(0.05000000074505806, 0, 'sgd/iteration')
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import optax

from kgraph.optimizers import overwrites as overwrites_lib
from kgraph.optimizers import schedules as schedules_lib
from kgraph.optimizers import update_step as update_step_lib
from kgraph.optimizers import weight_decay as weight_decay_lib
from kgraph.optimizers.keras_variables import with_iterations
from kgraph.optimizers.list_api import ListAPI
from kgraph.optimizers.state_variables import OptimizerVariable, model_variables
from kgraph.optimizers.transforms import (EmaState, clip_by_norm, decayed, decoupled_decay,
                                          moving_average)
from kgraph.serializable import from_keras_object_config, keras_object_config
from kgraph.base.naming import to_snake_case

__all__ = ["EmaState", "Optimizer", "clipping", "decayed", "from_keras_config",
           "keras_classes", "to_keras_config", "unsettable_rate_message"]


def unsettable_rate_message(optimizer_name, schedule) -> str:
    """Keras's error for setting the learning rate of an optimizer made with a schedule,
    naming the optimizer and its schedule."""
    return ("This optimizer was created with a `LearningRateSchedule` object as its "
            "`learning_rate` constructor argument, hence its learning rate is not settable "
            f"(optimizer {optimizer_name!r}, learning_rate={schedule!r}). If you need the "
            "learning rate to be settable, instantiate the optimizer with a float "
            "`learning_rate` argument.")


_COMMON = ("weight_decay", "clipnorm", "clipvalue", "global_clipnorm", "use_ema",
           "ema_momentum", "ema_overwrite_frequency", "loss_scale_factor",
           "gradient_accumulation_steps")


def clipping(config):
    """The transformation clipping the gradients as ``config`` asks (Keras's ``clipnorm``
    per weight, ``global_clipnorm``, ``clipvalue``), or None."""
    if config.get("clipnorm"):
        return clip_by_norm(config["clipnorm"])
    if config.get("global_clipnorm"):
        return optax.clip_by_global_norm(config["global_clipnorm"])
    if config.get("clipvalue"):
        return optax.clip(config["clipvalue"])
    return None


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


class Optimizer(ListAPI, optax.GradientTransformationExtraArgs):
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
        transformation = optax.inject_hyperparams(make)(
            learning_rate=schedules_lib.rate_of_step(rate) if callable(rate) else rate)
        made = []  # the optimizer, once made

        def init(params, overwritten=None):
            """A fresh state, at the learning rate and step count set last
            (``optimizer.learning_rate.assign`` before any training reaches the first fit,
            as in Keras); under accumulation it keeps zero maxima for the weights of
            ``overwritten`` (a tree of them or of their shapes), which steps overwrite."""
            state = transformation.init(params)
            if config["gradient_accumulation_steps"] and overwritten is not None:
                state = overwrites_lib.with_maxima(state, jax.tree_util.tree_map(
                    lambda v: jnp.zeros(v.shape, v.dtype), overwritten))
            current = config["learning_rate"]
            if not callable(current):
                state = optax.tree_utils.tree_set(
                    state, learning_rate=jnp.asarray(current, jnp.asarray(
                        optax.tree_utils.tree_get(state, "learning_rate")).dtype))
            if made and made[0]._initial_iterations:
                state = with_iterations(made[0], state, made[0]._initial_iterations)
            return state

        def update(grads, state, params=None, **extra_args):
            """The update of ``grads`` (of the loss times ``loss_scale_factor``, whose
            gradients are divided by it first, as Keras's ``apply``)."""
            factor = config["loss_scale_factor"]  # (a LossScaleOptimizer clears it)
            if factor is not None:
                grads = jax.tree_util.tree_map(lambda g: g / factor, grads)
            return transformation.update(grads, state, params, **extra_args)

        self = super().__new__(cls, init, update)
        made.append(self)
        self._config = config
        self._loop = None
        self._state = None
        self._iteration_variable = OptimizerVariable(
            "iteration", (), jnp.int32, self._read_iterations, self._write_iterations,
            self._keras_scope)
        self._rate_variable = OptimizerVariable(
            "learning_rate", (), jnp.float32, self._rate_variable_value, self._write_rate,
            self._keras_scope)
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
        (a norm per weight) or a rule with per-weight statistics (``Adafactor``), nor when
        ``exclude_from_weight_decay`` names weights one by one (repeated blocks of a
        stack would decay differently)."""
        exclusion = self._decay_exclusion
        return (self._elementwise_rule and not self._config["clipnorm"]
                and not (exclusion is not None and exclusion.by_variable))

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
        steps = config["gradient_accumulation_steps"]
        if steps is not None and (not isinstance(steps, int) or steps < 2):
            raise ValueError("`gradient_accumulation_steps` must be an integer >= 2. "
                             f"Received: gradient_accumulation_steps={steps}")
        cls._check(config)
        return config

    @classmethod
    def _check(cls, config) -> None:
        """A subclass's own checks of its resolved arguments (errors name the optimizer)."""

    #: The rule applies ``weight_decay`` itself, to the weights it reads (Keras decays the
    #: weights before the update rule; only rules that read the weights can tell).
    _decays_itself = False

    @classmethod
    def _chain_for(cls, config):
        hyper = {k: config[k] for k in cls._defaults}
        if cls._decays_itself:
            hyper["weight_decay"] = config["weight_decay"]

        def make(learning_rate):
            clip = clipping(config)
            parts = [] if clip is None else [clip]
            parts.append(cls._rule(learning_rate, **hyper))
            if config["weight_decay"] and not cls._decays_itself:
                parts.append(decoupled_decay(learning_rate, config["weight_decay"]))
            every = config["gradient_accumulation_steps"]
            average = [moving_average(config["ema_momentum"],
                                      config["ema_overwrite_frequency"], every or 1)
                       ] if config["use_ema"] else []
            if not every:
                return optax.chain(*parts, *average)
            # Keras averages at every batch, also those that only accumulate; the last
            # piece keeps the maxima of the overwritten weights (``overwrite``)
            accumulated = optax.MultiSteps(optax.chain(*parts), every)
            return optax.chain(accumulated.gradient_transformation(), *average,
                               overwrites_lib.keeper())

        return make

    @staticmethod
    def _rule(learning_rate, **hyper):
        raise NotImplementedError

    def _clip_gradients(self, grads) -> list:
        """Keras's ``_clip_gradients``: ``grads`` (a list; None entries kept) clipped by
        ``clipnorm``, ``global_clipnorm`` or ``clipvalue``, by the transformation the
        optimizer's update starts with."""
        clip = clipping(self._config)
        grads = list(grads)
        given = [jnp.asarray(g) for g in grads if g is not None]
        if clip is None or not given:
            return grads
        clipped, _ = clip.update(given, clip.init(given))
        clipped = iter(clipped)
        return [None if g is None else next(clipped) for g in grads]

    def update_step(self, gradient, variable, learning_rate) -> None:
        """Keras's ``update_step``: ``variable`` (a built weight) updated in place by the
        update rule alone at ``learning_rate`` (``kgraph.optimizers.update_step``)."""
        update_step_lib.update_step(self, gradient, variable, learning_rate)

    def __getattr__(self, name):
        # Keras's optimizers hold their arguments as attributes (``optimizer.clipnorm``,
        # ``optimizer.beta_1``)
        attribute = getattr(type(self), name, None)
        if isinstance(attribute, property):  # it raised AttributeError: its own error
            return attribute.__get__(self)
        config = self.__dict__.get("_config")
        if name.startswith("_") or config is None or name not in config:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return config[name]

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
        """Keras's config keys (a schedule's learning rate as its serialized config; a
        learning rate as it is now, as Keras's reads its variable)."""
        config = dict(self._config)
        if isinstance(config["learning_rate"], schedules_lib.LearningRateSchedule):
            config["learning_rate"] = schedules_lib.serialize(config["learning_rate"])
        elif not callable(config["learning_rate"]):
            config["learning_rate"] = float(self._read_rate())
        ordered = {"name": config.pop("name"), "learning_rate": config.pop("learning_rate")}
        ordered.update({k: config.pop(k) for k in _COMMON})
        return {**ordered, **config}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        return cls(**config)

    @property
    def name(self) -> str:
        return self._config["name"]

    @property
    def _keras_scope(self) -> str:
        """The name scope of Keras's variables of this optimizer: its name, or left at the
        class's default, the class name in snake case (``SGD`` -> ``sgd``)."""
        if self.name == type(self)._default_name:
            return to_snake_case(type(self).__name__)
        return self.name

    def __repr__(self):
        return f"<{type(self).__name__} learning_rate={self._config['learning_rate']!r}>"

    # ------------------------------------------------ the state training continues from
    def _bind(self, loop) -> None:
        """Read and write the optimizer state in ``loop``'s train state (a running fit's
        loop, or a compiled model's state between fits; None: its own). The learning rate
        and step count of the state left are kept for the next fresh one."""
        rate = self._config["learning_rate"]  # (a MultiOptimizer has none of its own)
        if (self._loop is not None and loop is not self._loop and rate is not None
                and not callable(rate) and self._opt_state() is not None):
            self._config["learning_rate"] = float(self._read_rate())
        self._loop = loop

    # A sub-optimizer of a ``MultiOptimizer``: its state is its part of that optimizer's
    # state (``(multi_optimizer, label)``), so its learning rate and iterations are those
    # training uses
    _parent = None

    def _opt_state(self):
        """The optimizer state training continues from (None before any)."""
        if self._parent is not None:
            return self._parent[0]._sub_state(self._parent[1])
        if self._loop is not None:
            return self._loop.train_state.opt_state
        return self._state

    def _set_opt_state(self, state) -> None:
        if self._parent is not None:
            self._parent[0]._set_sub_state(self._parent[1], state)
        elif self._loop is not None:
            self._loop.train_state = self._loop.train_state._replace(opt_state=state)
        else:
            self._state = state

    _initial_iterations = 0  # the step count a fresh state starts at (``iterations.assign``)
    _iteration_variable = _rate_variable = None  # (made by ``__new__``)

    def _raw_iterations(self):
        """Keras's ``_iterations``: the batches trained on (every batch, also those that only
        accumulate gradients)."""
        state = self._opt_state()
        return jnp.asarray(self._initial_iterations if state is None else state.count,
                           jnp.int32)

    def _read_iterations(self):
        return self._raw_iterations()

    def _write_iterations(self, value) -> None:
        state = self._opt_state()
        if state is None:
            self._initial_iterations = int(value)
        else:
            self._set_opt_state(with_iterations(self, state, int(value)))

    def _read_rate(self):
        rate = self._config["learning_rate"]
        if callable(rate):  # Keras's schedule is evaluated at its ``_iterations``
            return jnp.asarray(schedules_lib.rate_of_step(rate)(self._raw_iterations()),
                               jnp.float32)
        state = self._opt_state()
        if state is None:
            return jnp.asarray(rate, jnp.float32)
        return optax.tree_utils.tree_get(state, "learning_rate")

    _detached_rate = None  # the rate variable's value once a schedule replaced it

    def _rate_variable_value(self):
        if self._detached_rate is not None:
            return self._detached_rate
        return self._read_rate()

    def _write_rate(self, value) -> None:
        if callable(self._config["learning_rate"]):
            raise TypeError(unsettable_rate_message(self.name, self._config["learning_rate"]))
        state = self._opt_state()
        if state is None:
            self._config["learning_rate"] = float(value)
            return
        old = optax.tree_utils.tree_get(state, "learning_rate")
        self._set_opt_state(optax.tree_utils.tree_set(
            state, learning_rate=jnp.asarray(value, jnp.asarray(old).dtype)))

    @property
    def learning_rate(self):
        """Keras's ``learning_rate``: a variable (``.numpy()``, ``.assign(rate)``) holding
        the rate the next step uses; with a schedule, the schedule's value at the current
        step (an array, as Keras's)."""
        if callable(self._config["learning_rate"]):
            return self._read_rate()
        return self._rate_variable

    @learning_rate.setter
    def learning_rate(self, value):
        if not callable(value):
            self._write_rate(value)
        elif self._opt_state() is None:  # a schedule: the rate is no longer a variable
            # the variable keeps its value (a schedule may start from it), as Keras's
            self._detached_rate = self._read_rate()
            self._config["learning_rate"] = value
        else:
            raise TypeError(f"Optimizer {self.name!r} has trained already: its learning "
                            f"rate can become a schedule ({value!r}) only before its first "
                            "step. Make a new optimizer with the schedule.")

    @property
    def iterations(self):
        """Keras's ``iterations``: a variable counting the updates applied (``.numpy()``,
        ``.assign(n)``). Under ``gradient_accumulation_steps=k`` an array, the batches
        trained on divided by ``k``, as Keras's."""
        every = self._config["gradient_accumulation_steps"]
        if every:
            return self._raw_iterations() // every
        return self._iteration_variable

    # ---------------------------------------------------------------- weight decay
    _decay_exclusion = None

    def exclude_from_weight_decay(self, var_list=None, var_names=None) -> None:
        """Keep ``weight_decay`` off the weights in ``var_list`` and those whose name
        contains one of ``var_names`` (e.g. ``["bias"]``). Call it before training: the
        training step reads it when it is compiled, as Keras's.

        >>> import kgraph as kg
        >>> optimizer = kg.optimizers.AdamW(weight_decay=0.1)
        >>> optimizer.exclude_from_weight_decay(var_names=["bias", "gamma"])
        """
        self._decay_exclusion = weight_decay_lib.DecayExclusion(var_list, var_names)

    def decay_mask(self, variables):
        """The ``decay_mask`` the update takes for weights laid out as ``variables`` (a
        tree or list of weights): True where the weight decays; None when
        ``exclude_from_weight_decay`` excludes nothing (every weight decays)."""
        return weight_decay_lib.decay_mask(self._decay_exclusion, variables)

    # --------------------------------------------------- Keras's stateful/stateless API
    @property
    def variables(self) -> list:
        """Keras's optimizer variables: ``iterations`` and the learning rate (unless it is
        a schedule), and once a compiled model has trained, the rest of its state in
        Keras's order and names (``state_variables``), each a view of the state training
        continues from. Built with ``build`` on a list of weights: the same, for its
        state (``list_api``)."""
        if self.built:
            return self._built_views()
        if self._iteration_variable is None:  # a class keeping its own state's layout
            return []
        header = [self._iteration_variable]
        if not callable(self._config["learning_rate"]):
            header.append(self._rate_variable)
        model = getattr(self._loop, "model", None)
        if model is not None and self._opt_state() is not None:
            return model_variables(self, model, header)
        return header

    def loss_scale(self, opt_state):
        """The factor a train step multiplies the loss by before its gradient (None: the
        loss as it is): ``loss_scale_factor`` (``LossScaleOptimizer`` keeps one in its
        state). The update divides the gradients by it again."""
        return self._config.get("loss_scale_factor")

    def _set_loss_scale_factor(self, factor) -> None:
        """Scale the loss by ``factor`` (None: not at all) from now on."""
        self._config["loss_scale_factor"] = factor

    def scale_loss(self, loss):
        """``loss`` as the gradient is taken of it (Keras's ``scale_loss``)."""
        factor = self._config.get("loss_scale_factor")
        return loss if factor is None else loss * factor

    def stateless_scale_loss(self, optimizer_variables, loss):
        """``scale_loss`` with the state given as Keras's ``optimizer_variables``."""
        return self.scale_loss(loss)

    @property
    def _keeps_overwrites(self) -> bool:
        """Whether the state keeps something of the overwritten weights (their maxima under
        ``gradient_accumulation_steps``): ``init`` then takes them."""
        return bool(self._config.get("gradient_accumulation_steps"))

    def overwrite(self, opt_state, proposed, current):
        """``(values, opt_state)``: the new values of the weights a step overwrites with
        their gradient (Keras's ``overwrite_with_gradient``), given those gradients
        (``proposed``) and the weights' values (``current``), trees alike. Without
        ``gradient_accumulation_steps`` they are the gradients; with it the weights change
        at update steps only, to the largest of the gradients since the last one
        (``kgraph.optimizers.overwrites``). Call it before ``update`` of the same step.

        >>> import jax.numpy as jnp
        >>> from kgraph.optimizers import SGD
        >>> optimizer = SGD(0.1, gradient_accumulation_steps=2)
        >>> scale = {"scale": jnp.ones(())}
        >>> state = optimizer.init({"w": jnp.ones(2)}, overwritten=scale)
        >>> values, state = optimizer.overwrite(state, {"scale": jnp.float32(4.0)}, scale)
        >>> float(values["scale"])  # not an update step: unchanged
        1.0
        """
        every = self._config.get("gradient_accumulation_steps")
        if not every:
            return proposed, opt_state
        return overwrites_lib.accumulated_in(opt_state, every, proposed, current, self.name)

    def ema_weights(self, opt_state):
        """The moving average of the weights in ``opt_state`` (``use_ema=True``)."""
        if not self._config["use_ema"]:
            raise ValueError(f"Optimizer {self.name!r} keeps no moving average "
                             "(use_ema=False).")
        return optax.tree_utils.tree_get(opt_state, "ema")

    def _finalized(self, opt_state, params):
        """The weights ``fit`` ends on when they are not ``params``: with ``use_ema``,
        their moving average (Keras's ``finalize_variable_values``); else None."""
        return self.ema_weights(opt_state) if self._config.get("use_ema") else None

    def finalize_variable_values(self, variables):
        """With ``use_ema``, set ``variables`` to their moving averages (as Keras does at
        the end of ``fit``)."""
        if self._config["use_ema"] and self._state is not None:
            averages = self._as_list(self.ema_weights(self._state))
            for variable, value in zip(variables, averages):
                variable.assign(value)
