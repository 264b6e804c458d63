"""``compile(model)``: a model's graph made into a pure program over weight pytrees.

>>> import jax, kgraph as kg, compiler
>>> x = kg.Input(shape=(3,))
>>> program = compiler.compile(kg.Model(x, kg.layers.Dense(2, name="out")(x)))
>>> params, state = program.init(jax.random.PRNGKey(0))
>>> out, state = program.apply(params, state, jax.numpy.ones((4, 3)))
>>> out.shape
(4, 2)
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from compiler import scan_blocks as scan_blocks_lib
from compiler import stacking
from compiler.weights import (check_weights, get_path, graph_signature, set_path,
                              split_values, weight_entries)
from kgraph.base import initial_values
from kgraph.base.layer import Layer
from kgraph.base.tracking import structure_read_once
from kgraph.interpreter import context, execute
from kgraph.interpreter.checks import checked
from kgraph.interpreter.walk import NodeHook
from kgraph.models.functional import Functional

__all__ = ["Program", "Run", "compile"]


class Run(NamedTuple):
    """One pure run of a model (see ``Program.run``)."""

    outputs: Any
    state: dict
    loss: Any  # the sum of ``loss_terms``: a float32 scalar, 0 when there are none
    masks: list | None
    captured: dict | None
    loss_terms: tuple = ()  # the ``add_loss`` values and weight penalties, one scalar each
    # how many ``add_loss`` values were one value for the whole batch (not per sample)
    batch_wide_losses: int = 0


class Program:
    """The pure form of a model.

    Attributes:
      model: the model it was compiled from.
      nodes: the graph's nodes in the topological order ``apply`` runs them.
      block_runs: runs of identical blocks that run as one ``lax.scan`` each
        (``compiler.scan_blocks``; empty with ``scan_blocks=False``).
      stacked_runs: those whose weights the stacked layout keeps under one key each
        (``compiler.stacking``: ``stack``, ``unstack``).
    """

    def __init__(self, model, scan_blocks: bool = True):
        if not isinstance(model, Layer):
            raise TypeError(f"compiler.compile expects a kgraph Model or Layer, "
                            f"received {type(model).__name__}.")
        if not model.built:
            raise ValueError(f'Layer "{model.name}" is not built: call it on an input (or '
                             "build it) before compiling.")
        if getattr(model, "_build_error", None):
            raise ValueError(model._build_error)
        self.model = model
        self.nodes = list(getattr(model, "_nodes", ()))
        with structure_read_once():  # the passes below read the graph, never change it
            self._entries = weight_entries(model)
            self._signature = graph_signature(model, self._entries)
            # runs only where the interpreter walks the graph (a model whose call is its own
            # code runs as it is written)
            self.block_runs = (scan_blocks_lib.find_runs(model)
                               if scan_blocks and scan_blocks_lib.runs_its_graph(model)
                               else [])
            self.stacked_runs = stacking.plan(self._entries, self.block_runs)
        # What the interpreter runs: the graph's nodes in order, the proven runs scanned
        # (None for a model whose call is its own code: it runs as it is written); and
        # the plans of the graph models nested in it that hold runs, by model.
        by_graph: dict = {}
        for run in self.block_runs:
            by_graph.setdefault(id(run.graph), (run.graph, []))[1].append(run)
        self.plan = (model.plan.with_runs(by_graph.pop(id(model), (None, []))[1])
                     if type(model).call is Functional.call else None)
        self._nested_plans = {key: graph.plan.with_runs(runs)
                              for key, (graph, runs) in by_graph.items()}
        self._stacked_leaves = stacking.expected_leaves(self._entries, self.stacked_runs)
        self._jitted = jax.jit(self.apply, static_argnames=("training",))

    def init(self, key, shardings=None, stacked: bool = False) -> tuple[dict, dict]:
        """Fresh ``(params, state)``; each weight's key is derived from its path.

        All weights are drawn by one jitted function, cached by the model's layout
        (``kgraph.base.initial_values.draw``), so a deep model initialises in one dispatch.
        With ``shardings`` (a ``(params, state)`` pair of pytrees of ``jax.sharding``
        objects, e.g. from ``runtime.ShardingRules.shardings``), each weight is instead
        created directly in its sharding, one at a time: no device and not the host ever
        holds a whole sharded weight, and the values are bitwise the same. ``stacked``:
        in the stacked layout (``compiler.stacking``; ``shardings`` then in it too), the
        same values.
        """
        self._check_current()
        if shardings is not None:
            if isinstance(key, jax.core.Tracer):
                raise ValueError("program.init(key, shardings=...) places each weight "
                                 "itself: call it outside jit.")
            if stacked:
                return self._init_stacked_placed(key, shardings)
            return split_values(self._entries, lambda e: initial_values.draw_placed(
                e.variable, key, "/".join(e.path), get_path(
                    shardings[0 if e.is_param else 1], e.path, "shardings")))
        values = initial_values.draw([e.variable for e in self._entries], key,
                                     ["/".join(e.path) for e in self._entries])
        position = {id(e): i for i, e in enumerate(self._entries)}
        params, state = split_values(self._entries, lambda e: values[position[id(e)]])
        return self.stack(params, state) if stacked else (params, state)

    def _init_stacked_placed(self, key, shardings):
        members = {id(e.variable) for run in self.stacked_runs for block in run.entries
                   for e in block}
        params, state = split_values(
            [e for e in self._entries if id(e.variable) not in members],
            lambda e: initial_values.draw_placed(e.variable, key, "/".join(e.path), get_path(
                shardings[0 if e.is_param else 1], e.path, "shardings")))
        for run in self.stacked_runs:
            for i, (path, is_param) in enumerate(run.weights):
                blocks = [block[i] for block in run.entries]
                where = (*run.path, *path)
                set_path(params if is_param else state, where, initial_values.draw_placed_stacked(
                    [e.variable for e in blocks], key, ["/".join(e.path) for e in blocks],
                    get_path(shardings[0 if is_param else 1], where, "shardings")))
        return params, state

    def stack(self, params, state) -> tuple[dict, dict]:
        """``(params, state)`` in the stacked layout: each run of repeated blocks under one
        key ``"<first>..<last>"``, its leaves stacked on a new leading axis
        (``compiler.stacking``). Works on arrays, inside ``jit`` and on
        ``jax.ShapeDtypeStruct``s."""
        if stacking.is_stacked(self.stacked_runs, params, state):
            return params, state
        return (stacking.stack_tree(self.stacked_runs, params),
                stacking.stack_tree(self.stacked_runs, state))

    def unstack(self, params, state) -> tuple[dict, dict]:
        """``(params, state)`` in the named layout (one entry per layer), from either."""
        return (stacking.unstack_tree(self.stacked_runs, params),
                stacking.unstack_tree(self.stacked_runs, state))

    def apply(self, params, state, inputs, *, training=False, key=None, return_losses=False,
              capture=None, hooks=(), sample_mask=None):
        """Run the model purely: ``(outputs, new_state)``.

        Args:
          params, state: weight pytrees from ``init`` or ``compiler.variables``.
          inputs: arrays in the model's input structure (tensor, list or dict).
          training: Python bool; training-mode behaviour (Dropout, BatchNorm updates).
          key: PRNG key for random layers (needed when they are random, e.g. training).
          return_losses: also return the model's auxiliary loss, a scalar: the sum of
            ``add_loss`` values (activity penalties) and weight regularizer penalties.
            The result is then ``(outputs, new_state, losses)``.
          capture: layer paths (``"dense_1"``, ``"encoder/dense"``) whose outputs to return,
            or True for every node; a dict ``{path: outputs}`` is then appended to the result.
          hooks: ``kgraph.interpreter.walk.NodeHook`` objects run around every node.
          sample_mask: a ``(batch,)`` 0/1 array marking the real rows of a padded batch;
            batch statistics (BatchNormalization) and activity penalties ignore the rest.
        """
        run = self.run(params, state, inputs, training=training, key=key, capture=capture,
                       hooks=hooks, sample_mask=sample_mask)
        result = (run.outputs, run.state)
        if return_losses:
            result += (run.loss,)
        if capture is not None:
            result += (run.captured,)
        return result

    def run(self, params, state, inputs, *, training=False, key=None, capture=None, hooks=(),
            sample_mask=None) -> Run:
        """Like ``apply``, returning a ``Run``: outputs, new state, auxiliary loss, output
        masks (Keras masks of the flattened outputs, None where unmasked) and captures."""
        self._check_current()
        stacked = stacking.is_stacked(self.stacked_runs, params, state)
        trees = {True: params, False: state}
        if stacked:
            self._check_one_layout(params, state)
            check_weights(self._entries, params, state, self.model.name,
                          leaves=self._stacked_leaves)
            values = _Values(self._entries, self.stacked_runs, params, state)
        else:
            check_weights(self._entries, params, state, self.model.name)
            values = {id(e.variable): get_path(trees[e.is_param], e.path,
                                                "params" if e.is_param else "state")
                      for e in self._entries}
        ctx = context.CallContext(values=values, training=training, key=key,
                                  collect_assignments=True, strict=True, sample_mask=sample_mask)
        if stacked:
            ctx.weights.stacked = {id(run.first_node): [
                get_path(trees[is_param], (*run.path, *path), "params")
                for path, is_param in run.weights] for run in self.stacked_runs}
        captured = None
        if capture is not None:
            captured = {}
            hooks = (*hooks, _Capture(capture, captured))
        ctx.options.hooks = tuple(hooks)
        ctx.options.plans = self._nested_plans
        with ctx:
            if self.plan is not None:  # a graph: the interpreter runs the compiled plan
                outputs, masks = execute.run_model(self.model, inputs, self.plan,
                                                   ctx.options.hooks)
            else:
                outputs = self._call_model(inputs, ctx.options.hooks)
                masks = None
        new_state = {}
        for e in self._entries:
            if not e.is_param and (not stacked or id(e.variable) not in values.lazy):
                new = ctx.weights.assignments.get(id(e.variable))
                value = new if new is not None else values.get(id(e.variable))
                set_path(new_state, e.path, value)
        if stacked:
            for run in self.stacked_runs:
                scanned = ctx.weights.stacked_assigned.get(id(run.first_node), {})
                for i, (path, is_param) in enumerate(run.weights):
                    if not is_param:
                        set_path(new_state, (*run.path, *path),
                                 _new_stacked(ctx, values, run, i, scanned))
        losses = [jnp.sum(loss) for loss in ctx.losses]
        # as Keras: the penalties of the trained weights (a frozen one's is a constant)
        losses += [e.variable.regularizer(values.get(id(e.variable))) for e in self._entries
                   if e.is_param and e.variable.regularizer is not None]
        loss = sum(losses, jnp.zeros((), jnp.float32))
        if masks is not None and all(m is None for m in masks):
            masks = None
        if captured is not None:
            missing = [] if capture is True else sorted(set(capture) - set(captured))
            if missing:
                raise ValueError(f"capture: no layer at path(s) {missing} in model "
                                 f"{self.model.name!r}; paths are layer names, nested ones as "
                                 f"'inner_model/layer'.")
        return Run(outputs, new_state, loss, masks, captured, tuple(losses),
                   ctx.batch_wide_losses)

    def _call_model(self, inputs, hooks):
        """The call of a model whose call is its own Python code (a subclassed one), not
        the walk of its graph: one node to the hooks, at the empty path, so a rule for
        every layer (``".*"``) applies to its whole call."""
        if not hooks:
            return self.model(inputs)

        def call(node, args, kwargs, input_masks):
            return self.model(*args, **kwargs), None

        runner = call
        for hook in hooks:
            runner = hook.wrap_node(None, "", runner) or runner
        return runner(None, (inputs,), {}, None)[0]

    def _check_one_layout(self, params, state):
        for run in self.stacked_runs:
            for what, tree in (("params", params), ("state", state)):
                if isinstance(tree, dict) and not run.held_in(tree) and run.blocks_in(tree):
                    raise ValueError(
                        f"{what} of model {self.model.name!r} holds block "
                        f"{'/'.join((*run.prefix, run.layers[0]))!r} on its own while the "
                        f"other tree stacks the run {'/'.join(run.path)!r}: "
                        "convert both together, program.stack(params, state) or "
                        "program.unstack(params, state).")

    def is_current(self) -> bool:
        """Whether the model is still the one compiled (no layer added, removed, rebuilt or
        re-assigned, no weight frozen or unfrozen since)."""
        return graph_signature(self.model) == self._signature

    def _check_current(self):
        """Raise if the model changed since it was compiled (runs at trace time only)."""
        if not self.is_current():
            raise ValueError(
                f"Model {self.model.name!r} changed after it was compiled (layers added, "
                "removed, rebuilt or re-assigned, or weights frozen or unfrozen), so this "
                "program no longer describes it. Compile it again: compiler.compile(model) "
                "(or model.compile(...) before fit).")

    def checked_apply(self, params, state, inputs, **kwargs):
        """``apply`` with value checks (e.g. Embedding ids in range) that work under ``jit``:
        returns ``(error, apply's result)``, a ``jax.experimental.checkify`` error naming the
        layer (``error.throw()`` raises it; ``error.get()`` is None when all is well)."""
        return checked(self.apply)(params, state, inputs, **kwargs)

    def constrain(self, params):
        """``params`` with every weight constraint applied (after an optimizer update).
        In the stacked layout a run's blocks share their first block's constraint (their
        configs are equal), applied to each block."""
        constrained = [e for e in self._entries if e.is_param and e.variable.constraint]
        if not constrained:
            return params
        runs = self.stacked_runs if stacking.is_stacked(self.stacked_runs, params, {}) else []
        where = {id(e.variable): (*run.path, *path) for run in runs
                 for (path, _), e in zip(run.weights, run.entries[0])}
        members = {id(e.variable) for run in runs for block in run.entries for e in block}
        params = jax.tree_util.tree_map(lambda x: x, params)  # new containers, same leaves
        for e in constrained:
            if id(e.variable) in where:
                path = where[id(e.variable)]
                set_path(params, path, jax.vmap(e.variable.constraint)(
                    get_path(params, path, "params")))
            elif id(e.variable) not in members:
                set_path(params, e.path, e.variable.constraint(
                    get_path(params, e.path, "params")))
        return params

    def lower(self, params, state, inputs, *, training=False, key=None):
        """The jitted ``apply`` lowered for these arguments (``.as_text()`` is StableHLO)."""
        return self._jitted.lower(params, state, inputs, training=training, key=key)

    def __repr__(self):
        if not hasattr(self, "model"):
            return "<Program (not compiled)>"
        return (f"<Program of {self.model.name!r}: {len(self.nodes)} nodes, "
                f"{len(self._entries)} weights>")


class _Values(dict):
    """Weight values by variable id for a run in the stacked layout: a stacked block's
    own weights (read by a block that does not run in the scan, or by a regularizer) are
    sliced out of the stacked arrays on first read."""

    def __init__(self, entries, runs, params, state):
        trees = {True: params, False: state}
        self.lazy = {}
        for run in runs:
            for i, (path, is_param) in enumerate(run.weights):
                leaf = get_path(trees[is_param], (*run.path, *path), "params")
                for block, block_entries in enumerate(run.entries):
                    self.lazy[id(block_entries[i].variable)] = (leaf, block)
        super().__init__((id(e.variable), get_path(trees[e.is_param], e.path, "params"))
                         for e in entries if id(e.variable) not in self.lazy)

    def get(self, vid, default=None):
        if vid in self:
            return self[vid]
        found = self.lazy.get(vid)
        if found is None:
            return default
        self[vid] = found[0][found[1]]
        return self[vid]


def _new_stacked(ctx, values, run, index, scanned):
    """The new value of a stacked state weight: each block's last assignment in the run
    (the scan's stacked value when it is the last for every block), else the value it
    had."""
    variables = [block[index].variable for block in run.entries]
    new = [ctx.weights.assignments.get(id(v)) for v in variables]
    if index in scanned and all(
            value is not None and value is ctx.weights.scan_slices.get(id(v))
            for v, value in zip(variables, new)):
        return scanned[index]
    if all(value is None for value in new):
        return values.lazy[id(variables[0])][0]
    return jnp.stack([value if value is not None else values.get(id(v))
                      for v, value in zip(variables, new)])


class _Capture(NodeHook):
    """Store the outputs of the nodes at the requested paths (all of them for True)."""

    def __init__(self, paths, store):
        self.paths = None if paths is True else set(paths)
        self.store = store

    def after_node(self, node, path, args, kwargs, outputs):
        if self.paths is None or path in self.paths:
            self.store.setdefault(path, outputs)


def compile(model, scan_blocks: bool = True) -> Program:  # noqa: A001 - compiler.compile
    """Compile ``model`` into a pure ``Program`` (``init``, ``apply``, ``lower``, ``nodes``).

    ``scan_blocks``: run repeated identical blocks as one ``lax.scan`` each, so they
    compile once (``compiler.scan_blocks``); False runs every node unrolled.
    """
    return Program(model, scan_blocks=scan_blocks)
