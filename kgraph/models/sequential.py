"""``Sequential``: a linear stack of layers, built into a functional graph.

>>> import kgraph as kg, jax.numpy as jnp
>>> model = kg.Sequential([kg.Input(shape=(4,)), kg.layers.Dense(8), kg.layers.Dense(2)])
>>> model(jnp.ones((3, 4))).shape
(3, 2)
>>> lazy = kg.Sequential([kg.layers.Dense(8)])   # no input yet: built on its first call
>>> lazy.built, lazy(jnp.ones((3, 5))).shape, lazy.built
(False, (3, 8), True)
"""

from __future__ import annotations

import inspect
import warnings

import jax

from kgraph import saving
from kgraph.base.layer import Layer
from kgraph.graph.input_layer import InputLayer
from kgraph.graph.keras_tensor import KerasTensor
from kgraph.models.functional import Functional
from kgraph.models.model import Model

__all__ = ["Sequential"]


# Attributes that belong to the Sequential object itself (identity, weights it owns, the
# runtime's training setup, which follows graph changes itself); everything else a
# Functional sets up describes the graph and is copied.
_OWN_ATTRIBUTES = frozenset({
    "name", "_trainable", "_dtype_policy", "activity_regularizer", "losses", "_inbound_nodes",
    "_own_variables", "_output_spec_cache", "_sublayers", "_var_attrs", "_training_setup",
    "_stack", "_functional"})


def _check_single_input(layer, error):
    """Keras's error for a layer that cannot take one positional input (a TypeError
    raised while calling it on the previous layer's output)."""
    parameters = [p for p in inspect.signature(layer.call).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in parameters if p.default is p.empty]
    if not parameters:
        raise ValueError(f"Layers added to a Sequential model should have a single "
                         f"positional argument, the input tensor. Layer {layer.name!r} "
                         f"({type(layer).__name__}) has no positional arguments.") from error
    if len(required) > 1:
        raise ValueError(f"Layers added to a Sequential model can only have a single "
                         f"required positional argument, the input tensor. Layer "
                         f"{layer.name!r} ({type(layer).__name__}) has multiple required "
                         f"positional arguments: {[p.name for p in required]}") from error


class Sequential(Functional):
    """A ``Model`` whose layers each take the previous one's single output.

    Give the input shape with a first ``kg.Input(shape=...)`` (or ``InputLayer``) and the
    graph is built as layers are added; without one, it is built the first time the model
    is called (on arrays or a KerasTensor), on ``build(input_shape)``, or on ``fit`` /
    ``evaluate`` / ``predict``. Once built it is a ``Functional`` (``compiler.compile``,
    ``summary``, ``fit``, params keyed by layer name), and ``_functional`` is that graph
    as a plain Functional (Keras's attribute). As in Keras, a model first called on a
    structure (a dict or list of arrays), or holding a layer whose output shape cannot be
    inferred, gets no graph: its calls run the layers one after another, eagerly.
    """

    def __init__(self, layers=None, trainable=True, name=None):
        Model.__init__(self, name=name, trainable=trainable)
        self._stack = []
        self._reset_graph()
        for layer in layers or ():
            self.add(layer, rebuild=False)
        if self._stack:
            self._maybe_rebuild()

    # ------------------------------------------------------------------ stack
    @property
    def layers(self) -> list:
        """The layers added (without the ``InputLayer``, as Keras)."""
        if self._stack and isinstance(self._stack[0], InputLayer):
            return self._stack[1:]
        return list(self._stack)

    @layers.setter
    def layers(self, _):
        raise AttributeError("`Sequential.layers` attribute is reserved and should not be used "
                             "(it is read-only). Use `add()` and `pop()` to change the layers "
                             "in this model.")

    def _tracked_layers(self):
        return self._stack

    def _flattened_children(self):
        """The graph's layers and those only an attribute holds, as a Functional's, but not
        ``_functional``: it is this model's own graph, not a layer in it."""
        own = self.__dict__.get("_functional")
        return [layer for layer in super()._flattened_children() if layer is not own]

    def add(self, layer, rebuild=True):
        """Append ``layer`` (a Layer, or a ``kg.Input`` tensor as the first entry)."""
        if isinstance(layer, KerasTensor):
            origin = layer._keras_history.layer if layer._keras_history else None
            if not isinstance(origin, InputLayer):
                raise ValueError(f"Sequential model {self.name!r}: the only tensor that can be "
                                 f"added is a kg.Input(...) tensor, received {layer!r}.")
            layer = origin
        if not isinstance(layer, Layer):
            raise ValueError(f"Only instances of kg.Layer can be added to a Sequential model. "
                             f"Received: {layer!r} (of type {type(layer).__name__}).")
        if any(other.name == layer.name for other in self._stack):
            raise ValueError(f"All layers added to a Sequential model should have unique "
                             f"names. Name {layer.name!r} is already the name of a layer in "
                             f"model {self.name!r}; pass a different name= to the layer.")
        if isinstance(layer, InputLayer) and self._stack:
            if isinstance(self._stack[0], InputLayer):
                raise ValueError(f"Sequential model {self.name!r} has already been configured "
                                 f"to use input shape {self._stack[0].batch_shape}. You cannot "
                                 "add a different Input layer to it.")
            raise ValueError(f"Sequential model {self.name!r}: an Input can only be its first "
                             "layer (add it before the other layers).")
        shape = getattr(layer, "_input_shape_arg", None)
        if shape is not None and not self._stack and not isinstance(layer, InputLayer):
            # Keras's input_shape= / input_dim= on a first layer: an Input before it.
            self._stack.append(InputLayer(batch_shape=shape))
            layer._input_shape_arg = None  # used
        elif shape is not None and not isinstance(layer, InputLayer):
            layer._input_shape_arg = None
            warnings.warn(f"Layer {layer.name!r}: input_shape / input_dim are used only by "
                          f"the first layer of a Sequential model; on layer "
                          f"{len(self._stack)} of {self.name!r} they are ignored.",
                          UserWarning, stacklevel=3)
        self._stack.append(layer)
        if not rebuild:
            self._reset_graph()
            return
        try:
            if self.built and not isinstance(layer, InputLayer):
                self._set_graph(self.inputs[0], self._apply(layer, self.outputs[0]))
            else:
                self._maybe_rebuild()
        except Exception:
            self._stack.pop()
            self._maybe_rebuild()
            raise

    def pop(self, rebuild=True):
        """Remove and return the last layer."""
        if not self.layers:
            raise TypeError(f"There are no layers in Sequential model {self.name!r} to pop.")
        layer = self._stack.pop()
        self._reset_graph()
        if rebuild:
            self._maybe_rebuild()
        return layer

    # ------------------------------------------------------------------ graph
    def _reset_graph(self):
        self.built = False
        self._nodes = []
        self._layers = self._stack
        self._output_spec_cache = {}  # shapes inferred for the previous graph
        self.__dict__["_functional"] = None  # Keras's: the graph, once built
        self.__dict__["_layer_by_layer"] = False  # no graph for its inputs: see call()

    def _maybe_rebuild(self):
        self._reset_graph()
        first = self._stack[0] if self._stack else None
        if isinstance(first, InputLayer):
            if len(self._stack) > 1:
                self.build(first.batch_shape)
        elif isinstance(first, Functional) and first.built and len(first.inputs) == 1:
            self.build(first.inputs[0].shape, first.inputs[0].dtype)

    def build(self, input_shape=None, dtype=None):
        """Build the graph for inputs of ``input_shape`` (batch axis included)."""
        if not self._stack:
            raise ValueError(f"Sequential model {self.name!r} cannot be built because it has "
                             "no layers. Call model.add(layer).")
        first = self._stack[0]
        if input_shape is None:
            if not isinstance(first, InputLayer):
                raise ValueError(
                    f"Sequential model {self.name!r} has no input shape: start it with "
                    "kg.Input(shape=...), call it on data, or call build((None, ...)).")
            input_shape = first.batch_shape
        if not (isinstance(input_shape, (list, tuple)) and all(
                d is None or isinstance(d, int) for d in input_shape)):
            raise ValueError(f"Sequential model {self.name!r} takes a single input tensor; "
                             f"build() received input_shape={input_shape!r}.")
        input_shape = tuple(input_shape)
        if isinstance(first, InputLayer):
            if len(first.batch_shape) != len(input_shape) or any(
                    a is not None and b is not None and a != b
                    for a, b in zip(first.batch_shape, input_shape)):
                raise ValueError(f"Sequential model {self.name!r} has already been configured "
                                 f"to use input shape {first.batch_shape}. You cannot build it "
                                 f"with input_shape {input_shape}.")
        else:
            if dtype is None:
                dtype = first.compute_dtype
            first = InputLayer(batch_shape=input_shape, dtype=dtype)
            first._made_by_build = True  # not the user's: built on first use (variable paths)
            self._stack.insert(0, first)
        x = first._inbound_nodes[0].outputs[0]
        inputs = x
        for layer in self._stack[1:]:
            try:
                x = self._apply(layer, x)
            except NotImplementedError:
                # As Keras: a layer whose output shape cannot be inferred leaves the model
                # without a graph; its calls run the layers one after another.
                self.__dict__["_layer_by_layer"] = True
                return
            except TypeError as error:
                _check_single_input(layer, error)
                raise
        self._set_graph(inputs, x)

    @staticmethod
    def _apply(layer, x):
        y = layer(x)
        if not isinstance(y, KerasTensor):
            count = len(jax.tree_util.tree_leaves(y))
            raise ValueError(f"All layers in a Sequential model should have a single output "
                             f"tensor; layer {layer.name!r} ({type(layer).__name__}) returned "
                             f"{count} outputs. Use the functional API (kg.Model(inputs, "
                             "outputs)) for layers with several outputs.")
        return y

    def _set_graph(self, inputs, outputs):
        """Describe the graph inputs -> outputs with a Functional's attributes."""
        graph = Functional(inputs, outputs, name=self.name, trainable=self.trainable)
        for key, value in graph.__dict__.items():
            if key in _OWN_ATTRIBUTES:
                continue
            if isinstance(getattr(type(self), key, None), property):
                setattr(self, key, value)  # inputs / outputs
            else:
                self.__dict__[key] = value
        self._layers = self._stack
        self._output_spec_cache = {}
        self.__dict__["_functional"] = graph  # the same graph as a plain Functional (Keras's)
        self.built = True

    def _maybe_build(self, inputs):
        if self.built:
            return
        if inputs is None:
            raise ValueError(f"Sequential model {self.name!r} was called without an input; "
                             "call it on an array or a KerasTensor.")
        if self._layer_by_layer:
            return
        if not hasattr(inputs, "shape"):
            # As Keras: a model called on a structure (dict, list) has no graph; its calls
            # give the structure to the first layer, its output to the next, ...
            if not self._stack:
                raise ValueError(f"Sequential model {self.name!r} cannot be built because it "
                                 "has no layers. Call model.add(layer).")
            self.__dict__["_layer_by_layer"] = True
            return
        shape = tuple(inputs.shape)
        if not isinstance(inputs, KerasTensor) and shape:
            shape = (None, *shape[1:])  # any batch size, not the first call's
        self.build(shape, inputs.dtype)

    def _symbolic_call(self, args, kwargs):
        self._maybe_build(args[0] if args else kwargs.get("inputs"))
        if not self.built:
            return Model._symbolic_call(self, args, kwargs)
        return super()._symbolic_call(args, kwargs)

    def _check_inputs(self, inputs):
        """As Keras's Sequential: a graph built on the first data it was called on (no
        ``kg.Input`` of the user's) takes inputs of other shapes, which its layers check;
        one started with an Input is checked against it."""
        if self.built and not getattr(self._stack[0], "_made_by_build", False):
            super()._check_inputs(inputs)

    def _call_unbuilt(self, inputs):
        """``call`` without a graph (see ``build``): the layers one after another. (``call``
        itself stays ``Functional.call``: compiling a model with that call runs its plan.)"""
        for layer in self.layers:
            inputs = layer(inputs)
        return inputs

    def compute_output_spec(self, inputs, training=None, mask=None, **kwargs):
        if self.built:
            return super().compute_output_spec(inputs, training=training, mask=mask)
        for layer in self.layers:
            inputs = layer.compute_output_spec(inputs)
        return inputs

    def compute_output_shape(self, input_shape):
        """The output shape for ``input_shape`` (the graph's; unbuilt, each layer's
        ``compute_output_shape`` in turn, as Keras)."""
        if self.built:
            return super().compute_output_shape(input_shape)
        for layer in self.layers:
            input_shape = layer.compute_output_shape(input_shape)
        return input_shape

    @property
    def inputs(self):
        if not self.built:
            raise AttributeError(f"Sequential model {self.name!r} has no defined inputs yet: "
                                 "it is not built.")
        return self.__dict__["_graph_inputs"]

    @inputs.setter
    def inputs(self, value):
        self.__dict__["_graph_inputs"] = value

    @property
    def outputs(self):
        if not self.built:
            raise AttributeError(f"Sequential model {self.name!r} has no defined outputs yet: "
                                 "it is not built.")
        return self.__dict__["_graph_outputs"]

    @outputs.setter
    def outputs(self, value):
        self.__dict__["_graph_outputs"] = value

    # ------------------------------------------------------------------ config
    def get_config(self):
        return saving.scope.sharing(self._config)()

    def _config(self):
        config = {"name": self.name, "trainable": self.trainable,
                  "dtype": self.dtype_policy.name,
                  "layers": [saving.serialize_layer(layer) for layer in self._stack]}
        if self.built:
            config["build_input_shape"] = list(self._stack[0].batch_shape)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None, safe_mode=True):
        if "layers" not in config:
            raise ValueError(f"A Sequential config needs 'name' and 'layers' keys; received "
                             f"keys {sorted(config)}.")
        model = cls(name=config.get("name"), trainable=config.get("trainable", True))
        entry = {"class_name": "Sequential", "config": config}
        with saving.scope.loading(entry, "layer", safe_mode):  # one scope: shared layers built once
            for layer_config in config["layers"]:
                model.add(saving.deserialize_layer(layer_config, custom_objects, safe_mode),
                          rebuild=False)
        if model._stack:
            model._maybe_rebuild()
        shape = config.get("build_input_shape")
        if not model.built and shape is not None and model._stack:
            model.build(tuple(shape))
        return model
