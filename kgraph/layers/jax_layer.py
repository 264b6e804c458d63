"""``JaxLayer``: a plain JAX function and its parameters as a layer (Keras 3's), the bridge
from the JAX ecosystem into a kgraph graph.

``call_fn`` takes, by these names and in any order, ``inputs`` and any of ``params``
(trainable weights), ``state`` (non-trainable ones; ``call_fn`` then returns ``(outputs,
new_state)``), ``rng`` (a PRNG key, given in training) and ``training``. The weights come
from ``params`` / ``state`` pytrees given, or from ``init_fn(rng, inputs[, training])``
(returning ``params``, or ``(params, state)`` when ``call_fn`` takes ``state``) run once on
ones of the input shape at build. Every array leaf becomes a weight; other leaves are
passed through as they are.

>>> import jax, jax.numpy as jnp, kgraph as kg
>>> def init(rng, inputs):
...     return {"w": jax.random.normal(rng, (inputs.shape[-1], 3)), "b": jnp.zeros(3)}
>>> def apply(params, inputs):
...     return inputs @ params["w"] + params["b"]
>>> x = kg.Input(shape=(4,))
>>> model = kg.Model(x, JaxLayer(apply, init)(x))
>>> model.count_params(), model(jnp.ones((2, 4))).shape
(15, (2, 3))
"""

from __future__ import annotations

import inspect

import jax
import jax.numpy as jnp
import numpy as np

from kgraph import tree
from kgraph.base import catalog, seed_stream
from kgraph.base.layer import Layer

__all__ = ["FlaxLayer", "JaxLayer"]

_CALL_ARGUMENTS = {"params", "state", "rng", "inputs", "training"}
_INIT_ARGUMENTS = {"rng", "inputs", "training"}


def _arguments(fn, what, allowed) -> list:
    """``fn``'s parameter names, checked: ``inputs`` required, nothing outside ``allowed``."""
    names = list(inspect.signature(fn).parameters)
    if "inputs" not in names:
        raise ValueError(f"JaxLayer: {what} must take an `inputs` argument; its arguments "
                         f"are {names}.")
    unknown = [n for n in names if n not in allowed]
    if unknown:
        raise ValueError(f"JaxLayer: {what} takes unsupported argument(s) {unknown}; the "
                         f"arguments it may take are {sorted(allowed)}.")
    return names


class _Tree:
    """A pytree of the layer's weights, held where attribute tracking does not look (the
    weights are the layer's own, created by ``add_weight``)."""

    def __init__(self, tree):
        self.tree = tree


class JaxLayer(Layer):
    """A layer running ``call_fn`` on weights from ``params`` / ``state`` or ``init_fn``
    (see the module docstring). ``seed`` seeds the keys of ``init_fn`` and of ``call_fn``'s
    ``rng``."""

    def __init__(self, call_fn, init_fn=None, params=None, state=None, seed=None,
                 native_serialization_platforms=None, **kwargs):
        super().__init__(**kwargs)
        self.call_fn, self.init_fn, self.seed = call_fn, init_fn, seed
        # Keras's platforms for exporting through jax2tf (TensorFlow SavedModels); kgraph
        # exports with ``compiler.export`` and keeps the value for the config.
        self.native_serialization_platforms = native_serialization_platforms
        self.call_fn_arguments = _arguments(call_fn, "call_fn", _CALL_ARGUMENTS)
        self.init_fn_arguments = (None if init_fn is None else
                                  _arguments(init_fn, "init_fn", _INIT_ARGUMENTS))
        needs_weights = {"params", "state"} & set(self.call_fn_arguments)
        if init_fn is None and params is None and state is None and needs_weights:
            raise ValueError("JaxLayer: init_fn, params and state cannot all be None when "
                             f"call_fn takes {sorted(needs_weights)}.")
        self._params = _Tree(None)
        self._state = _Tree(None)
        if params is not None or state is not None:
            self._params = _Tree(self._weights_of(params, trainable=True))
            self._state = _Tree(self._weights_of(state, trainable=False))
            self.built = True

    @property
    def params(self):
        """The trainable weights, in ``call_fn``'s pytree."""
        return self._params.tree

    @property
    def state(self):
        """The non-trainable weights, in ``call_fn``'s pytree."""
        return self._state.tree

    def _weights_of(self, values, trainable):
        def weight(value):
            if isinstance(value, (jax.Array, np.ndarray, np.generic, bool, int, float)):
                array = jnp.array(value)  # a copy: training donates the weights' buffers
                floating = jnp.issubdtype(array.dtype, jnp.floating)
                return self.add_weight(array.shape, initializer=array,
                                       dtype=None if floating else array.dtype.name,
                                       trainable=trainable and floating)
            return value  # configuration the function reads as it is

        return jax.tree_util.tree_map(weight, values)

    def build(self, input_shape):
        if self.init_fn is None or self.params is not None or self.state is not None:
            return
        inputs = tree.map_shape_structure(
            lambda shape: jnp.ones([1 if d is None else d for d in shape]), input_shape)
        values = {"rng": self._init_rng(), "inputs": inputs, "training": True}
        result = self.init_fn(*[values[name] for name in self.init_fn_arguments])
        params, state = result if "state" in self.call_fn_arguments else (result, None)
        self._params = _Tree(self._weights_of(params, trainable=True))
        self._state = _Tree(self._weights_of(state, trainable=False))

    def _init_rng(self):
        """``init_fn``'s ``rng``: a key from ``seed``, else from kgraph's seed stream."""
        return seed_stream.next_key() if self.seed is None else jax.random.PRNGKey(self.seed)

    def _call_rng(self, training):
        """``call_fn``'s ``rng``: a key in training (the layer's, by its path in a pure
        run), None in inference, as Keras gives them."""
        return self.random_key() if training else None

    def call(self, inputs, training=False):
        def value(leaf):
            return leaf.value if hasattr(leaf, "assign") else leaf

        values = {"params": jax.tree_util.tree_map(value, self.params),
                  "state": jax.tree_util.tree_map(value, self.state),
                  "inputs": inputs, "training": bool(training)}
        if "rng" in self.call_fn_arguments:
            values["rng"] = self._call_rng(training)
        result = self.call_fn(*[values[name] for name in self.call_fn_arguments])
        if "state" not in self.call_fn_arguments:
            return result
        outputs, new_state = result
        old = jax.tree_util.tree_structure(self.state)
        if jax.tree_util.tree_structure(new_state) != old:
            raise ValueError(f'JaxLayer "{self.name}": call_fn returned a state of structure '
                             f"{jax.tree_util.tree_structure(new_state)}, expected {old} (the "
                             "state's structure at initialization).")
        for variable, new in zip(jax.tree_util.tree_leaves(self.state),
                                 jax.tree_util.tree_leaves(new_state)):
            if hasattr(variable, "assign"):
                variable.assign(new)
        return outputs

    def get_config(self):
        """Keras's config: the functions as Keras's function entries (loaded back by their
        registered name, ``register_keras_serializable``, or ``custom_objects``)."""
        return {**super().get_config(), "call_fn": catalog.function_entry(self.call_fn),
                "init_fn": (None if self.init_fn is None
                            else catalog.function_entry(self.init_fn)),
                "native_serialization_platforms": self.native_serialization_platforms}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        for key in ("call_fn", "init_fn"):
            config[key] = _function(config.get(key), key)
        return cls(**config)


def _function(entry, key):
    if entry is None or callable(entry):
        return entry
    name = entry.get("config") if isinstance(entry, dict) else entry
    found = catalog.get_registered_object(name) if isinstance(name, str) else None
    if not callable(found):
        raise ValueError(f"JaxLayer config: {key} {name!r} is not a known function; register "
                         "it with register_keras_serializable or pass it in custom_objects.")
    return found


class FlaxLayer(JaxLayer):
    """A Flax Linen module as a layer (Keras 3's): its "params" collection is trainable,
    every other collection (``batch_stats``, ...) non-trainable state, updated by the
    calls that mutate it. ``method`` (default ``__call__``) runs for both ``init`` and
    ``apply``; a ``training`` argument of it gets the training flag; the "dropout" key is
    given in training. ``variables`` (as ``module.init`` returns them) may be given.
    Needs Flax (``pip install flax``)."""

    def __init__(self, module, method=None, variables=None, **kwargs):
        from flax.linen import DenyList  # an optional dependency: only FlaxLayer needs it

        self.module, self.method = module, method
        mutable = DenyList(["params"])
        takes_training = "training" in inspect.signature(
            method or module.__call__).parameters

        def call_fn(params, state, rng, inputs, training):
            extra = {"training": training} if takes_training else {}
            return module.apply({**params, **state}, inputs, rngs=rng, method=method,
                                mutable=mutable, **extra)

        def init_fn(rng, inputs, training):
            extra = {"training": training} if takes_training else {}
            return _split(module.init(rng, inputs, method=method, **extra))

        params, state = _split(variables) if variables is not None else (None, None)
        super().__init__(call_fn, init_fn, params=params, state=state, **kwargs)

    def _init_rng(self):
        params, dropout = jax.random.split(super()._init_rng())
        return {"params": params, "dropout": dropout}

    def _call_rng(self, training):
        return {"dropout": self.random_key()} if training else {}

    def get_config(self):
        raise NotImplementedError(
            f'FlaxLayer "{self.name}": a Flax module has no Keras config; rebuild the model '
            "in code and load its weights (save_weights / load_weights).")


def _split(variables):
    """Flax's variables as ``(params, state)``: the "params" collection, and the rest."""
    params = {k: v for k, v in variables.items() if k == "params"}
    return params, {k: v for k, v in variables.items() if k != "params"}
