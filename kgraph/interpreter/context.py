"""The call context: what a layer sees while it runs.

A layer's ``call`` reads its weights as ``self.kernel`` and asks for randomness with
``self.random_key()``. Where those come from depends on who is running it:

* eagerly (``layer(array)``), weights are the variables' stored values, assignments to
  non-trainable weights (BatchNorm statistics) update them in place, and random keys come
  from the ``key=`` given to the outermost call or, failing that, from ``kgraph.random``;
* inside ``compiler``'s pure ``apply``, weights are the arrays of the ``params``/``state``
  pytrees (tracers under ``jax.jit``), assignments are collected into the new ``state``
  instead of mutating anything, and keys derive from ``apply``'s ``key`` by layer path.

Both run the same ``Layer.__call__``; only the context differs. Contexts live on a
thread-local stack so nested calls (a model inside a model) share the outermost one.

A context may carry a ``sample_mask``: a float (batch,) array, 1 for real rows and 0 for
rows that only pad a partial batch to full size (``program.apply(..., sample_mask=...)``).
Computations that couple the rows of a batch read it through ``sample_mask_for(x)``:
``BatchNormalization`` takes its training moments over the real rows only, and activity
penalties and per-sample ``add_loss`` values count the real rows only, so a padded batch
gives the real rows exactly what the unpadded batch gives them.
"""

from __future__ import annotations

import contextlib
import threading
import zlib
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from kgraph.base import seed_stream

_local = threading.local()


def stable_hash(text: str) -> int:
    """A hash of ``text`` that is the same in every process (unlike ``hash``)."""
    return zlib.crc32(text.encode("utf-8")) & 0x7FFFFFFF


class CallContext:
    """Values, training flag, randomness and collected assignments for one run.

    Args:
      values: ``{id(variable): array}`` to read weights from, or None for stored values.
      training: the default training flag for layers that take one.
      key: a PRNG key that random layers derive theirs from, or None.
      collect_assignments: if True, ``variable.assign`` records the new value here
        instead of mutating the variable (pure execution).

    Attributes set by the runner after construction: ``sample_mask`` (see the module
    docstring; None means every row is real) and ``hooks``.
    """

    def __init__(self, values=None, training=None, key=None, collect_assignments=False,
                 strict=False):
        self.values = values
        self.training = training
        self.key = key
        self.collect_assignments = collect_assignments
        self.strict = strict  # reading a variable missing from ``values`` is an error
        self.sample_mask = None  # (batch,) floats: 1 for real rows, 0 for padding rows
        self.assignments: dict[int, Any] = {}
        self.assigned: dict[int, Any] = {}  # id -> Variable, for the assignments above
        self.losses: list = []  # from layer.add_loss during this run
        self.hooks: tuple = ()  # kgraph.interpreter.walk.NodeHook objects run around every node
        self.output_masks: dict = {}  # id(model) -> output masks of its last run
        self.path: list[str] = []
        self.parent: CallContext | None = None
        self.key_hashes = None  # inside a scanned block: stands in for stable_hash(path)
        # id(first node of a run) -> its blocks' weights, stacked (``compiler.stacking``),
        # and -> {weight index: new stacked value} of the state the scan assigned
        self.stacked_weights: dict = {}
        self.stacked_assigned: dict = {}
        self.compute_dtype = None  # a model-level precision policy's, for the layer running
        self._key_counts: dict[str, int] = {}

    def child(self, share_key_counts=True) -> CallContext:
        """A fresh scope for one step of a loop (``scan``): it reads what this context
        reads (and what was assigned in it so far), but collects its own assignments
        and losses, which the loop carries out of the step."""
        scope = CallContext(values=self.values, training=self.training, key=self.key,
                            collect_assignments=True, strict=self.strict)
        scope.sample_mask, scope.hooks, scope.path = self.sample_mask, self.hooks, self.path
        scope.parent = self
        scope._key_counts = self._key_counts if share_key_counts else dict(self._key_counts)
        scope.key_hashes = self.key_hashes
        scope.stacked_weights, scope.stacked_assigned = (self.stacked_weights,
                                                         self.stacked_assigned)
        scope.compute_dtype = self.compute_dtype
        return scope

    def read(self, variable):
        """The value of ``variable`` in this context, or None to use its stored value.

        A strict context (``compiler``'s pure ``apply``) raises for a variable that is
        neither in its ``values`` nor assigned during the run: a layer outside the compiled
        model, or a weight created after compiling, must never fall back silently to a
        stored value (gradients would skip it).
        """
        vid = id(variable)
        scope = self
        while scope is not None:
            if vid in scope.assignments:
                return scope.assignments[vid]
            scope = scope.parent
        if self.values is not None:
            value = self.values.get(vid)
            if value is None and self.strict:
                raise ValueError(
                    f'Weight "{variable.path}" was read while running a compiled program, but '
                    "it is not among the program's params or state. It belongs to a layer "
                    "that is not part of the compiled model (held in an attribute it does "
                    "not track?), or was created after compiler.compile: compile the model "
                    "again.")
            return value
        return None

    def record(self, variable, value):
        """Record an assignment made during a pure run (instead of mutating)."""
        self.assignments[id(variable)] = value
        self.assigned[id(variable)] = variable

    def _root_key(self):
        if self.key is None:
            if self.parent is not None:
                self.key = self.parent._root_key()
            else:
                self.key = seed_stream.next_key()
        return self.key

    def next_key(self, owner: str):
        """A fresh key for the layer at the current path (each call gets a new one).

        The path leaves out the outermost model's name (made unique per process), so a
        model built again runs with the same keys: rebuilt, it reproduces its run."""
        path = "/".join(self.path[1:] if len(self.path) > 1 else self.path) or owner
        count = self._key_counts.get(path, 0)
        self._key_counts[path] = count + 1
        if self.key is None and self.values is not None:
            raise ValueError(
                f'Layer "{owner}" needs a random key (it is random in this mode, e.g. '
                "training=True), but none was given. Pass key=jax.random.PRNGKey(...) "
                "to apply (or train with a Trainer, which passes one).")
        hashed = stable_hash(path) if self.key_hashes is None else self.key_hashes.lookup(path)
        key = jax.random.fold_in(self._root_key(), hashed)
        return jax.random.fold_in(key, count)

    def __enter__(self):
        stack = _stack()
        stack.append(self)
        return self

    def __exit__(self, *exc):
        _stack().pop()
        return False


def _stack() -> list:
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


def current() -> CallContext | None:
    """The innermost active context, or None outside any call."""
    stack = _stack()
    return stack[-1] if stack else None


def sample_mask_for(x):
    """The current context's ``sample_mask`` if it describes the rows of ``x``, else None.

    It applies when ``x`` has a leading axis of the mask's length (its batch axis). A layer
    whose computation mixes the rows of a batch uses it to leave padding rows out:

    >>> import jax.numpy as jnp
    >>> ctx = CallContext()
    >>> ctx.sample_mask = jnp.array([1.0, 1.0, 0.0])
    >>> with ctx:
    ...     sample_mask_for(jnp.zeros((3, 4))).tolist(), sample_mask_for(jnp.zeros((4,)))
    ([1.0, 1.0, 0.0], None)
    """
    ctx = current()
    mask = getattr(ctx, "sample_mask", None) if ctx is not None else None
    if mask is None or not getattr(x, "ndim", 0):
        return None
    mask = jnp.asarray(mask)
    return mask if mask.ndim == 1 and x.shape[0] == mask.shape[0] else None


def row_mask(sample_mask, x):
    """``sample_mask`` as booleans shaped to broadcast against ``x`` (batch axis first)."""
    return jnp.reshape(sample_mask > 0, (-1,) + (1,) * (x.ndim - 1))


@contextlib.contextmanager
def sample_mask_scope(mask):
    """Replace the current context's ``sample_mask`` for a block (e.g. for an inner layer
    that sees the batch reshaped, as ``TimeDistributed``'s does); no-op outside a call."""
    ctx = current()
    if ctx is None:
        yield
        return
    saved = getattr(ctx, "sample_mask", None)
    ctx.sample_mask = mask
    try:
        yield
    finally:
        ctx.sample_mask = saved


def scan(body, init, xs, **kwargs):
    """``jax.lax.scan`` for a body that runs layers (an RNN's cell over time).

    Each step runs in a fresh scope (``CallContext.child``): the weights it assigns (state
    such as a counter or running statistics) are carried from step to step, and its
    ``add_loss`` values are summed over the steps; both reach the enclosing call after
    the loop, as if the steps had run one after another. Without this, values traced
    inside the loop body would leak out of it. Outside any call it is ``jax.lax.scan``.
    """
    parent = current()
    if parent is None:
        return jax.lax.scan(body, init, xs, **kwargs)
    if parent.values is None:
        parent._root_key()  # eager: draw the key now, outside the traced body

    # One abstract step finds which weights the body assigns and whether it adds losses.
    probe = parent.child(share_key_counts=False)

    def probe_step(carry, x):
        with probe:
            return body(carry, x)

    def spec(a):
        return jax.ShapeDtypeStruct(jnp.shape(a), jnp.result_type(a))

    jax.eval_shape(probe_step, jax.tree_util.tree_map(spec, init),
                   jax.tree_util.tree_map(lambda a: jax.ShapeDtypeStruct(
                       jnp.shape(a)[1:], jnp.result_type(a)), xs))
    if not probe.assigned and not probe.losses:
        return jax.lax.scan(body, init, xs, **kwargs)
    assigned = dict(probe.assigned)
    start = {vid: variable.value for vid, variable in assigned.items()}

    def step(carry, x):
        inner, state = carry
        scope = parent.child()
        scope.assignments.update(state)
        with scope:
            inner, y = body(inner, x)
        unexpected = set(scope.assigned) - set(assigned)
        if unexpected:
            raise RuntimeError("A loop body assigned different weights on different traces: "
                               f"{sorted(scope.assigned[v].path for v in unexpected)}.")
        state = {vid: scope.assignments.get(vid, value) for vid, value in state.items()}
        loss = sum((jnp.sum(value) for value in scope.losses), jnp.zeros((), jnp.float32))
        return (inner, state), (y, loss)

    (carry, state), (ys, losses) = jax.lax.scan(step, (init, start), xs, **kwargs)
    for vid, variable in assigned.items():
        variable.assign(state[vid])
    if probe.losses:
        parent.losses.append(jnp.sum(losses))
    return carry, ys


def checkpoint(fn, *args, policy=None):
    """``fn(*args)`` under ``jax.checkpoint`` (rematerialised in the backward pass), for a
    ``fn`` that runs layers: like ``scan``, it runs in a fresh scope whose weight
    assignments and ``add_loss`` values reach the enclosing call afterwards. Leaves of
    ``args`` that are not arrays (flags, None) pass through as they are."""
    parent = current()
    leaves, treedef = jax.tree_util.tree_flatten(args)
    dynamic = [i for i, leaf in enumerate(leaves)
               if isinstance(leaf, (jax.Array, np.ndarray, jax.core.Tracer))]
    assigned = {}

    def inner(*values):
        rebuilt = list(leaves)
        for i, value in zip(dynamic, values):
            rebuilt[i] = value
        scope = parent.child() if parent is not None else None
        if scope is None:
            return fn(*jax.tree_util.tree_unflatten(treedef, rebuilt)), {}, []
        with scope:
            out = fn(*jax.tree_util.tree_unflatten(treedef, rebuilt))
        assigned.update(scope.assigned)
        return out, dict(scope.assignments), list(scope.losses)

    out, assignments, losses = jax.checkpoint(inner, policy=policy)(
        *[leaves[i] for i in dynamic])
    for vid, value in assignments.items():
        assigned[vid].assign(value)
    if parent is not None:
        parent.losses.extend(losses)
    return out
