"""``export(program, directory)``: a trained program as files that run with JAX alone.

The directory holds three files:

* ``program.jaxexport``: the serialized ``jax.export`` artefact of
  ``fn(params, state, inputs) -> outputs`` in inference mode, with a symbolic batch
  dimension, lowered for each requested platform (cpu, cuda and tpu can all be lowered
  from a CPU machine). Weights are arguments, not constants: a large model exports, and
  other weights of the same shapes can be swapped in.
* ``weights.safetensors``: the weights, keyed ``params/<layer>/<weight>`` and
  ``state/...`` (``compiler.save_safetensors``).
* ``signature.json``: input and output names, shapes (the batch dimension by its
  symbol) and dtypes, and the kgraph, JAX and calling-convention versions.

Running it needs ``jax``, ``numpy`` and ``safetensors`` only (see ``docs/export.md``).
Before lowering, the program is traced with the symbolic batch; a layer whose code needs
a concrete batch size, or that calls back into Python, is named in the error.

>>> import os, tempfile, jax, kgraph as kg, compiler
>>> x = kg.Input(shape=(3,), name="features")
>>> model = kg.Model(x, kg.layers.Dense(2, name="out")(x))
>>> folder = os.path.join(tempfile.mkdtemp(), "exported")
>>> signature = compiler.export(model, folder)
>>> sorted(os.listdir(folder))
['program.jaxexport', 'signature.json', 'weights.safetensors']
>>> signature["inputs"][0]["shape"], signature["outputs"][0]["shape"]
(['b', 3], ['b', 2])
"""

from __future__ import annotations

import json
import os
import re

import jax
import jax.numpy as jnp

import kgraph
from compiler import weights as weights_lib
from compiler.program import compile as compile_program
from kgraph.saving.safetensors_io import save_safetensors
from kgraph.base.layer import Layer
from kgraph.interpreter.walk import NodeHook
from kgraph.saving.archive import atomic_write

__all__ = ["CALLBACKS", "PLATFORMS", "export"]


CALLBACKS = ("pure_callback", "io_callback", "debug_callback", "callback")
PLATFORMS = ("cpu", "cuda", "rocm", "tpu")


class _CurrentNode(NodeHook):
    """Tracks the node being traced, to name it when tracing fails."""

    def __init__(self):
        self.stack: list = []

    def before_node(self, node, path, args, kwargs):
        self.stack.append(path)

    def after_node(self, node, path, args, kwargs, outputs):
        self.stack.pop()


_SYMBOL = r"[A-Za-z_][A-Za-z0-9_]*"


def _axes(name, tensor, given, batch_dim, fresh):
    """One input's axes: an int (a fixed size) or a symbol's name. ``given``: the user's
    shape for it (ints, symbol names, None where unsaid), or None; ``fresh()`` names an
    unknown axis."""
    if given is not None and len(given) != len(tensor.shape):
        raise ValueError(f"shapes[{name!r}] has {len(given)} axes; input {name!r} has "
                         f"shape {tuple(tensor.shape)}.")
    axes = []
    for axis, size in enumerate(tensor.shape):
        want = given[axis] if given is not None else None
        if want is None:
            want = batch_dim if axis == 0 else size if size is not None else fresh()
        elif isinstance(want, str):
            if not re.fullmatch(_SYMBOL, want) or (axis and size is not None):
                raise ValueError(f"shapes[{name!r}][{axis}]: {want!r} must be a name "
                                 "(letters, digits, '_') given to an axis of unknown size "
                                 f"(input shape {tuple(tensor.shape)}).")
        elif not isinstance(want, int) or want < 1 or size not in (None, want):
            raise ValueError(f"shapes[{name!r}][{axis}]: {want!r} is not a size for this "
                             f"axis of input {name!r} (shape {tuple(tensor.shape)}).")
        axes.append(want)
    return axes


def _symbolic_inputs(model, batch_dim: str, shapes=None):
    """ShapeDtypeStructs of the model's inputs: the batch dimension ``batch_dim``, axes
    named in ``shapes`` (by input name) those symbols (one symbol in two inputs: one
    size), other unknown dimensions their own symbols (``<batch_dim>_1``, ...), in one
    scope."""
    inputs = list(getattr(model, "inputs", None) or ())
    if not inputs:
        raise ValueError(f"compiler.export needs a functional model with inputs; "
                         f"{model.name!r} has none.")
    if not re.fullmatch(_SYMBOL, batch_dim):
        raise ValueError(f"batch_dim must be a name (letters, digits, '_'), received "
                         f"{batch_dim!r}.")
    names = [t._keras_history.layer.name for t in inputs]
    shapes = dict(shapes or {})
    unknown = sorted(set(shapes) - set(names))
    if unknown:
        raise ValueError(f"shapes names {unknown[0]!r}, which is not an input of model "
                         f"{model.name!r}; its inputs are {names}.")
    taken = {batch_dim} | {a for given in shapes.values() for a in given if isinstance(a, str)}
    counter = iter(range(1, 1 << 30))

    def fresh():
        name = next(f"{batch_dim}_{n}" for n in counter if f"{batch_dim}_{n}" not in taken)
        taken.add(name)
        return name

    axes = [_axes(name, tensor, shapes.get(name), batch_dim, fresh)
            for name, tensor in zip(names, inputs)]
    symbols = list(dict.fromkeys([batch_dim] + [a for row in axes for a in row
                                                if isinstance(a, str)]))
    dims = dict(zip(symbols, jax.export.symbolic_shape(", ".join(symbols))))
    specs = [jax.ShapeDtypeStruct(tuple(dims[a] if isinstance(a, str) else a for a in row),
                                  tensor.dtype) for row, tensor in zip(axes, inputs)]
    treedef = getattr(model, "_in_treedef", None)
    if treedef is not None:  # the structure the model was built with (tensor, list, dict)
        return treedef.unflatten(specs), inputs
    return (specs[0] if len(specs) == 1 else specs), inputs


def _abstract(tree):
    return jax.tree_util.tree_map(
        lambda a: jax.ShapeDtypeStruct(jnp.shape(a), jnp.result_type(a)), tree)


def _check_exportable(program, params, state, specs, batch_dim):
    """Trace ``program.apply`` with the symbolic batch: name the layer that fails, or
    that calls back into Python."""
    current = _CurrentNode()

    def traced(params, state, inputs):
        return program.apply(params, state, inputs, hooks=(current,))[0]

    try:
        jaxpr = jax.make_jaxpr(traced)(params, state, specs)
    except Exception as error:  # noqa: BLE001 - re-raised naming the layer
        where = current.stack[-1] if current.stack else program.model.name
        raise ValueError(
            f"Layer {where!r} of model {program.model.name!r} cannot be exported with a "
            f"symbolic batch dimension {batch_dim!r}: its code needs a concrete batch size "
            f"({type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}). "
            "Make it shape-polymorphic (use jnp.shape(x)[0] arithmetic, not Python ints) "
            "or leave it out of the exported model.") from error
    for eqn in _equations(jaxpr.jaxpr):
        if eqn.primitive.name in CALLBACKS:
            parts = str(eqn.source_info.name_stack).split("/")
            if parts and parts[0] == program.model.name:  # paths inside the model
                parts = parts[1:]
            stack = "/".join(parts) or program.model.name
            raise ValueError(f"Layer {stack!r} of model {program.model.name!r} calls back "
                             f"into Python ({eqn.primitive.name}), which an exported program "
                             "cannot do: it runs without Python code of its own.")


def _equations(jaxpr):
    for eqn in jaxpr.eqns:
        yield eqn
        for value in eqn.params.values():
            for sub in value if isinstance(value, (list, tuple)) else (value,):
                inner = getattr(sub, "jaxpr", sub)
                if hasattr(inner, "eqns"):
                    yield from _equations(inner)


def _described(avals, names):
    described = []
    for name, aval in zip(names, avals):
        shape = [size if isinstance(size, int) else str(size) for size in aval.shape]
        described.append({"name": name, "shape": shape, "dtype": jnp.dtype(aval.dtype).name})
    return described


def _output_names(model, count):
    outputs = list(getattr(model, "outputs", None) or ())
    names = [t._keras_history.layer.name for t in outputs]
    return names if len(names) == count else [f"output_{i}" for i in range(count)]


def export(program, directory, *, params=None, state=None, batch_dim: str = "b",
           platforms=("cpu",), shapes=None) -> dict:
    """Write ``program`` (a ``compiler.Program``, or a model: compiled here) with its
    weights to ``directory``; returns the signature (also ``signature.json``).

    Args:
      program: a ``Program`` or a kgraph model.
      directory: created if missing; the three files in it are replaced atomically.
      params, state: the weights (named or stacked layout); default: the model's own.
      batch_dim: the symbol of the batch dimension (every input's first axis).
      platforms: the platforms to lower for: any of "cpu", "cuda", "rocm", "tpu".
      shapes: ``{input name: shape}`` for inputs whose unknown axes are related: a shape
        holds sizes (ints), symbols (names: one name in two inputs is one size) and None
        (left as by default), e.g. ``{"token_ids": ("b", "length"), "padding_mask":
        ("b", "length")}``. Unnamed unknown axes get symbols of their own.
    """
    if isinstance(program, Layer):
        program = compile_program(program)
    model = program.model
    platforms = tuple(platforms)
    unknown = [p for p in platforms if p not in PLATFORMS]
    if not platforms or unknown:
        raise ValueError(f"platforms must be some of {list(PLATFORMS)}, received "
                         f"{list(platforms)}.")
    if params is None or state is None:
        own_params, own_state = weights_lib.variables(model)
        params = own_params if params is None else params
        state = own_state if state is None else state
    params, state = program.unstack(params, state)  # files hold one entry per layer
    weights_lib.check_weights(program._entries, params, state, model.name)
    specs, inputs = _symbolic_inputs(model, batch_dim, shapes)
    abstract_params, abstract_state = _abstract(params), _abstract(state)
    _check_exportable(program, abstract_params, abstract_state, specs, batch_dim)

    def inference(params, state, inputs):
        return program.apply(params, state, inputs)[0]

    exported = jax.export.export(jax.jit(inference), platforms=platforms)(
        abstract_params, abstract_state, specs)
    input_names = [t._keras_history.layer.name for t in inputs]
    flat_in = jax.tree_util.tree_leaves(specs)
    described_inputs = _described(flat_in, input_names)
    if isinstance(specs, dict):  # the keys the call takes, in flattening (sorted) order
        for entry, key in zip(described_inputs, sorted(specs)):
            entry["key"] = key
    signature = {
        "format": "kgraph-export",
        "inputs": described_inputs,
        "input_structure": ("dict" if isinstance(specs, dict)
                            else "single" if isinstance(specs, jax.ShapeDtypeStruct)
                            else "list"),
        "outputs": _described(exported.out_avals, _output_names(model, len(
            exported.out_avals))),
        "batch_dim": batch_dim,
        "platforms": list(exported.platforms),
        "call": "exported.call(params, state, inputs)",
        "versions": {"kgraph": _kgraph_version(), "jax": jax.__version__,
                     "calling_convention": exported.calling_convention_version},
    }
    os.makedirs(directory, exist_ok=True)
    with atomic_write(os.path.join(directory, "program.jaxexport")) as file:
        file.write(exported.serialize())
    save_safetensors(os.path.join(directory, "weights.safetensors"), params, state)
    with atomic_write(os.path.join(directory, "signature.json")) as file:
        file.write(json.dumps(signature, indent=2).encode("utf-8"))
    return signature


def _kgraph_version() -> str:
    return kgraph.__version__
