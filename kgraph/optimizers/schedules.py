"""Keras's learning-rate schedules: ``schedule(step) -> learning rate``, jittable, with
Keras's arguments, numbers and configs. Pass one as an optimizer's ``learning_rate``.

>>> round(float(ExponentialDecay(0.1, decay_steps=10, decay_rate=0.5)(10)), 6)
0.05
"""

from __future__ import annotations

import inspect
import math

import jax.numpy as jnp

from kgraph.serializable import from_keras_object_config, keras_object_config

__all__ = ["CosineDecay", "CosineDecayRestarts", "ExponentialDecay", "InverseTimeDecay",
           "LearningRateSchedule", "PiecewiseConstantDecay", "PolynomialDecay", "deserialize",
           "rate_of_step", "serialize"]


class LearningRateSchedule:
    """Base class: implement ``__call__(step)`` and ``get_config()``."""

    def __call__(self, step):
        raise NotImplementedError(f"{type(self).__name__} must implement __call__(step).")

    def get_config(self) -> dict:
        raise NotImplementedError(f"{type(self).__name__} must implement get_config().")

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def _step(step):
    return jnp.asarray(step, jnp.float32)


class ExponentialDecay(LearningRateSchedule):
    """``initial_learning_rate * decay_rate ** (step / decay_steps)`` (floored exponent with
    ``staircase``)."""

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False,
                 name="ExponentialDecay"):
        if decay_steps <= 0:
            raise ValueError(f"Argument `decay_steps` must be > 0. Received: "
                             f"decay_steps={decay_steps}")
        self.initial_learning_rate, self.decay_steps = initial_learning_rate, decay_steps
        self.decay_rate, self.staircase, self.name = decay_rate, staircase, name

    def __call__(self, step):
        p = _step(step) / self.decay_steps
        p = jnp.floor(p) if self.staircase else p
        return self.initial_learning_rate * jnp.power(jnp.float32(self.decay_rate), p)

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "decay_rate": self.decay_rate,
                "staircase": self.staircase, "name": self.name}


class InverseTimeDecay(LearningRateSchedule):
    """``initial_learning_rate / (1 + decay_rate * step / decay_steps)``."""

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False,
                 name="InverseTimeDecay"):
        self.initial_learning_rate, self.decay_steps = initial_learning_rate, decay_steps
        self.decay_rate, self.staircase, self.name = decay_rate, staircase, name

    def __call__(self, step):
        p = _step(step) / self.decay_steps
        p = jnp.floor(p) if self.staircase else p
        return self.initial_learning_rate / (1.0 + self.decay_rate * p)

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "decay_rate": self.decay_rate,
                "staircase": self.staircase, "name": self.name}


class PolynomialDecay(LearningRateSchedule):
    """From ``initial_learning_rate`` to ``end_learning_rate`` over ``decay_steps`` along
    ``(1 - step / decay_steps) ** power``; ``cycle`` restarts with longer periods."""

    def __init__(self, initial_learning_rate, decay_steps, end_learning_rate=0.0001,
                 power=1.0, cycle=False, name="PolynomialDecay"):
        self.initial_learning_rate, self.decay_steps = initial_learning_rate, decay_steps
        self.end_learning_rate, self.power, self.cycle = end_learning_rate, power, cycle
        self.name = name

    def __call__(self, step):
        step = _step(step)
        decay_steps = jnp.float32(self.decay_steps)
        if self.cycle:
            multiplier = jnp.where(step == 0, 1.0, jnp.ceil(step / decay_steps))
            decay_steps = decay_steps * multiplier
        else:
            step = jnp.minimum(step, decay_steps)
        fraction = step / decay_steps
        span = self.initial_learning_rate - self.end_learning_rate
        return span * jnp.power(1.0 - fraction, self.power) + self.end_learning_rate

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "end_learning_rate": self.end_learning_rate,
                "power": self.power, "cycle": self.cycle, "name": self.name}


class PiecewiseConstantDecay(LearningRateSchedule):
    """``values[i]`` for steps in ``(boundaries[i - 1], boundaries[i]]``."""

    def __init__(self, boundaries, values, name="PiecewiseConstant"):
        if len(boundaries) != len(values) - 1:
            raise ValueError("The length of boundaries should be 1 less than the length of "
                             f"values. Received: boundaries={boundaries} of length "
                             f"{len(boundaries)}, and values={values} of length {len(values)}.")
        self.boundaries, self.values, self.name = list(boundaries), list(values), name

    def __call__(self, step):
        index = jnp.searchsorted(jnp.asarray(self.boundaries, jnp.float32), _step(step),
                                 side="left")
        return jnp.asarray(self.values, jnp.float32)[index]

    def get_config(self):
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


def _cosine(fraction, alpha):
    return (1.0 - alpha) * 0.5 * (1.0 + jnp.cos(math.pi * fraction)) + alpha


class CosineDecay(LearningRateSchedule):
    """An optional linear warmup to ``warmup_target`` over ``warmup_steps``, then a cosine
    decay to ``alpha`` times the peak over ``decay_steps``."""

    def __init__(self, initial_learning_rate, decay_steps, alpha=0.0, name="CosineDecay",
                 warmup_target=None, warmup_steps=0):
        if decay_steps <= 0:
            raise ValueError(f"Argument `decay_steps` must be > 0. Received: "
                             f"decay_steps={decay_steps}")
        self.initial_learning_rate, self.decay_steps, self.alpha = (initial_learning_rate,
                                                                    decay_steps, alpha)
        self.name, self.warmup_target, self.warmup_steps = name, warmup_target, warmup_steps

    def __call__(self, step):
        step = _step(step)
        if self.warmup_target is None:
            fraction = jnp.minimum(step, self.decay_steps) / self.decay_steps
            return self.initial_learning_rate * _cosine(fraction, self.alpha)
        warm = (self.warmup_target - self.initial_learning_rate) * step / max(
            self.warmup_steps, 1) + self.initial_learning_rate
        after = jnp.minimum(step - self.warmup_steps, self.decay_steps) / self.decay_steps
        decayed = self.warmup_target * _cosine(after, self.alpha)
        return jnp.where(step < self.warmup_steps, warm, decayed)

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "alpha": self.alpha, "name": self.name,
                "warmup_target": self.warmup_target, "warmup_steps": self.warmup_steps}


class CosineDecayRestarts(LearningRateSchedule):
    """Cosine decay with warm restarts (SGDR): periods grow by ``t_mul``, peaks by
    ``m_mul``."""

    def __init__(self, initial_learning_rate, first_decay_steps, t_mul=2.0, m_mul=1.0,
                 alpha=0.0, name="SGDRDecay"):
        self.initial_learning_rate, self.first_decay_steps = (initial_learning_rate,
                                                              first_decay_steps)
        self.t_mul, self.m_mul, self.alpha, self.name = t_mul, m_mul, alpha, name

    def __call__(self, step):
        fraction = _step(step) / self.first_decay_steps
        if self.t_mul == 1.0:
            restart = jnp.floor(fraction)
            fraction = fraction - restart
        else:
            restart = jnp.floor(jnp.log(1.0 - fraction * (1.0 - self.t_mul))
                                / math.log(self.t_mul))
            done = (1.0 - jnp.power(self.t_mul, restart)) / (1.0 - self.t_mul)
            fraction = (fraction - done) / jnp.power(self.t_mul, restart)
        peak = jnp.power(jnp.float32(self.m_mul), restart)
        cosine = 0.5 * peak * (1.0 + jnp.cos(math.pi * fraction))
        return self.initial_learning_rate * ((1.0 - self.alpha) * cosine + self.alpha)

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate,
                "first_decay_steps": self.first_decay_steps, "t_mul": self.t_mul,
                "m_mul": self.m_mul, "alpha": self.alpha, "name": self.name}


_CLASSES = {cls.__name__: cls for cls in (ExponentialDecay, InverseTimeDecay, PolynomialDecay,
                                          PiecewiseConstantDecay, CosineDecay,
                                          CosineDecayRestarts)}


def rate_of_step(rate):
    """A callable learning rate as a function of the step. As Keras, a schedule gets the
    step and a plain callable taking no argument is called without one; a function of the
    step (an optax schedule) gets the step.

    >>> float(rate_of_step(lambda: 0.1)(7)), float(rate_of_step(lambda step: step / 10)(7))
    (0.1, 0.7)
    """
    if isinstance(rate, LearningRateSchedule) or _takes_an_argument(rate):
        return rate
    return lambda step: rate()


def _takes_an_argument(fn) -> bool:
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):  # no signature to read: Keras's schedule protocol
        return True
    return any(p.kind == p.VAR_POSITIONAL or (
        p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty)
        for p in parameters)


def serialize(schedule) -> dict:
    """Keras's ``{"module", "class_name", "config"}`` of a schedule."""
    return keras_object_config(schedule, "keras.optimizers.schedules")


def deserialize(config, custom_objects=None):
    """A schedule from ``serialize``'s output."""
    return from_keras_object_config(config, custom_objects, _CLASSES,
                                    "learning rate schedule")
