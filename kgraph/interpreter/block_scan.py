"""Running a run of identical blocks as one ``lax.scan`` (see ``compiler.scan_blocks``).

``run_scanned(nodes, x, run_node)`` checks that the blocks are the same computation (each
traced on its own weights: equal jaxprs), then scans the first block's call over the
blocks' stacked weights. Inside the scan each block reads its own weights, draws its own
dropout keys (the hashes of its key paths are scanned over, see
``CallContext.key_hashes``), assigns its own state and adds its own losses, as unrolled.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from kgraph.interpreter import context


class _KeyHashes:
    """Stands in for ``stable_hash(path)`` in ``CallContext.next_key`` inside a block: the
    n-th distinct path asked for gets ``values[n]`` (recording the paths in order)."""

    def __init__(self, values=None):
        self.values, self.paths, self.index = values, [], {}

    def lookup(self, path: str):
        if path not in self.index:
            self.index[path] = len(self.paths)
            self.paths.append(path)
        if self.values is None:
            return context.stable_hash(path)
        return self.values[self.index[path]]


def _call_with(node, run_node, variables, weights, x, hashes):
    """Run ``node`` on ``x`` with ``variables`` reading ``weights``, in a fresh scope;
    returns (output, {variable index: assigned value}, summed losses, key paths)."""
    parent = context.current()
    scope = parent.child(share_key_counts=False)
    scope.assignments.update({id(v): w for v, w in zip(variables, weights)})
    scope.key_hashes = _KeyHashes(hashes)
    with scope:
        args, kwargs = node.arguments([x])
        out, mask = run_node(node, args, kwargs, None)
    if mask is not None:
        raise _Unscannable("the block computes a mask")
    position = {id(v): i for i, v in enumerate(variables)}
    unknown = set(scope.assigned) - set(position)
    if unknown:
        raise _Unscannable("the block assigns weights it does not own")
    assigned = {position[vid]: scope.assignments[vid] for vid in scope.assigned}
    loss = sum((jnp.sum(value) for value in scope.losses), jnp.zeros((), jnp.float32))
    return out, assigned, loss, scope.key_hashes.paths


class _Unscannable(Exception):
    pass


def _trace(node, run_node, weights, x, count):
    """The jaxpr (as text) of ``node``'s call on ``weights`` and ``x`` with ``count`` key
    hashes, and the key paths it asks for: one trace."""
    variables, paths = node.layer.weights, []

    def traced(weights, x, hashes):
        out, assigned, loss, asked = _call_with(node, run_node, variables, weights, x, hashes)
        paths.extend(asked)
        return out, assigned, loss

    spec = jax.ShapeDtypeStruct((count,), jnp.uint32)
    return str(jax.make_jaxpr(traced)(weights, x, spec)), paths


def _stack(arrays):
    """``jnp.stack``; concrete arrays (an eager run) go through NumPy, which does not
    compile a many-operand concatenation."""
    if any(isinstance(a, jax.core.Tracer) for a in arrays):
        return jnp.stack(arrays)
    return jnp.asarray(np.stack([np.asarray(a) for a in arrays]))


def _renamed(path: str, old: str, new: str) -> str:
    return new + path[len(old):] if path == old or path.startswith(old + "/") else path


def run_scanned(nodes, x, run_node, trusted: bool = False):
    """The output of the last of ``nodes`` (a chain of blocks) for input ``x``, by one
    ``lax.scan``; None if the blocks turn out not to be the same computation.

    ``trusted``: the layers' configs fully determine what they compute (kgraph's own
    layers), so the per-block traces are skipped: each block's key paths are the first
    block's, under its own name.
    """
    template = nodes[0]
    parent = context.current()
    stacked = parent.stacked_weights.get(id(template))  # the stacked layout's own arrays
    if stacked is not None:  # per block, only shapes are needed (for the checks)
        weights = [[jax.ShapeDtypeStruct(a.shape[1:], a.dtype) for a in stacked]] * len(nodes)
    else:
        weights = [[v.value for v in node.layer.weights] for node in nodes]
    try:
        first, out = _call_with_shapes(template, run_node, weights[0], x)
        if getattr(out, "dtype", None) != x.dtype:
            # A block computing in another dtype (a precision policy): its first step
            # would cast its input on entry anyway, so the carry starts cast.
            if not (template.layer.autocast and jnp.issubdtype(x.dtype, jnp.floating)
                    and getattr(out, "shape", None) == x.shape):
                return None
            x = x.astype(out.dtype)
        if trusted:
            paths = [[_renamed(p, template.layer.name, node.layer.name) for p in first]
                     for node in nodes]
        else:  # each block's trace on its own weights, and its own key paths
            traces = [_trace(node, run_node, w, x, len(first))
                      for node, w in zip(nodes, weights)]
            paths = [asked for _, asked in traces]
            if (any(len(p) != len(first) for p in paths)
                    or len({text for text, _ in traces}) != 1):
                return None
    except _Unscannable:
        return None
    count = len(first)
    if stacked is None:
        stacked = [_stack(column) for column in zip(*weights)]
    hashes = jnp.asarray([[context.stable_hash(p) for p in block] for block in paths],
                         jnp.uint32).reshape(len(nodes), count)
    variables = template.layer.weights

    def body(h, xs):
        block_weights, block_hashes = xs
        out, assigned, loss, _ = _call_with(template, run_node, variables, block_weights, h,
                                            block_hashes)
        return out, ([assigned.get(i) for i in range(len(variables))], loss)

    out, (assigned, losses) = jax.lax.scan(body, x, (stacked, hashes))
    parent.stacked_assigned[id(template)] = {i: values for i, values in enumerate(assigned)
                                             if values is not None}
    for i, values in enumerate(assigned):
        if values is None:
            continue
        for block, node in enumerate(nodes):
            node.layer.weights[i].assign(values[block])
    parent.losses.append(jnp.sum(losses))
    return out


def _call_with_shapes(node, run_node, weights, x):
    """The key paths ``node`` asks for and its output's shape and dtype, found by an
    abstract run."""
    found = []

    def probe(weights, x):
        out, _, _, paths = _call_with(node, run_node, node.layer.weights, weights, x, None)
        found.extend(paths)
        return out

    return found, jax.eval_shape(probe, weights, x)
