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

__all__ = [
    "CallContext", "Keys", "Options", "Weights", "checkpoint", "current", "row_mask",
    "sample_mask_for", "sample_mask_scope", "scan", "stable_hash", "with_weights"
]


_local = threading.local()


def stable_hash(text: str) -> int:
    """A hash of ``text`` that is the same in every process (unlike ``hash``)."""
    return zlib.crc32(text.encode("utf-8")) & 0x7FFFFFFF


class Weights:
    """Where a run's layers read their weights, and where their assignments go.

    ``values``: ``{id(variable): array}`` to read (None: the variables' stored values).
    ``collect``: record assignments here instead of mutating the variables (pure runs).
    ``strict``: reading a variable that is neither in ``values`` nor assigned in the run is
    an error. A child scope (one step of a loop) reads what its parents assigned so far and
    collects its own assignments; the stacked weights of scanned runs are shared.
    """

    def __init__(self, values=None, collect=False, strict=False, parent=None):
        self.values, self.collect, self.strict, self.parent = values, collect, strict, parent
        self.assignments: dict[int, Any] = {}
        self.assigned: dict[int, Any] = {}  # id -> Variable, for the assignments above
        # id(first node of a run) -> its blocks' weights, stacked (``compiler.stacking``),
        # and -> {weight index: new stacked value} of the state the scan assigned; with
        # id(variable) -> the slice of it the last scan assigned to that block's variable
        self.stacked: dict = {} if parent is None else parent.stacked
        self.stacked_assigned: dict = {} if parent is None else parent.stacked_assigned
        self.scan_slices: dict = {} if parent is None else parent.scan_slices

    def child(self) -> Weights:
        return Weights(self.values, True, self.strict, parent=self)

    def assignment(self, variable):
        """What this run (this scope or those around it) assigned ``variable``, or None."""
        vid, scope = id(variable), self
        while scope is not None:
            if vid in scope.assignments:
                return scope.assignments[vid]
            scope = scope.parent
        return None

    def read(self, variable):
        """The value of ``variable`` in this run, or None to use its stored value.

        A strict scope (``compiler``'s pure ``apply``) raises for a variable that is
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

    def maps(self, variable) -> bool:
        """Whether this run gives ``variable`` a value of its own (in ``values``, or
        assigned during the run), rather than its stored one."""
        if self.assignment(variable) is not None:
            return True
        return self.values is not None and id(variable) in self.values

    def record(self, variable, value):
        """Record an assignment made during a pure run (instead of mutating)."""
        self.assignments[id(variable)] = value
        self.assigned[id(variable)] = variable


class Keys:
    """The random keys of a run's layers: the run's ``key`` folded with each layer's path
    and a count of the keys that path drew. ``required``: a run over explicit weights
    (a pure ``apply``) must be given its key; an eager one draws it from the eager stream.
    Inside a scanned block, ``hashes`` stands in for ``stable_hash(path)``."""

    def __init__(self, key=None, required=False, parent=None, counts=None, hashes=None):
        self.key, self.required, self.parent, self.hashes = key, required, parent, hashes
        self.counts: dict[str, int] = {} if counts is None else counts

    def child(self, share_counts=True) -> Keys:
        return Keys(self.key, self.required, self,
                    self.counts if share_counts else dict(self.counts), self.hashes)

    def root(self):
        """The run's key (drawn from the eager stream, once, when none was given)."""
        if self.key is None:
            self.key = self.parent.root() if self.parent is not None else seed_stream.next_key()
        return self.key

    def given(self):
        """The first key given to this scope or its parents, or None."""
        keys = self
        while keys is not None:
            if keys.key is not None:
                return keys.key
            keys = keys.parent
        return None

    def next_key(self, path: str, owner: str):
        """A fresh key for the layer at ``path`` (each call gets a new one)."""
        count = self.counts.get(path, 0)
        self.counts[path] = count + 1
        if self.key is None and self.required:
            raise ValueError(
                f'Layer "{owner}" needs a random key (it is random in this mode, e.g. '
                "training=True), but none was given. Pass key=jax.random.PRNGKey(...) "
                "to apply (or train with a Trainer, which passes one).")
        hashed = stable_hash(path) if self.hashes is None else self.hashes.lookup(path)
        return jax.random.fold_in(jax.random.fold_in(self.root(), hashed), count)


class Options:
    """How a run runs: the default ``training`` flag (and the values of the other
    call-context arguments, ``context_args``), the ``sample_mask`` (see the module
    docstring; None: every row is real), the ``hooks`` run around every node
    (``kgraph.interpreter.walk.NodeHook``), a model-level precision policy's
    ``compute_dtype`` for the layer running, and the ``plans`` a compiled program gives
    the graph models nested in it (``{id(model): Plan}``, with the runs of repeated
    blocks to scan; a nested model not listed runs its own plan)."""

    def __init__(self, training=None, sample_mask=None, hooks=(), compute_dtype=None,
                 plans=None, context_args=None):
        self.training, self.sample_mask = training, sample_mask
        self.hooks, self.compute_dtype = tuple(hooks), compute_dtype
        self.plans = plans or {}
        # Keras's call-context arguments other than ``training`` (``kgraph.base.
        # call_context_args``): name -> the value the enclosing calls resolved
        self.context_args = dict(context_args or {})

    def copy(self) -> Options:
        return Options(self.training, self.sample_mask, self.hooks, self.compute_dtype,
                       self.plans, self.context_args)


class CallContext:
    """What a layer sees while it runs, by concern: ``weights`` (where weights are read
    and assignments go), ``keys`` (randomness), ``options`` (training flag, sample mask,
    hooks, precision); and what the run collects: ``losses`` (``add_loss``) and each
    graph's ``output_masks``. ``path`` is the names of the layers being called.

    Args:
      values: ``{id(variable): array}`` to read weights from, or None for stored values.
      training: the default training flag for layers that take one.
      key: a PRNG key that random layers derive theirs from, or None.
      collect_assignments: if True, ``variable.assign`` records the new value here
        instead of mutating the variable (pure execution).
      strict: reading a weight missing from ``values`` is an error.
      sample_mask, hooks: see ``Options``.
    """

    def __init__(self, values=None, training=None, key=None, collect_assignments=False,
                 strict=False, sample_mask=None, hooks=()):
        self.weights = Weights(values, collect_assignments, strict)
        self.keys = Keys(key, required=values is not None)
        self.options = Options(training, sample_mask, hooks)
        self.losses: list = []  # from layer.add_loss during this run
        # how many of them are one value for the whole batch (padding rows would enter)
        self.batch_wide_losses = 0
        self.output_masks: dict = {}  # id(model) -> output masks of its last run
        self.path: list[str] = []
        self.parent: CallContext | None = None

    def child(self, share_key_counts=True) -> CallContext:
        """A fresh scope for one step of a loop (``scan``): it reads what this context
        reads (and what was assigned in it so far), but collects its own assignments
        and losses, which the loop carries out of the step."""
        scope = CallContext.__new__(CallContext)
        scope.weights = self.weights.child()
        scope.keys = self.keys.child(share_key_counts)
        scope.options = self.options.copy()
        scope.losses, scope.output_masks = [], {}
        scope.path, scope.parent = self.path, self
        return scope

    def note_batch_wide_loss(self) -> None:
        """Count an ``add_loss`` value that is one value for the whole batch (in the
        outermost context: the run's)."""
        scope = self
        while scope.parent is not None:
            scope = scope.parent
        scope.batch_wide_losses += 1

    def next_key(self, owner: str):
        """A fresh key for the layer at the current path (each call gets a new one).

        The path leaves out the outermost model's name (made unique per process), so a
        model built again runs with the same keys: rebuilt, it reproduces its run."""
        path = "/".join(self.path[1:] if len(self.path) > 1 else self.path) or owner
        return self.keys.next_key(path, owner)

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
    >>> ctx = CallContext(sample_mask=jnp.array([1.0, 1.0, 0.0]))
    >>> with ctx:
    ...     sample_mask_for(jnp.zeros((3, 4))).tolist(), sample_mask_for(jnp.zeros((4,)))
    ([1.0, 1.0, 0.0], None)
    """
    ctx = current()
    mask = ctx.options.sample_mask if ctx is not None else None
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
    saved = ctx.options.sample_mask
    ctx.options.sample_mask = mask
    try:
        yield
    finally:
        ctx.options.sample_mask = saved


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
    if parent.weights.values is None:
        parent.keys.root()  # eager: draw the key now, outside the traced body

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
    if not probe.weights.assigned and not probe.losses:
        return jax.lax.scan(body, init, xs, **kwargs)
    assigned = dict(probe.weights.assigned)
    start = {vid: variable.value for vid, variable in assigned.items()}

    def step(carry, x):
        inner, state = carry
        scope = parent.child()
        scope.weights.assignments.update(state)
        with scope:
            inner, y = body(inner, x)
        written = scope.weights.assigned
        unexpected = set(written) - set(assigned)
        if unexpected:
            raise RuntimeError("A loop body assigned different weights on different traces: "
                               f"{sorted(written[v].path for v in unexpected)}.")
        state = {vid: scope.weights.assignments.get(vid, value) for vid, value in state.items()}
        loss = sum((jnp.sum(value) for value in scope.losses), jnp.zeros((), jnp.float32))
        return (inner, state), (y, loss)

    (carry, state), (ys, losses) = jax.lax.scan(step, (init, start), xs, **kwargs)
    for vid, variable in assigned.items():
        variable.assign(state[vid])
    if probe.losses:
        parent.losses.append(jnp.sum(losses))
    return carry, ys


def with_weights(overrides, fn, *args):
    """``fn(*args)`` reading the given values for some weights (``{variable: value}``) in
    this call only: a wrapper running its layer on a transformed kernel (spectral
    normalization). The weights themselves keep their values; what else ``fn`` assigns
    (state) and its ``add_loss`` values reach the enclosing call."""
    parent = current()
    if parent is None:
        with CallContext() as parent:
            return with_weights(overrides, fn, *args)
    scope = parent.child()
    for variable, value in overrides.items():
        scope.weights.assignments[id(variable)] = value
    with scope:
        out = fn(*args)
    for vid, variable in scope.weights.assigned.items():
        variable.assign(scope.weights.assignments[vid])
    parent.losses.extend(scope.losses)
    return out


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
        assigned.update(scope.weights.assigned)
        return out, dict(scope.weights.assignments), list(scope.losses)

    out, assignments, losses = jax.checkpoint(inner, policy=policy)(
        *[leaves[i] for i in dynamic])
    for vid, value in assignments.items():
        assigned[vid].assign(value)
    if parent is not None:
        parent.losses.extend(losses)
    return out
