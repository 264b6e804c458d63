"""``Variable``: one named weight of a layer.

A variable holds its shape, dtype, initializer and trainability, and (only once something
reads it eagerly) a stored value. Compiled programs never read stored values: they take
weights from the ``params``/``state`` pytrees through the call context, so building a
10,000-layer graph allocates no arrays.

While a training loop runs, the loop's train state is where the weights live; the
variables are bound to it (``bind_view``) and read and write it instead of a copy of
their own, so what a callback reads (``get_weights``, ``predict``) is the current state
and what it writes (``set_weights``, ``assign``) is what the next step trains on.

>>> import kgraph as kg
>>> layer = kg.layers.Dense(3)
>>> _ = layer(jax.numpy.ones((2, 4)))
>>> layer.weights[0].name, layer.weights[0].shape
('kernel', (4, 3))
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from kgraph import initializers
from kgraph.base import initial_values, name_scope
from kgraph.base.array_operators import ArrayOperators
from kgraph.base.autocast_scope import get_autocast_scope
from kgraph.interpreter import context

__all__ = ["Variable", "checked_weight_shape", "positional_weight_arguments"]


def _is_value(initializer) -> bool:
    return isinstance(initializer, (jax.Array, np.ndarray, np.generic, int, float, bool, list,
                                    tuple))


class Variable(ArrayOperators):
    """A weight: name, shape, dtype, initializer, trainable, and its value.

    Made as Keras 3 makes one: ``Variable(initializer, shape=None, dtype=None,
    trainable=True, autocast=True, aggregation="none", synchronization="auto", name=None)``,
    where ``initializer`` is an initial value (its shape and dtype are the variable's
    unless given) or an initializer (then ``shape`` is needed); layers make theirs with
    ``add_weight``.

    >>> Variable([1, 2]).dtype, Variable(1.0).shape, Variable("ones", shape=(2,)).value.tolist()
    (dtype('int32'), (), [1.0, 1.0])

    It computes as its value, as Keras's (operators, ``float()``, ``kgraph.ops``, NumPy and
    ``jax.numpy``); like Keras's it is no boolean:

    >>> step = Variable(0.0)
    >>> _ = step.assign(step + 1); float(step * 2)
    2.0
    >>> from kgraph import ops
    >>> float(ops.sum(Variable([1.0, 2.0])) * Variable(3.0))
    9.0
    """

    def __init__(self, initializer, shape=None, dtype=None, trainable=True, autocast=True,
                 aggregation="none", synchronization="auto", name=None, *, owner=None,
                 regularizer=None, constraint=None):
        if _is_value(initializer):
            value = jnp.asarray(initializer)
            if shape is not None and tuple(shape) != value.shape:
                raise ValueError(f"Variable {name or 'variable'!r}: the initial value has "
                                 f"shape {value.shape}, but shape={tuple(shape)} was given.")
            shape, dtype = value.shape, dtype or value.dtype
            initializer = value
        elif initializer is None:
            raise ValueError(f"Variable {name or 'variable'!r}: needs an initial value or an "
                             "initializer; received initializer=None.")
        elif shape is None:
            raise ValueError(f"Variable {name or 'variable'!r}: made from an initializer "
                             f"({initializer!r}), it needs a shape.")
        self.shape = tuple(int(d) for d in shape)
        self.dtype = jnp.dtype(dtype or "float32")
        self.initializer = initializers.get(initializer)
        self.trainable = bool(trainable)
        # Keras lists a layer's weights made trainable first, then the rest, by how they
        # were made (freezing one later does not move it): ``Layer._listed_variables``
        self._made_trainable = self.trainable
        # a state weight whose gradient is its new value: a training step writes it there
        # (``runtime.gradient_writes``), as Keras overwrites an overwrite_with_gradient one
        self._written_by_gradient = False
        self.aggregation, self.synchronization = aggregation, synchronization
        self.name = name or "variable"
        self._auto_named = name is None  # a layer holding it may name it after its attribute
        self.owner = owner  # the layer that created it (or, made alone, first held it)
        self._scope = name_scope.current_chain()  # the name_scopes open when it was made
        self.regularizer = regularizer  # fn(value) -> penalty added to the loss, or None
        self.constraint = constraint  # fn(value) -> projected value after updates, or None
        self._value = None
        self.autocast = bool(autocast)  # cast to the layer's compute dtype inside its call
        # While a loop trains the model: the object holding the live value (see
        # ``bind_view``), which has ``read_variable(v)`` and ``write_variable(v, value)``.
        self._view = None

    @property
    def overwrite_with_gradient(self) -> bool:
        """Keras's flag: a training step writes the gradient as the weight's new value
        (a float8 layer's scales and amax histories; compiled programs keep such weights
        in ``state``, see ``runtime.gradient_writes``)."""
        return self._written_by_gradient

    @overwrite_with_gradient.setter
    def overwrite_with_gradient(self, value):
        self._written_by_gradient = bool(value)

    @property
    def path(self) -> str:
        """Keras's: the name, under the name scopes open when the variable was made (a
        layer's weight: ``<layer's path>/<name>``, see ``kgraph.base.name_scope``)."""
        chain = getattr(self, "_scope", None)
        scope = "" if chain is None else name_scope.chain_path(chain)
        return f"{scope}/{self.name}" if scope else self.name

    def initial_value(self, key):
        """A fresh initial value drawn with ``key``."""
        value = self.initializer(key, self.shape, self.dtype)
        return jnp.asarray(value, self.dtype)

    @property
    def value(self):
        """The value in the active call context, else the stored value (made on first use);
        inside an ``AutocastScope``, cast to its dtype if the variable autocasts."""
        scope = get_autocast_scope()
        if scope is not None and getattr(self, "autocast", True):
            return scope.maybe_cast(self._current_value())
        return self._current_value()

    def _current_value(self):
        ctx = context.current()
        if ctx is not None:
            value = ctx.weights.read(self)
            if value is not None:
                return value
        if self._view is not None:
            return self._view.read_variable(self)
        if self._value is None:
            # With the owner's other new weights, in one batch; concrete even when first
            # read inside a trace (a lazily built sub-layer).
            siblings = self.owner._own_variables if self.owner is not None else ()
            initial_values.materialize([self, *siblings])
        return self._value

    def assign(self, value):
        """Set a new value (recorded in the context during pure execution: for the rest
        of the run, and, for a non-trainable weight, in the new state it returns)."""
        value = jnp.asarray(value, self.dtype)
        if tuple(value.shape) != self.shape:
            raise ValueError(
                f'Cannot assign to weight "{self.path}": expected shape {self.shape}, '
                f"received shape {tuple(value.shape)}."
            )
        ctx = context.current()
        if ctx is not None and ctx.weights.collect:
            # Reads later in the run see it. A pure run returns the new state only: a
            # trainable weight assigned in call keeps its value (the optimizer changes it),
            # as on Keras's JAX backend (a kernel masked in place each call).
            ctx.weights.record(self, value)
        elif self._view is not None:
            self._view.write_variable(self, value)
        else:
            self._value = value

    def assign_add(self, delta):
        """``assign(value + delta)``."""
        self.assign(self.value + jnp.asarray(delta, self.dtype))

    def assign_sub(self, delta):
        """``assign(value - delta)``."""
        self.assign(self.value - jnp.asarray(delta, self.dtype))

    def bind_view(self, view):
        """Read and write ``view`` (an object with ``read_variable(variable)`` and
        ``write_variable(variable, value)``, such as a running fit's loop) instead of the
        stored value, until ``bind_view`` is called again; returns the previous view.
        ``None`` unbinds (the stored value is then what the view last held, once the
        caller has assigned it). While bound, the variable keeps no value of its own (as
        Keras's JAX fit, whose variables hold none while it trains)."""
        previous, self._view = self._view, view
        if view is not None:
            self._value = None
        return previous

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def numpy(self) -> np.ndarray:
        """The stored value as a NumPy array."""
        return np.asarray(self.value)

    def __bool__(self):
        raise TypeError(f"Variable {self.path!r} cannot be used as a boolean (as Keras's "
                        "variables); compare its value instead.")

    def __repr__(self):
        kind = "trainable" if self.trainable else "non-trainable"
        return f"<Variable {self.path} shape={self.shape} dtype={self.dtype.name} {kind}>"


def checked_weight_shape(layer, name, shape) -> tuple:
    """``shape`` as a tuple of non-negative ints, else a ValueError naming the weight."""
    shape = (shape,) if isinstance(shape, (int, np.integer)) else shape
    try:
        dims = tuple(shape)
        ok = all(isinstance(d, (int, np.integer)) and not isinstance(d, bool) and d >= 0
                 for d in dims)
    except TypeError:
        ok = False
    if not ok:
        raise ValueError(f'Layer "{layer.name}": weight "{name}" needs a shape of '
                         f"non-negative ints, received shape={shape!r}. Check the layer's "
                         "size arguments and its input shape.")
    return tuple(int(d) for d in dims)


def positional_weight_arguments(layer, args, shape, initializer, dtype) -> tuple:
    """``(shape, initializer, dtype)`` of ``add_weight(*args, ...)`` called with Keras 2's
    positional form; Keras 3's errors for a name given positionally, too many positional
    arguments, or one given both ways."""
    if len(args) > 3:
        raise TypeError(f'Layer "{layer.name}": add_weight() takes at most 3 positional '
                        f"arguments but {len(args)} were given.")
    if isinstance(args[0], str):
        raise ValueError(f'Layer "{layer.name}": `name` must be passed as a keyword argument. '
                         f"Received: add_weight('{args[0]}', ...). Use: add_weight(shape=..., "
                         f"name='{args[0]}').")
    given = {"shape": shape, "initializer": initializer, "dtype": dtype}
    for (argument, keyword_value), value in zip(given.items(), args):
        if keyword_value is not None:
            raise ValueError(f'Layer "{layer.name}": `{argument}` was passed both '
                             "positionally and as a keyword argument.")
        given[argument] = value
    return given["shape"], given["initializer"], given["dtype"]
