"""Keras 3's public layer methods and attributes beyond the author API, with Keras's
semantics: ``stateless_call``, ``add_variable``, ``metrics`` / ``metrics_variables``,
``get_build_config`` / ``build_from_config``, ``path``, ``input_dtype``, ``supports_jit``,
``call_signature_parameters`` and the disabled ``add_metric``.
A base of ``kgraph.base.layer.Layer``.

>>> import numpy as np, kgraph as kg
>>> dense = kg.layers.Dense(2, kernel_initializer="ones", name="dense")
>>> dense.build((None, 3))
>>> out, _ = dense.stateless_call([np.full((3, 2), 2.0), np.zeros(2)], [], np.ones((1, 3)))
>>> out.tolist(), dense.path, dense.get_build_config()
([[6.0, 6.0]], 'dense', {'input_shape': (None, 3)})
"""

from __future__ import annotations

import functools
import inspect

from kgraph.base import name_scope
from kgraph.interpreter import context

__all__ = ["LayerSurface", "given_values", "infer_build_config_with"]

# How a layer's build config is read from the graph it was called in (its first call's
# input shapes), for layers whose ``build`` shapes were not recorded: saving's rule,
# which ``kgraph.saving.layer_config`` registers here when it is imported.
_inferred_build_config = [lambda layer: None]


def infer_build_config_with(function) -> None:
    """Register ``function(layer) -> build config or None`` (``kgraph.saving``'s)."""
    _inferred_build_config[0] = function


def given_values(layer, what, trainable_variables, non_trainable_variables) -> dict:
    """``{id(variable): value}`` of ``layer``'s variables, from the lists given in
    ``layer.trainable_variables`` / ``non_trainable_variables`` order (counts checked): how
    every ``stateless_*`` method reads Keras's variable lists.

    >>> import kgraph as kg
    >>> dense = kg.layers.Dense(2)
    >>> dense.build((None, 3))
    >>> len(given_values(dense, "stateless_call", [1.0, 2.0], []))
    2
    """
    trainable, non_trainable = layer.trainable_variables, layer.non_trainable_variables
    if len(trainable_variables) != len(trainable) or len(non_trainable_variables) != len(
            non_trainable):
        raise ValueError(
            f"{what} on {type(layer).__name__} {layer.name!r}: expected {len(trainable)} "
            f"trainable and {len(non_trainable)} non-trainable variables, received "
            f"{len(trainable_variables)} and {len(non_trainable_variables)}.")
    return {id(v): getattr(x, "value", x)
            for v, x in zip([*trainable, *non_trainable],
                            [*trainable_variables, *non_trainable_variables])}


def _is_metric(value) -> bool:
    return all(hasattr(value, name) for name in ("update_state", "result", "reset_state")) \
        and not hasattr(value, "add_loss")  # (not a layer)


def _shape(value):
    """A build_config shape (JSON lists) as ``build`` takes it: tuples."""
    if isinstance(value, dict):
        return {k: _shape(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)) and all(
            d is None or isinstance(d, int) for d in value):
        return tuple(value)
    if isinstance(value, (list, tuple)):
        return [_shape(v) for v in value]
    return value


def _recording(build):
    """``build`` that records the shapes it was called with (``get_build_config``)."""
    signature = inspect.signature(build)

    @functools.wraps(build)
    def wrapper(self, *args, **kwargs):
        with self._open_name_scope():  # Keras's: weights and sub-layers made in its scope
            result = build(self, *args, **kwargs)
        try:
            shapes = dict(signature.bind(self, *args, **kwargs).arguments)
        except TypeError:
            return result
        shapes.pop(next(iter(signature.parameters)), None)  # self
        self.__dict__["_build_shapes_dict"] = shapes
        return result

    wrapper._records_build = True
    return wrapper


class LayerSurface:
    """Keras's ``Layer`` methods and attributes listed in the module docstring."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        build = cls.__dict__.get("build")
        if callable(build) and not getattr(build, "_records_build", False):
            cls.build = _recording(build)

    #: Whether the layer's call can be compiled by ``jax.jit`` (always, in kgraph).
    supports_jit = True

    @property
    def path(self):
        """Keras's layer path: the layer's name, under its parent's path for a sub-layer a
        layer builds itself (``mha/query``: Keras builds it in the parent's name scope);
        None until the layer is built, as Keras."""
        return self._scoped_name() if self.built else None

    def _scoped_name(self) -> str:
        """``path`` also while the layer builds (a dtype policy map is read by it then)."""
        parent = self._parent_path
        return f"{parent}/{self.name}" if parent else self.name

    @property
    def _parent_path(self):
        """Keras's: the path of the name scopes open when the layer first opened its own
        (built or called), else None."""
        chain = self.__dict__.get("_parent_chain")
        return None if chain is None else name_scope.chain_path(chain)

    def _open_name_scope(self):
        """The layer's own name scope, under the scopes open the first time (Keras's)."""
        if self.__dict__.get("_parent_chain") is None:
            self.__dict__["_parent_chain"] = name_scope.current_chain()
        return name_scope.name_scope(self.name, caller=self)

    @property
    def call_signature_parameters(self) -> list:
        """The names of ``call``'s parameters (Keras's list)."""
        return list(inspect.signature(self.call).parameters)

    def add_metric(self, *args, **kwargs):
        """Disabled, as in Keras 3: metrics go in ``compile`` or are trackers of the layer."""
        raise NotImplementedError(
            "Layer `add_metric()` method is deprecated. Add your metric in "
            "`Model.compile(metrics=[...])`, or create metric trackers in init() or build() "
            "when subclassing the layer or model, then call `metric.update_state()` "
            "whenever necessary.")

    @property
    def input_dtype(self):
        """The dtype the layer casts its floating inputs to: its compute dtype."""
        return self.compute_dtype

    def add_variable(self, shape, initializer, dtype=None, trainable=True, autocast=True,
                     regularizer=None, constraint=None, name=None):
        """Keras's alias of ``add_weight`` (its arguments, in its order)."""
        return self.add_weight(shape=shape, initializer=initializer, dtype=dtype,
                               trainable=trainable, autocast=autocast,
                               regularizer=regularizer, constraint=constraint, name=name)

    @property
    def metrics(self) -> list:
        """The metric objects held as the layer's attributes, then its sublayers'."""
        return self._held_metrics(lambda layer: True)

    def _held_metrics(self, of_sublayer) -> list:
        """The metrics held as attributes, then those of the sublayers ``of_sublayer``
        accepts."""
        own = [v for v in vars(self).values() if _is_metric(v)]
        for layer in self._tracked_layers():
            if of_sublayer(layer):
                own.extend(layer.metrics)
        return own

    @property
    def metrics_variables(self) -> list:
        """The state variables of ``metrics``, in order."""
        return [variable for metric in self.metrics for variable in metric.variables]

    def get_build_config(self):
        """``{"input_shape": ...}`` (or ``{"shapes_dict": ...}`` for a layer built from
        several shapes) the layer was built with, as Keras writes it; None if unknown."""
        shapes = self.__dict__.get("_build_shapes_dict")
        if shapes:
            if len(shapes) == 1:
                return {"input_shape": next(iter(shapes.values()))}
            return {"shapes_dict": shapes}
        config = _inferred_build_config[0](self)
        if config is not None and "input_shape" in config:
            config = {"input_shape": _shape(config["input_shape"])}
        return config

    def build_from_config(self, config):
        """Build the layer from a ``get_build_config`` dict (nothing for an empty one)."""
        if not config or self.built:
            return
        if config.get("input_shape") is not None:
            self.build(_shape(config["input_shape"]))
        elif config.get("shapes_dict"):
            self.build(**{k: _shape(v) for k, v in config["shapes_dict"].items()})
        else:
            return
        self.built = True

    def stateless_call(self, trainable_variables, non_trainable_variables, *args,
                       return_losses=False, **kwargs):
        """``(outputs, non_trainable_variables)`` of calling the layer with its weights
        taken from the lists given (in ``trainable_variables`` / ``non_trainable_variables``
        order), touching nothing; jittable. ``kwargs`` go to the call (``training=...``;
        ``key=`` a PRNG key for random layers); ``return_losses`` also returns the losses
        the call added and the weights' penalties."""
        values = given_values(self, "stateless_call", trainable_variables,
                              non_trainable_variables)
        scope = context.CallContext(values=values, collect_assignments=True)
        with scope:
            outputs = self(*args, **kwargs)
        assigned = scope.weights.assignments
        non_trainable = [assigned.get(id(v), values[id(v)]) for v in self.non_trainable_variables]
        if not return_losses:
            return outputs, non_trainable
        penalties = [v.regularizer(values[id(v)]) for v in self.trainable_variables
                     if v.regularizer is not None]
        return outputs, non_trainable, [*scope.losses, *penalties]
