"""``clone_model``: the same architecture with new layers (and so new weights), as Keras.

>>> import kgraph as kg
>>> x = kg.Input(shape=(3,))
>>> model = kg.Model(x, kg.layers.Dense(2)(kg.layers.Dense(4)(x)))
>>> clone = clone_model(model)
>>> clone.count_params() == model.count_params(), clone.layers[1] is model.layers[1]
(True, False)
"""

from __future__ import annotations

import jax

from kgraph.graph.input_layer import Input, InputLayer
from kgraph.graph.keras_tensor import KerasTensor
from kgraph.interpreter.plan import Plan
from kgraph.interpreter.walk import run_graph, topological_order
from kgraph.models.functional import Functional
from kgraph.models.sequential import Sequential

__all__ = ["clone_model"]


def _fresh(layer):
    """Keras's default ``clone_function``: the layer rebuilt from its config."""
    return type(layer).from_config(layer.get_config())


def _input_like(tensor):
    layer = tensor._keras_history.layer
    return Input(batch_shape=layer.batch_shape, dtype=layer.dtype.name, name=layer.name)


def _same_structure(a, b) -> bool:
    """Whether ``a`` and ``b`` nest alike (a single tensor matches a list of one)."""
    if isinstance(a, KerasTensor) and isinstance(b, (list, tuple)) and len(b) == 1:
        b = b[0]
    if isinstance(b, KerasTensor) and isinstance(a, (list, tuple)) and len(a) == 1:
        a = a[0]
    return jax.tree_util.tree_structure(a) == jax.tree_util.tree_structure(b)


def clone_model(model, input_tensors=None, clone_function=None, call_function=None,
                recursive=False, **kwargs):
    """A model with ``model``'s architecture and new layers (fresh weights).

    Args (as Keras 3):
      model: a Functional, Sequential or subclassed model (the last is rebuilt with
        ``type(model).from_config(model.get_config())``).
      input_tensors: ``kg.Input`` tensors to build the clone on (default: new ones like the
        model's).
      clone_function: ``layer -> new layer`` (default: rebuilt from the layer's config).
        Return the layer itself to share it between the model and the clone.
      call_function: ``(layer, *args, **kwargs) -> outputs``, how each cloned layer is called
        (default: ``layer(*args, **kwargs)``); functional models only.
      recursive: clone the layers of nested Functional/Sequential models one by one too.
    """
    if kwargs:
        raise TypeError(f"clone_model got unexpected arguments {sorted(kwargs)}.")
    if not isinstance(model, Functional):  # Sequential is a Functional
        given = [name for name, value in (("clone_function", clone_function),
                                          ("input_tensors", input_tensors),
                                          ("call_function", call_function)) if value is not None]
        if given:  # as Keras: a subclassed model is cloned from its config alone
            raise ValueError(f"clone_model: {', '.join(given)} apply to functional and "
                             f"Sequential models; {model.name!r} is a subclassed model, "
                             "cloned from its config.")
        return type(model).from_config(model.get_config())
    return _compiled_like(model, _clone(model, input_tensors, clone_function or _fresh,
                                        call_function, recursive))


def _compiled_like(model, clone):
    """``clone`` compiled as ``model`` is, if it is (Keras's)."""
    if model.compiled:
        clone.compile_from_config(model.get_compile_config())
    return clone


def _clone(model, input_tensors, clone_function, call_function, recursive):
    """The clone of a Functional or Sequential ``model`` (see ``clone_model``)."""
    clones: dict = {}

    def clone(layer):
        if id(layer) not in clones:
            if recursive and isinstance(layer, Functional):
                clones[id(layer)] = clone_model(layer, clone_function=clone_function,
                                                call_function=call_function, recursive=True)
            else:
                clones[id(layer)] = clone_function(layer)
        return clones[id(layer)]

    if isinstance(model, Sequential):
        if call_function is not None:
            raise ValueError("clone_model: call_function applies to functional models, not "
                             f"Sequential model {model.name!r}.")
        layers = [clone(layer) for layer in model.layers]
        first = model._stack[0] if model._stack else None
        if input_tensors is not None:
            inputs = list(input_tensors) if isinstance(input_tensors, (list, tuple)) else [
                input_tensors]
            if len(inputs) != 1:
                raise ValueError(f"clone_model: Sequential model {model.name!r} has one "
                                 f"input; received {len(inputs)} input_tensors.")
            return Sequential([inputs[0], *layers], name=model.name)
        if isinstance(first, InputLayer):
            return Sequential([_input_like(first._inbound_nodes[0].outputs[0]), *layers],
                              name=model.name)
        return Sequential(layers, name=model.name)
    originals = list(model.inputs)
    if input_tensors is None:
        inputs = [_input_like(t) for t in originals]
    else:
        inputs = jax.tree_util.tree_leaves(input_tensors)
        if not all(isinstance(t, KerasTensor) for t in inputs):
            raise ValueError(f"All entries in `input_tensors` must be KerasTensors (kg.Input); "
                             f"received input_tensors={input_tensors!r} for model "
                             f"{model.name!r}.")
        if not _same_structure(input_tensors, model._inputs_struct):
            raise ValueError(f"`input_tensors` must have the same structure as model.input "
                             f"(model {model.name!r}).\nReference structure: "
                             f"{model._inputs_struct}\nReceived structure: {input_tensors}")
    call = call_function or (lambda layer, *args, **kw: layer(*args, **kw))

    def run_node(node, args, kw, _masks):
        return call(clone(node.layer), *args, **kw), None

    plan = Plan(topological_order(originals, list(model.outputs)), originals, model.outputs)
    outputs, _ = run_graph(plan, inputs, run_node)
    outputs = jax.tree_util.tree_unflatten(model._out_treedef, outputs)
    inputs = jax.tree_util.tree_unflatten(model._in_treedef, inputs)
    return Functional(inputs, outputs, name=model.name)
