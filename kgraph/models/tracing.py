"""Tracing a subclassed model's ``call`` on KerasTensors into the graph form.

A subclassed ``Model`` computes with its ``call`` method. The first time it is built
(its first call, or ``model.build(shape)``), ``call`` also runs once on symbolic inputs:
the layers it calls record nodes as in a functional graph, which gives the model
``_nodes`` in topological order (``program.nodes``, ``summary()``). ``call`` itself
still runs the model (eagerly and inside ``apply``), so Python branches on ``training``
keep working. A ``call`` that cannot run on KerasTensors (``jnp.sin(x)`` on the input rather than
``kgraph.ops.sin`` or a layer, a shape computed from the batch size) builds as Keras builds
it, by running once on arrays (zeros of the input shapes); the compiled program then runs
it as its own code, one node, and the reason is kept in ``model._trace_error``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from kgraph.base import naming
from kgraph.graph.input_layer import Input
from kgraph.interpreter import context, walk

__all__ = ["NOT_TRACEABLE", "trace_call"]


NOT_TRACEABLE = (
    "Model {name!r} ({cls}) could not be traced into a graph: its call() failed on symbolic "
    "inputs with {error_type}: {error}\n"
    "call() runs once on KerasTensors to record the graph. Compute with layers and "
    "kgraph.ops (not jax.numpy functions applied to the inputs directly), and don't branch in "
    "Python on tensor values (use kgraph.ops.where)."
)


def _symbolic_inputs(structure):
    """kg.Input tensors mirroring ``structure`` (arrays or (shape, dtype) pairs)."""
    def make(x):
        shape, dtype = (x.shape, x.dtype) if hasattr(x, "shape") else x
        return Input(batch_size=None, shape=tuple(shape)[1:], dtype=dtype)

    return jax.tree_util.tree_map(make, structure,
                                  is_leaf=lambda x: hasattr(x, "shape") or _is_spec(x))


def _is_spec(x):
    """A (shape, dtype) pair (not a pair of inputs: a shape is a tuple of ints or None)."""
    return (isinstance(x, tuple) and len(x) == 2 and isinstance(x[0], tuple)
            and all(d is None or isinstance(d, int) for d in x[0]))


def trace_call(model, inputs) -> None:
    """Record ``model.call``'s graph (sets ``_nodes``), or the reason it can't be traced."""
    symbolic = _symbolic_inputs(inputs)
    model._trace_error = None
    try:
        # what the call assigns while traced (a counter's next value) is dropped, as
        # Keras's symbolic build drops it
        with context.CallContext(collect_assignments=True):
            outputs = model.call(symbolic)
        model._nodes = walk.topological_order(jax.tree_util.tree_leaves(symbolic),
                                               jax.tree_util.tree_leaves(outputs))
        naming.localize_names(model._tracked_layers(), model)
        model.inputs = jax.tree_util.tree_leaves(symbolic)
        model.outputs = jax.tree_util.tree_leaves(outputs)
        model._output_structure = jax.tree_util.tree_structure(outputs)  # (the losses')
    except Exception as error:  # noqa: BLE001 - the model runs as its own code instead
        model._nodes = []
        model._trace_error = NOT_TRACEABLE.format(
            name=model.name, cls=type(model).__name__, error_type=type(error).__name__,
            error=error)
        _build_by_running(model, inputs)


def _build_by_running(model, inputs) -> None:
    """Build the layers of a ``call`` that cannot be traced by running it once on zeros of
    the input shapes, as Keras builds a subclassed model by its first call; the model then
    runs as its own Python code (one node to the compiler, as written)."""
    def zeros(x):
        shape, dtype = (x.shape, x.dtype) if hasattr(x, "shape") else x
        return jnp.zeros(tuple(1 if d is None else d for d in shape), dtype)

    arrays = jax.tree_util.tree_map(zeros, inputs,
                                    is_leaf=lambda x: hasattr(x, "shape") or _is_spec(x))
    try:
        # what it adds (add_loss) and assigns (a counter, moving statistics) is dropped:
        # building changes no state
        with context.CallContext(training=False, collect_assignments=True):
            model.call(arrays)
    except Exception as error:  # noqa: BLE001 - reported by compiler.compile
        model._trace_error += (f"\nRunning call() on zeros of the input shapes failed too, "
                               f"with {type(error).__name__}: {error}")
        model._build_error = model._trace_error
