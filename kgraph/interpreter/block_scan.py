"""Running a run of repeated blocks as one ``lax.scan`` (see ``compiler.scan_blocks``).

The blocks are one computation only when proven so. Each block is traced on its own
weights in isolation: its weights, its input (the scan's carry), the inputs every block
shares (loop invariants, such as an attention mask), the run's PRNG key, its key hashes
and the batch's sample mask are the trace's only inputs, and reading any other weight makes the
run unscannable. The traces must then be equal as computations
(``kgraph.interpreter.fingerprint``: the jaxpr, the values of its array constants, its
custom derivative rules, the structure of what it returns). Blocks that are kgraph's own
layers in the same state (``kgraph.interpreter.layer_state``) need no trace of their own:
the first block's is theirs. Only then is the first block's call scanned over the
blocks' stacked weights.

Each step of the scan runs its node exactly as the unrolled walk does: its arguments come
from ``Node.arguments`` with the run's training flag, it reads its own weights, draws its
own keys (the hashes of the key paths its own trace asked for are scanned over, and the
key counts are those of the unrolled run), assigns its own state and adds its own losses.
Anything the proof cannot establish (a mask, a weight read or written that the block does
not own, a trace that fails) leaves the run to the unrolled walk, which is the reference.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from kgraph.base import target_platform
from kgraph.interpreter import context, fingerprint, layer_state

__all__ = ["run_scanned"]


class _Unscannable(Exception):
    pass


class _SharedInputs(NamedTuple):
    """The input values of a run's blocks other than the carry: ``values``, in input
    order, with the carry at position ``carry`` among all of them."""

    values: list
    carry: int

    def around(self, x) -> list:
        """Every input of a block whose carry is ``x``."""
        return [*self.values[:self.carry], x, *self.values[self.carry:]]


class _KeyHashes:
    """Stands in for ``stable_hash(path)`` in ``CallContext.next_key`` inside a block: the
    n-th distinct path asked for reads ``values[n]``; the paths are recorded in order. A
    trace that asks for more than ``count`` paths is marked ``overflow`` (and redone)."""

    def __init__(self, count, values=None):
        self.count, self.values, self.paths, self.index = count, values, [], {}
        self.overflow = False

    def lookup(self, path: str):
        if path not in self.index:
            self.index[path] = len(self.paths)
            self.paths.append(path)
        position = self.index[path]
        if position >= self.count:
            self.overflow = True
            return jnp.zeros((), jnp.uint32)
        return self.values[position]


def _call_block(node, runner, training, variables, weights, inputs, hashes, key,
                sample_mask, parent):
    """Run ``node`` on ``inputs`` (its input values) in an isolated scope where ``variables`` read ``weights``.

    Returns ``(output, {variable index: assigned value}, summed losses, scope)``. The
    scope reads no other weight (strict, with no values of its own): a block reading a
    weight it does not own is unscannable, as is one assigning such a weight.
    """
    scope = context.CallContext(values={}, training=training, key=key,
                                collect_assignments=True, strict=True,
                                sample_mask=sample_mask, hooks=parent.options.hooks)
    scope.path, scope.options.compute_dtype = list(parent.path), parent.options.compute_dtype
    scope.options.plans = parent.options.plans
    scope.keys.counts = dict(parent.keys.counts)
    scope.keys.hashes = hashes
    scope.weights.assignments.update({id(v): w for v, w in zip(variables, weights)})
    try:
        with scope:
            args, kwargs = node.arguments_with(inputs, training)
            out, mask = runner(node, args, kwargs, None)
    except _Unscannable:
        raise
    except Exception as error:  # the unrolled walk runs it, and raises it if it is real
        raise _Unscannable(f"{type(error).__name__}: {error}") from error
    if mask is not None:
        raise _Unscannable("the block computes a mask")
    position = {id(v): i for i, v in enumerate(variables)}
    written = scope.weights.assigned
    if set(written) - set(position):
        raise _Unscannable("the block assigns weights it does not own")
    assigned = {position[vid]: scope.weights.assignments[vid] for vid in written}
    loss = sum((jnp.sum(value) for value in scope.losses), jnp.zeros((), jnp.float32))
    return out, assigned, loss, scope


class _Trace(NamedTuple):
    identity: tuple  # the computation (``fingerprint.identity``)
    output: object  # the output's shape and dtype
    paths: list  # the key paths asked for, in order
    key_counts: dict  # the key counts after the block


def _spec(value):
    return None if value is None else jax.ShapeDtypeStruct(jnp.shape(value), value.dtype)


def _trace(node, runner, training, x, shared, key, sample_mask, parent, count) -> _Trace:
    """One abstract trace of ``node`` on its own weights (see the module docstring)."""
    variables = node.layer.weights
    hashes = _KeyHashes(count)
    scopes = []

    def traced(weights, x, shared_values, values, key, sample_mask):
        hashes.values = values
        inputs = shared._replace(values=shared_values).around(x)
        out, assigned, loss, scope = _call_block(node, runner, training, variables, weights,
                                                 inputs, hashes, key, sample_mask, parent)
        scopes.append(scope)
        return out, assigned, loss

    specs = [jax.ShapeDtypeStruct(v.shape, v.dtype) for v in variables]
    identity, shapes = fingerprint.identity(
        traced, specs, _spec(x), [_spec(v) for v in shared.values],
        jax.ShapeDtypeStruct((count,), jnp.uint32), _spec(key), _spec(sample_mask))
    if hashes.overflow:
        return _trace(node, runner, training, x, shared, key, sample_mask, parent,
                      len(hashes.paths))
    counts = scopes[-1].keys.counts
    return _Trace(identity, shapes[0], list(hashes.paths),
                  {path: counts[path] for path in hashes.paths})


def _stack(arrays):
    """``jnp.stack``; concrete arrays (an eager run) go through NumPy, which does not
    compile a many-operand concatenation."""
    if any(isinstance(a, jax.core.Tracer) for a in arrays):
        return jnp.stack(arrays)
    return jnp.asarray(np.stack([np.asarray(a) for a in arrays]))


def _prove(nodes, runner, training, x, shared, key, sample_mask, parent):
    """The blocks' traces if they are one computation with an output like their input
    (the scan's carry), else None; and ``x``, cast to the blocks' compute dtype if they
    compute in another one (a precision policy: the first block would cast it anyway)."""
    first = _trace(nodes[0], runner, training, x, shared, key, sample_mask, parent, 0)
    out = first.output
    if getattr(out, "dtype", None) != x.dtype:
        layer = nodes[0].layer
        if not (layer.autocast and jnp.issubdtype(x.dtype, jnp.floating)
                and getattr(out, "shape", None) == x.shape):
            return None, x
        x = x.astype(out.dtype)
        first = _trace(nodes[0], runner, training, x, shared, key, sample_mask, parent,
                       len(first.paths))
    if (getattr(first.output, "shape", None), getattr(first.output, "dtype", None)) != (
            x.shape, x.dtype):
        return None, x
    traces = _same_as_first(nodes, first, parent)
    if traces is None:  # not settled by the layers' state: each block's own trace
        traces = [first] + [_trace(node, runner, training, x, shared, key, sample_mask,
                                   parent, len(first.paths)) for node in nodes[1:]]
    if any(t.identity != first.identity or len(t.paths) != len(first.paths) for t in traces):
        return None, x
    return traces, x


def _same_as_first(nodes, first, parent):
    """The traces of ``nodes`` without tracing them, when each block is kgraph's own layer
    in the first one's state (``layer_state.same_state``): the first block's trace, its
    key paths under each block's name. None when that can't be settled so."""
    name = nodes[0].layer.name
    if not all(path == name or path.endswith("/" + name) for path in first.paths):
        return None
    traces = [first]
    for node in nodes[1:]:
        if not layer_state.same_state(nodes[0].layer, node.layer):
            return None
        paths = [path[:len(path) - len(name)] + node.layer.name for path in first.paths]
        if any(parent.keys.counts.get(mine, 0) != parent.keys.counts.get(theirs, 0)
               for mine, theirs in zip(paths, first.paths)):
            return None
        traces.append(_Trace(first.identity, first.output, paths, {
            mine: first.key_counts[theirs] for mine, theirs in zip(paths, first.paths)}))
    return traces


def run_scanned(nodes, inputs, carry, runner, training):
    """The output of the last of ``nodes`` (a chain of blocks) by one ``lax.scan``; None
    if the blocks are not proven to be one computation (the caller then runs them
    unrolled). ``inputs``: the first block's input values; ``carry``: the position among
    them of the one each next block takes from the previous block (the others are the
    same for every block). ``runner`` runs a node (the walk's ``run_node``, wrapped by
    hooks); ``training``: the run's training flag."""
    parent = context.current()
    template = nodes[0]
    key, sample_mask = parent.keys.given(), parent.options.sample_mask
    x = inputs[carry]
    shared = _SharedInputs([v for i, v in enumerate(inputs) if i != carry], carry)
    try:
        traces, x = _prove(nodes, runner, training, x, shared, key, sample_mask, parent)
    except _Unscannable:
        return None
    if traces is None:
        return None
    # The stacked layout's own arrays, unless this run already assigned some block's weight
    # (the run's blocks called before, e.g. a nested model called twice): then each
    # block's current value, as the unrolled walk reads it.
    stacked = parent.weights.stacked.get(id(template))
    if stacked is not None and any(parent.weights.assignment(v) is not None
                                   for node in nodes for v in node.layer.weights):
        stacked = None
    if stacked is None:
        stacked = [_stack(column) for column in zip(*[[v.value for v in node.layer.weights]
                                                      for node in nodes])]
    count = len(traces[0].paths)
    hashes = jnp.asarray([[context.stable_hash(p) for p in t.paths] for t in traces],
                         jnp.uint32).reshape(len(nodes), count)
    variables = template.layer.weights

    def body(h, xs):
        block_weights, block_hashes = xs
        out, assigned, loss, _ = _call_block(template, runner, training, variables,
                                             block_weights, shared.around(h),
                                             _KeyHashes(count, block_hashes), key,
                                             sample_mask, parent)
        return out, ([assigned.get(i) for i in range(len(variables))], loss)

    # on CPU, blocks that convolve run unrolled (``fingerprint.convolves``): one program
    # for them all still, in the stacked layout
    unroll = (True if target_platform.target() == "cpu"
              and fingerprint.convolves(traces[0].identity) else 1)
    try:
        out, (assigned, losses) = jax.lax.scan(body, x, (stacked, hashes), unroll=unroll)
    except _Unscannable as error:  # proven, yet failing: the block's own error
        raise error.__cause__ or error
    parent.weights.stacked_assigned[id(template)] = {
        i: values for i, values in enumerate(assigned) if values is not None}
    for i, values in enumerate(assigned):
        if values is None:
            continue
        for block, node in enumerate(nodes):
            variable = node.layer.weights[i]
            variable.assign(values[block])
            # the stacked value above stands for this assignment until another replaces it
            parent.weights.scan_slices[id(variable)] = parent.weights.assignment(variable)
    for trace in traces:  # the key counts the unrolled blocks would leave
        parent.keys.counts.update(trace.key_counts)
    parent.losses.append(jnp.sum(losses))
    return out
