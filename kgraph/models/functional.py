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
import sys
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from kgraph.base import bulk, catalog, naming
from kgraph.base.input_spec import InputSpec, assert_input_compatibility
from kgraph.base.layer import _OWN_PACKAGES, Layer  # kgraph's, compiler's and runtime's folders
from kgraph import saving
from kgraph.graph.keras_tensor import KerasTensor
from kgraph.models import graph_slice
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
    None for any other rank (Keras's "Invalid input shape" error); a value without a
    shape is returned as given."""
    shape = getattr(value, "shape", None)
    if shape is None:
        return value
    rank, ref_shape = len(shape), tuple(reference.shape)
    if rank == len(ref_shape):
        return value
    if rank == len(ref_shape) + 1 and shape[-1] == 1:
        new_shape = tuple(shape[:-1])
    elif rank == len(ref_shape) - 1 and ref_shape and ref_shape[-1] == 1:
        new_shape = (*shape, 1)
    else:
        return None
    if isinstance(value, KerasTensor):
        return KerasTensor(new_shape, value.dtype)
    return value[..., 0] if len(new_shape) < rank else value[..., None]


def _cast(value, dtype):
    """An array given for an Input, converted to the Input's dtype as Keras does
    (numeric and boolean arrays; symbolic tensors and other values as given)."""
    if isinstance(value, KerasTensor) or not hasattr(value, "dtype"):
        return value
    try:
        given, wanted = jnp.dtype(value.dtype), jnp.dtype(dtype)
    except TypeError:
        return value
    numeric = [jnp.issubdtype(d, jnp.number) or d == jnp.bool_ for d in (given, wanted)]
    if given == wanted or not all(numeric):
        return value
    if isinstance(value, (np.ndarray, np.generic)):
        return np.asarray(value, dtype=wanted)
    return value.astype(wanted)


def _is_value(x) -> bool:
    """A single tensor (array or KerasTensor), not a structure of them."""
    return hasattr(x, "shape") and hasattr(x, "dtype")


def _structure(value):
    """``value``'s nesting, lists and tuples alike (Keras's ``lists_to_tuples``)."""
    def tuples(x):
        if isinstance(x, list) or (isinstance(x, tuple) and not hasattr(x, "_fields")):
            return tuple(tuples(v) for v in x)
        if isinstance(x, dict):
            return {k: tuples(v) for k, v in x.items()}
        return x
    return jax.tree_util.tree_structure(tuples(value), is_leaf=lambda x: x is None)


def _described(inputs):
    """``inputs`` for a message: tensors as their shapes."""
    return jax.tree_util.tree_map(
        lambda x: f"Tensor(shape={tuple(x.shape)})" if _is_value(x) else x, inputs,
        is_leaf=lambda x: x is None)


def _key(entry):
    """A tree path entry as Keras writes it in a path (``0``, ``foo``)."""
    for attribute in ("key", "idx", "name"):
        if hasattr(entry, attribute):
            return getattr(entry, attribute)
    return entry


class Functional(Model):
    """A graph of layers; ``inputs``/``outputs`` may be a tensor, a list, or a dict.

    The graph is discovered and ordered once, here; an output needing an Input that is not
    given raises (Keras's "Output with path ... is not connected", then which Input it
    needs) and duplicate layer names raise, both at once. Called on arrays, the model
    matches them to its Inputs as Keras does (``_standardize_inputs``): by structure or
    by name, cast to each Input's dtype, None for an ``optional`` Input.
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
        for what, given, flat in (("inputs", inputs, self.inputs),
                                  ("outputs", outputs, self.outputs)):
            for value in flat:
                if not isinstance(value, KerasTensor):
                    raise ValueError(f"All `{what}` values must be KerasTensors. Received: "
                                     f"{what}={given!r} including invalid value {value!r} of "
                                     f"type {type(value)} (model {name!r}).")
        for tensor in self.inputs:
            if getattr(tensor, "_keras_history", None) is None:
                raise TypeError(f"Model inputs must be symbolic tensors made by kg.Input; "
                                f"received {tensor!r} (a graph of ops on bare KerasTensors "
                                "is a kg.Function).")
        if not all(graph_slice.is_input_tensor(t) for t in self.inputs):
            # a slice of a graph: its own Inputs and nodes (``graph_slice``), as Keras's
            try:
                inputs, outputs = graph_slice.clone_between(inputs, outputs)
            except ValueError as error:  # Graph disconnected: which output, first
                raise self._disconnected_output(error) from None
            self._inputs_struct, self._outputs_struct = inputs, outputs
            self.inputs, self._in_treedef = jax.tree_util.tree_flatten(inputs)
            self.outputs, self._out_treedef = jax.tree_util.tree_flatten(outputs)
        with bulk.collector_paused():
            self._discover_graph()
        # as Keras's: any batch size (a layer that needs its Input's checks it itself)
        self.input_spec = [InputSpec(shape=(None, *t.shape[1:]) if t.shape else t.shape,
                                     name=t.name, optional=getattr(
                                         t._keras_history.layer, "optional", False))
                           for t in self.inputs]
        self.built = True

    def _discover_graph(self):
        """Order the graph's nodes, name its layers, check the names, list the layers."""
        try:
            self._nodes = walk.topological_order(self.inputs, self.outputs)
        except ValueError as error:
            raise self._disconnected_output(error) from None
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

    def _disconnected_output(self, error) -> ValueError:
        """``error`` (Graph disconnected) led by Keras's words: which output is not
        connected to the inputs, by its path in the outputs' structure."""
        paths = jax.tree_util.tree_flatten_with_path(self._outputs_struct)[0]
        for (path, _), output in zip(paths, self.outputs):
            try:
                walk.topological_order(self.inputs, [output])
            except ValueError:
                where = ".".join(str(_key(k)) for k in path)
                return ValueError(f"Output with path `{where}` is not connected to `inputs` "
                                  f"of model {self.name!r}. {error}")
        return error

    @property
    def _operations(self) -> list:
        """Keras's name for ``operations``."""
        return self.operations

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

    @layers.setter
    def layers(self, _):
        raise AttributeError("`Model.layers` attribute is reserved and should not be used "
                             "(it lists the graph's layers). Please use another name.")

    @property
    def operations(self) -> list:
        """Every node of the graph, layers and ``ops`` nodes, in ``layers``' order."""
        return list(self._layers)

    def _tracked_layers(self):
        return self._layers

    def _flattened_children(self):
        """The graph's layers, then those only the model's attributes hold (a subclass's
        layer outside its graph), as Keras's ``_flatten_layers`` lists them."""
        graph = {id(layer) for layer in self._layers}
        return [*self._layers,
                *(layer for layer in Layer._tracked_layers(self) if id(layer) not in graph)]

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
        """The model's inputs as a flat list in ``self.inputs`` order (None kept: an
        optional input's value), as Keras's ``Functional._standardize_inputs`` matches
        them: a dict keyed by input name fits a list model; a list fits a dict model whose
        keys are in sorted order (with Keras's structure warning); extra dict keys are
        dropped with a warning; anything else that does not fit raises ValueError."""
        struct = self._inputs_struct
        if isinstance(struct, list) and len(struct) == 1 and _is_value(inputs):
            inputs = [inputs]
        elif isinstance(inputs, dict) and not isinstance(struct, dict):
            flat_struct = isinstance(struct, KerasTensor) or all(
                isinstance(t, KerasTensor) for t in struct)
            if not flat_struct:
                raise ValueError(self._structure_message(inputs, "its inputs are not named "
                                                         "(a nested structure)"))
            names = self.input_names
            missing = [n for n in names if n not in inputs]
            if missing:
                raise ValueError(self._structure_message(
                    inputs, f"Model {self.name!r} is missing input(s) {missing}; it expects "
                            f"keys {names}, received keys {sorted(inputs)}"))
            self._warn_unused_keys(inputs, names)
            inputs = [inputs[n] for n in names]
            return inputs
        if isinstance(struct, dict):
            if isinstance(inputs, dict):
                missing = sorted(set(struct) - set(inputs))
                if missing:
                    raise ValueError(f'Missing data for input "{missing[0]}": model '
                                     f"{self.name!r} is missing input(s) {missing}; it "
                                     f"expects keys {sorted(struct)}, received keys "
                                     f"{sorted(inputs)}.")
                self._warn_unused_keys(inputs, struct)
                inputs = {k: inputs[k] for k in struct}
            elif _is_value(inputs) and len(self.inputs) > 1:
                names = sorted(struct)
                raise ValueError(f'Layer "{self.name}" expects {len(names)} named input(s) '
                                 f"with keys {names}, but it received 1 input tensor. Pass "
                                 "inputs as a dict, e.g. `model({"
                                 + ", ".join(f"'{n}': ..." for n in names) + "})`.")
            elif list(struct) != sorted(struct):
                raise ValueError(self._structure_message(
                    inputs, f"Model {self.name!r} expects a dict of inputs with keys "
                            f"{list(struct)}; as they are not in sorted order, a "
                            f"{type(inputs).__name__} cannot be matched to them"))
        flat = jax.tree_util.tree_leaves(inputs, is_leaf=lambda x: x is None)
        if len(flat) != len(self.inputs):
            raise ValueError(f'Layer "{self.name}" expects {len(self.inputs)} input(s) '
                             f"{self.input_names}, but it received {len(flat)} input "
                             f"tensors. Inputs received: {_described(inputs)}")
        if _structure(inputs) != _structure(struct):
            self._warn_once(("structure", str(_structure(inputs))),
                            self._structure_message(inputs, None))
        return flat

    def _structure_message(self, inputs, detail) -> str:
        """Keras's message for inputs not in the model's structure (``detail`` added)."""
        expected = jax.tree_util.tree_map(lambda t: t.name, self._inputs_struct)
        message = ("The structure of `inputs` doesn't match the expected structure.\n"
                   f"Expected: {expected}\nReceived: inputs={_described(inputs)}")
        return message if detail is None else f"{message}\n{detail}."

    def _warn_once(self, key, message) -> None:
        """Warn once per model and ``key``, at the user's line (the first frame outside
        kgraph, compiler and runtime)."""
        warned = self.__dict__.setdefault("_warned_input_keys", set())
        if key not in warned:
            warned.add(key)
            frame, level = sys._getframe(1), 2
            while frame is not None and frame.f_code.co_filename.startswith(_OWN_PACKAGES):
                frame, level = frame.f_back, level + 1
            warnings.warn(message, UserWarning, stacklevel=level)

    def _warn_unused_keys(self, inputs, names) -> None:
        """Keys of a dict of inputs that name no input are not used: said, as Keras does."""
        unused = sorted(set(inputs) - set(names))
        if unused:
            self._warn_once(tuple(unused), self._structure_message(
                inputs, f"Model {self.name!r} does not use input key(s) {unused}: its "
                        f"inputs are {sorted(names)}"))

    def _standardize_inputs(self, inputs):
        """``inputs`` in the model's input structure, as Keras's
        ``Functional._standardize_inputs``: matched to the inputs (``_flatten_inputs``),
        None only for an ``optional`` Input, arrays cast to their Input's dtype, and
        each one's rank adjusted to its Input's (``_adjust_rank``). Every run of the
        model passes here (``_arrays_for_call``: eager calls and the compiled program of
        fit / evaluate / predict), so they all accept the same data."""
        if not self.built or not getattr(self, "inputs", None):
            return inputs
        flat = self._flatten_inputs(inputs)
        paths = None
        adjusted = []
        for i, (x, ref) in enumerate(zip(flat, self.inputs)):
            if x is None:
                layer = ref._keras_history.layer
                if not getattr(layer, "optional", False):
                    raise ValueError(f"The input '{ref.name}' is not optional, but None was "
                                     f"passed (model {self.name!r}). Please provide a valid "
                                     "tensor, or make it Input(..., optional=True).")
                adjusted.append(None)
                continue
            value = _adjust_rank(_cast(x, ref.dtype), ref)
            if value is None:
                if paths is None:
                    paths = [".".join(str(_key(k)) for k in path) for path, _ in
                             jax.tree_util.tree_flatten_with_path(self._inputs_struct)[0]]
                raise ValueError(f"Invalid input shape for input {_described(x)} with name "
                                 f"'{ref.name}' and path '{paths[i]}' of model "
                                 f"{self.name!r}. Expected shape {ref.shape}, but input has "
                                 f"incompatible shape {tuple(x.shape)}")
            adjusted.append(value)
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
        """Run the graph on ``inputs`` (``kgraph.interpreter.execute.run_model``); an
        unbuilt Sequential, without a graph, runs its layers one by one."""
        if not self.built:
            return self._call_unbuilt(inputs)
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

    def compute_output_shape(self, input_shape):
        """The outputs' shapes for inputs of ``input_shape`` (one shape, or a structure of
        them as the inputs), in the outputs' structure (Keras's)."""
        def is_shape(x):
            return isinstance(x, (tuple, list)) and all(
                d is None or isinstance(d, (int, np.integer)) for d in x)
        if is_shape(input_shape):
            flat = [input_shape]
        else:
            flat = jax.tree_util.tree_leaves(input_shape, is_leaf=is_shape)
        if len(flat) != len(self.inputs):
            raise ValueError(f"Model {self.name!r} has {len(self.inputs)} input(s); "
                             f"compute_output_shape received input_shape={input_shape!r}.")
        specs = [KerasTensor(shape, ref.dtype) for shape, ref in zip(flat, self.inputs)]
        outputs = self.compute_output_spec(jax.tree_util.tree_unflatten(self._in_treedef, specs))
        return jax.tree_util.tree_map(lambda t: tuple(t.shape), outputs)

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
        """Keras 3's functional config: layers with their inbound nodes, input/output
        layers (tuples where the model's inputs / outputs are tuples, as Keras's)."""
        config = saving.functional_get_config(self)
        for key, struct in (("input_layers", self._inputs_struct),
                            ("output_layers", self._outputs_struct)):
            config[key] = _tuples_like(config[key], struct)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None, safe_mode=True):
        """Rebuild the graph from ``get_config()`` (registered layer classes only)."""
        return _rebuild(cls, config, custom_objects, safe_mode)


def _rebuild(make, config, custom_objects=None, safe_mode=True):
    """``make(inputs=, outputs=, name=, trainable=)`` on the graph a functional config
    describes (``kgraph.saving.functional_from_config``), its inputs and outputs nested as
    in the config: tuples stay tuples (Keras's ``functional_from_config``)."""
    if not isinstance(config, dict) or not any(
            isinstance(config.get(k), tuple) or _has_tuple(config.get(k))
            for k in ("input_layers", "output_layers")):
        return saving.functional_from_config(make, config, custom_objects, safe_mode)
    templates = {k: config[k] for k in ("input_layers", "output_layers")}
    listed = {**config, **{k: _lists(v) for k, v in templates.items()}}

    def make_nested(inputs, outputs, **kwargs):
        return make(inputs=_tuples_like(inputs, templates["input_layers"]),
                    outputs=_tuples_like(outputs, templates["output_layers"]), **kwargs)

    return saving.functional_from_config(make_nested, listed, custom_objects, safe_mode)


def _is_ref(value) -> bool:
    """A config's tensor reference, ``[layer_name, node_index, tensor_index]``."""
    return isinstance(value, (list, tuple)) and len(value) == 3 and isinstance(value[0], str)


def _has_tuple(value) -> bool:
    if _is_ref(value):
        return False
    if isinstance(value, dict):
        return any(_has_tuple(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return isinstance(value, tuple) or any(_has_tuple(v) for v in value)
    return False


def _lists(value):
    """A config structure with its tuples as lists (what the config parser reads)."""
    if isinstance(value, dict):
        return {k: _lists(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)) and not (_is_ref(value) and isinstance(value, list)):
        return [_lists(v) for v in value]
    return value


def _tuples_like(value, template):
    """``value`` (lists and dicts) with a tuple wherever ``template`` (the same nesting:
    a model's inputs or outputs, or a config of them) has one."""
    if isinstance(template, KerasTensor) or _is_ref(template) and not isinstance(
            value, (list, tuple)):
        return value
    if isinstance(template, dict) and isinstance(value, dict):
        return {k: _tuples_like(value[k], template[k]) if k in template else value[k]
                for k in value}
    if isinstance(template, (list, tuple)) and isinstance(value, (list, tuple)) and len(
            template) == len(value) and not _is_ref(template):
        items = [_tuples_like(v, t) for v, t in zip(value, template)]
        return tuple(items) if isinstance(template, tuple) else items
    return value
