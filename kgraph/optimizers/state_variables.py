"""Keras's optimizer variables as views of the optimizer state training continues from.

``optimizer.iterations``, ``optimizer.learning_rate`` and ``optimizer.variables`` are
Keras's ``Variable``s (``.value``, ``.numpy()``, ``.assign(...)``, ``.path``, operators).
They hold no value of their own: reading one reads the state (a running ``fit``'s train
state, the compiled model's between fits, or the one ``build`` made) and assigning one
changes it, so what the next training step continues from is what they say. After a
compiled model's ``fit``, ``optimizer.variables`` lists Keras's variables in Keras's
order and names (``iteration``, ``learning_rate``, then e.g. Adam's
``<weight>_momentum`` / ``<weight>_velocity`` for each trainable weight;
``kgraph.optimizers.keras_variables`` says how the state maps to them).

>>> import numpy as np, kgraph as kg
>>> x = kg.Input(shape=(2,))
>>> model = kg.Model(x, kg.layers.Dense(1, name="d")(x))
>>> model.compile(kg.optimizers.Adam(0.01), "mse")
>>> _ = model.fit(np.ones((4, 2)), np.ones((4, 1)), batch_size=2, verbose=0)
>>> [v.path for v in model.optimizer.variables]
['adam/iteration', 'adam/learning_rate', 'adam/d_kernel_momentum', 'adam/d_kernel_velocity', 'adam/d_bias_momentum', 'adam/d_bias_velocity']
>>> _ = model.optimizer.iterations.assign(0)
>>> int(model.optimizer.variables[0])
0
"""

from __future__ import annotations

import warnings

import jax.numpy as jnp

from kgraph.base.state_variable import StateVariable
from kgraph.optimizers import keras_variables
from kgraph.optimizers.variable_names import optimizer_variable_names

__all__ = ["OptimizerVariable", "model_variables"]


class OptimizerVariable(StateVariable):
    """One of Keras's optimizer variables: a view of the optimizer state (non-trainable,
    as Keras's)."""


def _layout_unavailable(optimizer, reason) -> None:
    warnings.warn(f"optimizer.variables of {type(optimizer).__name__} {optimizer.name!r} "
                  f"lists only iterations and the learning rate: {reason}.", stacklevel=4)


def model_variables(optimizer, model, header) -> list:
    """``header`` (the optimizer's ``iteration`` and ``learning_rate`` variables) and then
    a view of each other Keras variable of compiled ``model``'s optimizer state, in
    Keras's order. The views are made once per layout and reused."""
    try:
        values = keras_variables.model_values(model)
    except NotImplementedError as reason:  # no Keras layout (UnsupportedOptimizer)
        _layout_unavailable(optimizer, reason)
        return list(header)
    if values is None:  # never trained: Keras's optimizer is not built yet either
        return list(header)
    try:
        paths = optimizer_variable_names(model, len(values))
    except ValueError as error:
        _layout_unavailable(optimizer, error)
        return list(header)
    layout = (id(model), tuple(paths), tuple(jnp.shape(v) for v in values))
    made = optimizer.__dict__.get("_state_views")
    if made is None or made[0] != layout:
        slots = [_slot_view(optimizer, model, index, path, values[index])
                 for index, path in enumerate(paths) if index >= len(header)]
        made = optimizer._state_views = (layout, slots)
    return list(header) + made[1]


def _slot_view(optimizer, model, index, path, value):
    def read():
        return _current_values(optimizer, model)[index]

    def write(new):
        values = list(_current_values(optimizer, model))
        values[index] = new
        keras_variables.model_restore(model, values)

    scope, _, name = path.rpartition("/")
    return OptimizerVariable(name, jnp.shape(value), jnp.result_type(value), read, write,
                             scope or None)


def _current_values(optimizer, model) -> list:
    """Keras's variables of the state now (computed once per state)."""
    state = optimizer._opt_state()
    cached = optimizer.__dict__.get("_state_values")
    if cached is None or cached[0] is not state:
        values = keras_variables.model_values(model)
        if values is None:
            raise ValueError(f"The optimizer state of model {model.name!r} was dropped (the "
                             "model changed, or it was compiled again): its optimizer "
                             "variables are gone; read optimizer.variables again.")
        cached = optimizer._state_values = (state, values)
    return cached[1]
