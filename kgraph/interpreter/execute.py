"""Executing a graph model's ``Plan``: the one entry ``Functional.call`` and
``compiler.Program.apply`` share.

``run_model(model, inputs, plan)`` checks and converts the inputs as any layer call does,
runs ``plan`` with ``walk.run_graph`` (every node unrolled, or the runs of repeated blocks
each as one ``lax.scan``) and returns the outputs in the model's structure with the Keras
masks of the flat outputs. ``call_node`` runs one node's layer (with its masks),
``infer_node`` infers one node's output spec; ``run_graph`` takes either.

>>> import kgraph as kg, jax.numpy as jnp
>>> x = kg.Input(shape=(2,))
>>> model = kg.Model(x, kg.layers.Dense(3)(x))
>>> outputs, masks = run_model(model, jnp.ones((4, 2)), model.plan)
>>> outputs.shape, masks
((4, 3), [None])
"""

from __future__ import annotations

import contextlib

import jax

from kgraph.base import call_args
from kgraph.base.layer import Layer
from kgraph.graph.keras_tensor import KerasTensor
from kgraph.interpreter import context, masking, walk

__all__ = ["run_model", "call_node", "infer_node"]


def call_node(node, args, kwargs, input_masks):
    """Run a node's layer with its mask arguments; return its output and output mask."""
    layer = node.layer
    if input_masks is None and type(layer).compute_mask is Layer.compute_mask:
        return layer(*args, **kwargs), None
    mask_kwargs, previous_mask = masking.mask_arguments(node, kwargs, input_masks)
    result = layer(*args, **{**kwargs, **mask_kwargs})
    first = call_args.first_argument(type(layer), args, kwargs)
    return result, layer.compute_mask(first, previous_mask)


def infer_node(node, args, kwargs, input_masks):
    """A node's output spec (``compute_output_spec``), and no mask."""
    if "key" in kwargs and "key" not in call_args.call_parameters(type(node.layer))[0]:
        kwargs = {k: v for k, v in kwargs.items() if k != "key"}  # a PRNG key
    return node.layer.compute_output_spec(*args, **kwargs), None


def run_model(model, inputs, plan, hooks=(), masks=None, run_node=call_node):
    """Run ``plan`` (``model.plan``, or a compiled program's) on ``inputs`` in the current
    call context: ``(outputs, output_masks)``, outputs in the model's output structure.

    As the outermost call of a program, the inputs are checked and converted to arrays as
    ``Layer.__call__`` does, and the model's name heads the layer paths (random keys are
    derived from them). Inside ``Functional.call`` (``Layer.__call__`` did both already)
    the graph is just run.
    """
    ctx = context.current()
    outermost = ctx is not None and not ctx.path
    if outermost:
        inputs = model._arrays_for_call((inputs,), {})[0][0]
        ctx.path.append(model.name)
    try:
        prefix = tuple(ctx.path[1:]) if ctx is not None else ()
        flat_masks = model._flatten_inputs(masks) if masks is not None else None
        with jax.named_scope(model.name) if outermost else contextlib.nullcontext():
            values, out_masks = walk.run_graph(plan, model._flatten_inputs(inputs), run_node,
                                               flat_masks, hooks, prefix)
            outputs = jax.tree_util.tree_unflatten(model._out_treedef, values)
            if (isinstance(outputs, (list, tuple)) and len(outputs) == 1
                    and not isinstance(outputs[0], KerasTensor)):
                # Keras's ``unpack_singleton``: Model(x, [y]) called on arrays gives y (on
                # KerasTensors, Keras's output spec keeps the list)
                outputs = outputs[0]
            if outermost and model.activity_regularizer is not None:
                model._add_activity_penalty(outputs)
    finally:
        if outermost:
            ctx.path.pop()
    return outputs, out_masks

