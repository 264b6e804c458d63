"""``Functional``: a model defined by a graph of layer calls from inputs to outputs.

>>> import kgraph as kg, jax.numpy as jnp
>>> x = kg.Input(shape=(4,), name="x")
>>> h = kg.layers.Dense(8, activation="relu")(x)
>>> model = kg.Model(inputs=x, outputs={"y": kg.layers.Dense(2)(h)})
>>> model(jnp.ones((3, 4)))["y"].shape
(3, 2)
"""

from __future__ import annotations

import collections
import warnings

import jax

from kgraph.base import bulk, catalog, naming
from kgraph.base.input_spec import InputSpec, assert_input_compatibility
from kgraph import saving
from kgraph.graph.keras_tensor import KerasTensor
from kgraph.interpreter import context, execute, walk
from kgraph.interpreter.plan import Plan
from kgraph.models.model import Model

__all__ = ["Functional"]


def _shapes(tensors):
    shapes = [tuple(t.shape) for t in tensors]
    return shapes[0] if len(shapes) == 1 else shapes


def _adjust_rank(value, reference):
    """``value`` with its last axis squeezed or added when its rank is one off its Input's,
    as Keras does: one more with a last size of 1 is squeezed, one fewer is expanded when
    the Input's last size is 1 (MNIST's ``(n, 28, 28)`` into ``Input((28, 28, 1))``).
    Anything else is returned as given, for the input spec to refuse."""
    shape = getattr(value, "shape", None)
    if shape is None:
        return value
    rank, ref_shape = len(shape), tuple(reference.shape)
    if rank == len(ref_shape) + 1 and shape[-1] == 1:
        new_shape = tuple(shape[:-1])
    elif rank == len(ref_shape) - 1 and ref_shape and ref_shape[-1] == 1:
        new_shape = (*shape, 1)
    else:
        return value
    if isinstance(value, KerasTensor):
        return KerasTensor(new_shape, value.dtype)
    return value[..., 0] if len(new_shape) < rank else value[..., None]


class Functional(Model):
    """A graph of layers; ``inputs``/``outputs`` may be a tensor, a list, or a dict.

    The graph is discovered and ordered once, here; an output needing an Input that is not
    given raises ``Graph disconnected`` and duplicate layer names raise, both at once.
    """

    _allow_non_tensor_positional_args = True  # as Keras's functional models

    autocast = False  # each inner layer casts for itself

    def __init__(self, inputs, outputs, name=None, trainable=True):
        super().__init__(name=name, trainable=trainable)
        self._inputs_struct = inputs
        self._outputs_struct = outputs
        self.inputs, self._in_treedef = jax.tree_util.tree_flatten(inputs)
        self.outputs, self._out_treedef = jax.tree_util.tree_flatten(outputs)
        if not self.inputs or not self.outputs:
            raise ValueError("Model needs at least one input and one output tensor.")
        for tensor in self.inputs:
            if getattr(tensor, "_keras_history", None) is None:
                raise TypeError(f"Model inputs must be symbolic tensors made by kg.Input; "
                                f"received {tensor!r} (a graph of ops on bare KerasTensors "
                                "is a kg.Function).")
        with bulk.collector_paused():
            self._discover_graph()
        self.input_spec = [InputSpec(shape=t.shape)
                           for t in self.inputs]
        self.built = True

    def _discover_graph(self):
        """Order the graph's nodes, name its layers, check the names, list the layers."""
        self._nodes = walk.topological_order(self.inputs, self.outputs)
        layers, seen = [], set()
        for layer in [t._keras_history.layer for t in self.inputs] + [n.layer for n in self._nodes]:
            if id(layer) not in seen:
                seen.add(id(layer))
                layers.append(layer)
        naming.localize_names(layers, self)
        counts = collections.Counter(layer.name for layer in layers)
        duplicated = [name for name, count in counts.items() if count > 1]
        if duplicated:
            raise ValueError(f'The name "{duplicated[0]}" is used {counts[duplicated[0]]} times '
                             f"in the model {self.name!r}. All layer names should be unique.")
        # Keras's order (by depth, as it builds the graph), so that model.layers, weights,
        # get_weights and the optimizer's variables line up with Keras's
        ordered = walk.keras_layer_order(self.inputs, self.outputs)
        same = {id(layer) for layer in ordered} == {id(layer) for layer in layers}
        self._layers = ordered if same and len(ordered) == len(layers) else layers

    # ------------------------------------------------------------------ structure
    @property
    def input(self):
        """The model's input tensor(s), in the structure given to the constructor."""
        return self._inputs_struct

    @property
    def output(self):
        """The model's output tensor(s), in the structure given to the constructor."""
        return self._outputs_struct

    @property
    def input_shape(self):
        """The inputs' shapes: one shape for one input, else a list (Keras's)."""
        return _shapes(self.inputs)

    @property
    def output_shape(self):
        """The outputs' shapes: one shape for one output, else a list (Keras's)."""
        return _shapes(self.outputs)

    @property
    def layers(self) -> list:
        """Every layer of the graph, once each, in Keras's order: by depth from the inputs
        (``walk.keras_layer_order``). As in Keras, ``ops`` nodes (``x + y``,
        ``ops.relu(x)`` on symbolic tensors) are operations, not layers: they are in
        ``operations``, so ``model.layers[i]`` is the layer Keras gives."""
        return [layer for layer in self._layers if not catalog.is_operation(type(layer))]

    @property
    def operations(self) -> list:
        """Every node of the graph, layers and ``ops`` nodes, in ``layers``' order."""
        return list(self._layers)

    def _tracked_layers(self):
        return self._layers

    def _variable_tree(self, _seen=None):
        seen = {id(self)} if _seen is None else _seen | {id(self)}
        tree = {}
        for layer in self._layers:
            if id(layer) in seen:
                continue
            sub = layer._variable_tree(seen)
            if sub:
                tree[layer.name] = sub
        return tree

    def get_layer(self, name=None, index=None):
        """A layer by name (an ``ops`` node's name finds it too) or by index in
        ``layers``."""
        layers = self.layers
        if index is not None:
            if not 0 <= index < len(layers) and not -len(layers) <= index < 0:
                raise ValueError(f"Index {index} is out of range for model {self.name!r} "
                                 f"with {len(layers)} layers.")
            return layers[index]
        for layer in self._layers:
            if layer.name == name:
                return layer
        raise ValueError(f"No such layer: {name!r} in model {self.name!r}. Existing layers are: "
                         f"{[layer.name for layer in layers]}.")

    @property
    def input_names(self) -> list:
        return [t._keras_history.layer.name for t in self.inputs]

    # ------------------------------------------------------------------- running
    def _flatten_inputs(self, inputs) -> list:
        """The model's inputs as a flat list in ``self.inputs`` order, with clear errors."""
        struct = self._inputs_struct
        if isinstance(inputs, dict) and not isinstance(struct, dict):
            missing = [n for n in self.input_names if n not in inputs]
            if missing:
                raise ValueError(f"Model {self.name!r} is missing input(s) {missing}; it expects "
                                 f"keys {self.input_names}, received keys {sorted(inputs)}.")
            self._warn_unused_keys(inputs, self.input_names)
            return [inputs[n] for n in self.input_names]
        if isinstance(struct, dict):
            if not isinstance(inputs, dict):
                raise ValueError(f"Model {self.name!r} expects a dict of inputs with keys "
                                 f"{sorted(struct)}, received {type(inputs).__name__}.")
            missing = sorted(set(struct) - set(inputs))
            if missing:
                raise ValueError(f"Model {self.name!r} is missing input(s) {missing}; it expects "
                                 f"keys {sorted(struct)}, received keys {sorted(inputs)}.")
            self._warn_unused_keys(inputs, struct)
            return [inputs[k] for k in sorted(struct)]
        if isinstance(struct, (list, tuple)):
            if not isinstance(inputs, (list, tuple)):
                if len(struct) == 1:  # one input given as [x], called with x: as Keras
                    return [inputs]
                raise ValueError(f"Model {self.name!r} expects a list of {len(struct)} inputs "
                                 f"{self.input_names}, received a single "
                                 f"{type(inputs).__name__}.")
            if len(inputs) != len(struct):
                raise ValueError(f"Model {self.name!r} expects {len(struct)} inputs "
                                 f"{self.input_names}, received {len(inputs)}.")
            return list(inputs)
        if isinstance(inputs, (list, tuple)) and len(inputs) == 1:
            return list(inputs)
        return [inputs]

    def _warn_unused_keys(self, inputs, names) -> None:
        """Keys of a dict of inputs that name no input are not used: said, as Keras does."""
        unused = sorted(set(inputs) - set(names))
        warned = self.__dict__.setdefault("_warned_input_keys", set())
        if unused and tuple(unused) not in warned:
            warned.add(tuple(unused))
            warnings.warn(f"Model {self.name!r} does not use input key(s) {unused}: its inputs "
                          f"are {sorted(names)}.", UserWarning, stacklevel=4)

    def _standardize_inputs(self, inputs):
        """``inputs`` with each array's rank adjusted to its ``Input``'s (``_adjust_rank``,
        Keras's ``Functional._adjust_input_rank``). Every run of the model passes here
        (``_arrays_for_call``: eager calls and the compiled program of fit / evaluate /
        predict), so they all accept the same data."""
        if not self.built or not getattr(self, "inputs", None):
            return inputs
        flat = self._flatten_inputs(inputs)
        if len(flat) != len(self.inputs):
            return inputs
        adjusted = [_adjust_rank(x, ref) for x, ref in zip(flat, self.inputs)]
        if all(a is b for a, b in zip(adjusted, flat)):
            return inputs
        return jax.tree_util.tree_unflatten(self._in_treedef, adjusted)

    def _arrays_for_call(self, args, kwargs):
        if args:
            args = (self._standardize_inputs(args[0]), *args[1:])
        elif "inputs" in kwargs:
            kwargs = {**kwargs, "inputs": self._standardize_inputs(kwargs["inputs"])}
        return super()._arrays_for_call(args, kwargs)

    def _check_inputs(self, inputs):
        flat = self._flatten_inputs(self._standardize_inputs(inputs))
        assert_input_compatibility(self.input_spec, flat, self.name)

    @property
    def plan(self) -> Plan:
        """What the interpreter runs for this model: its nodes in order, every node
        unrolled (``compiler.compile`` makes a plan with scanned runs)."""
        return Plan(self._nodes, self.inputs, self.outputs)

    def _run(self, inputs, run_node, mask=None, hooks=()):
        ctx = context.current()
        plan = ctx.options.plans.get(id(self)) if ctx is not None else None
        outputs, out_masks = execute.run_model(self, inputs, plan or self.plan, hooks, mask,
                                               run_node)
        if ctx is not None:
            ctx.output_masks[id(self)] = out_masks
        return outputs

    def call(self, inputs, training=None, mask=None):
        """Run the graph on ``inputs`` (``kgraph.interpreter.execute.run_model``)."""
        ctx = context.current()
        hooks = ctx.options.hooks if ctx is not None else ()
        return self._run(inputs, execute.call_node, mask, hooks)

    def compute_mask(self, inputs, mask=None):
        """The output masks of the last run of this model in the current call."""
        ctx = context.current()
        masks = ctx.output_masks.get(id(self)) if ctx is not None else None
        if masks is None or all(m is None for m in masks):
            return None
        return jax.tree_util.tree_unflatten(self._out_treedef, masks)

    def _symbolic_mask(self, inputs, previous_mask):
        """A nested model's symbolic output masks: those its graph's outputs carry."""
        masks = [getattr(t, "_keras_mask", None) for t in self.outputs]
        if all(m is None for m in masks):
            return None
        return jax.tree_util.tree_unflatten(self._out_treedef, masks)

    def compute_output_spec(self, inputs, training=None, mask=None, **kwargs):
        return self._run(self._standardize_inputs(inputs), execute.infer_node)

    def _symbolic_call(self, args, kwargs):
        inputs = args[0] if args else kwargs.get("inputs")
        flat = self._flatten_inputs(inputs)
        if not all(isinstance(t, KerasTensor) for t in flat):
            raise TypeError(f"Model {self.name!r} was called on a mix of symbolic tensors and "
                            "arrays; call it on all KerasTensors or all arrays.")
        return super()._symbolic_call(args, kwargs)

    def get_config(self):
        """Keras 3's functional config: layers with their inbound nodes, input/output layers."""
        return saving.functional_get_config(self)

    @classmethod
    def from_config(cls, config, custom_objects=None, safe_mode=True):
        """Rebuild the graph from ``get_config()`` (registered layer classes only)."""
        return saving.functional_from_config(cls, config, custom_objects, safe_mode)
