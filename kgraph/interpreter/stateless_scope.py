"""``StatelessScope`` (Keras 3's ``keras.StatelessScope``): run layers on given variable
values without changing any variable. Inside the scope, a variable in ``state_mapping``
reads as its mapped value; assignments (a BatchNormalization's moving statistics) are
collected instead of applied, and read back with ``get_current_value`` after the scope.
It is the call context a pure ``apply`` runs in, opened by hand.

>>> import jax.numpy as jnp, kgraph as kg
>>> layer = kg.layers.Dense(2, kernel_initializer="zeros")
>>> _ = layer(jnp.ones((1, 3)))
>>> ones = [(v, jnp.ones(v.shape)) for v in layer.weights]
>>> with StatelessScope(ones) as scope:
...     out = layer(jnp.ones((1, 3)))
>>> out.tolist(), float(layer.kernel.sum())
([[4.0, 4.0]], 0.0)
"""

from __future__ import annotations

import jax.numpy as jnp

from kgraph.interpreter import context

__all__ = ["StatelessScope"]


class StatelessScope:
    """Variables read as ``state_mapping`` says (``[(variable, value), ...]``), nothing
    assigned in place; ``get_current_value(variable)`` gives the value a variable ends the
    scope with (None for one neither mapped nor assigned). ``collect_losses`` keeps the
    losses layers add, in ``losses``."""

    def __init__(self, state_mapping=None, collect_losses=False, initialize_variables=True):
        self.collect_losses = collect_losses
        self.initialize_variables = initialize_variables
        self.losses = []
        self.state_mapping = {}
        for variable, value in state_mapping or ():
            if not hasattr(variable, "assign") or not hasattr(variable, "shape"):
                raise ValueError(f"StatelessScope: every key of state_mapping must be a "
                                 f"Variable, received {variable!r}.")
            value = jnp.asarray(getattr(value, "value", value), variable.dtype)
            if tuple(value.shape) != tuple(variable.shape):
                raise ValueError(f"StatelessScope: the value for variable {variable.path!r} "
                                 f"has shape {tuple(value.shape)}, expected "
                                 f"{tuple(variable.shape)}.")
            self.state_mapping[id(variable)] = value
        self._context = None

    def __enter__(self):
        self._context = context.CallContext(values=dict(self.state_mapping),
                                            collect_assignments=True)
        self._context.__enter__()
        return self

    def __exit__(self, *exc_info):
        scope, self._context = self._context, None
        scope.__exit__(*exc_info)
        self.state_mapping.update(scope.weights.assignments)
        if self.collect_losses:
            self.losses.extend(scope.losses)
        return False

    def add_loss(self, loss) -> None:
        self.losses.append(loss)

    def add_update(self, update) -> None:
        variable, value = update
        self.state_mapping[id(variable)] = value

    def get_current_value(self, variable):
        """``variable``'s value at the end of the scope: its assigned value, else its mapped
        one, else None."""
        return self.state_mapping.get(id(variable))
