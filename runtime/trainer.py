"""``Trainer``: pure, jitted training, evaluation and prediction steps over a compiled model.

>>> import jax, optax, jax.numpy as jnp, kgraph as kg
>>> x = kg.Input(shape=(4,))
>>> model = kg.Model(x, kg.layers.Dense(3)(x))
>>> trainer = Trainer(model, optax.adam(1e-3), "sparse_categorical_crossentropy")
>>> ts = trainer.init(jax.random.PRNGKey(0))
>>> ts, logs = trainer.train_step(ts, (jnp.ones((8, 4)), jnp.zeros((8,), jnp.int32)))
>>> int(ts.step), sorted(logs)
(1, ['loss'])
"""

from __future__ import annotations

import collections
import operator
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import optax
from jax.extend import core as jex_core

import compiler
from compiler import stacking
from compiler.weights import split_values, written_by_gradient
from kgraph.base import target_platform
from kgraph.interpreter import fingerprint
from kgraph.interpreter.walk import node_paths
from kgraph import optimizers
from kgraph.optimizers import overwrites
from runtime import opt_state_layout, packing as packing_lib
from runtime.gradient_writes import GradientWrites
from runtime.inference_steps import InferenceSteps, rows_at, unpack, unpacked as _unpacked
from runtime.objective import Objective
from runtime.optimizer_masks import decay_arguments
from runtime.precision import Precision
from runtime.remat import Remat
from runtime.sharding.placement import MeshPlacement, OneDevice

__all__ = ["TrainState", "Trainer", "unpack"]


class TrainState(NamedTuple):
    """Everything training carries from step to step, as one pytree.

    ``params`` and ``state`` hold one entry per layer, except with
    ``Trainer(stack_blocks=...)`` on (the default for Keras's element-wise optimizers): a
    run of repeated blocks that runs as one scan then keeps its weights stacked under one
    key (``"block..block_47"``, see ``compiler.stacking``), so training a deep stack costs
    no more to compile than a shallow one; ``trainer.program.unstack(ts.params,
    ts.state)`` gives one entry per layer.
    ``key`` is the base PRNG key; step ``n`` uses ``fold_in(key, n)``. ``metrics`` holds
    ``fit``'s running loss/metric states since the last ``Trainer.reset_metrics`` (None
    in a train state from ``init``: ``train_step`` returns each batch's logs instead).
    """

    params: Any
    state: Any
    opt_state: Any
    step: Any
    key: Any
    metrics: Any = None




class _InferenceOnly:
    """The objective of a Trainer made without a loss: it can only predict."""

    log_names: list = []

    def __init__(self, model_name):
        self.model_name = model_name

    def init_metrics(self, previous=None):
        return {}

    def results(self, metrics):
        return {}

    def __getattr__(self, name):
        raise ValueError(f"This Trainer of model {self.model_name!r} has no loss, so it can "
                         "only predict; pass loss=... to train or evaluate.")


def _scan(body, carry, xs, length=None):
    """``lax.scan`` over training steps. The step is traced once; its jaxpr is the loop's
    body. On CPU a step that convolves is unrolled: XLA:CPU runs convolution gradients
    inside a while loop in a slow layout (about 10x slower), and ``k`` is small. Other
    steps stay a loop, which on a small model runs about 1.8x faster than unrolled."""
    first = None if xs is None else jax.tree_util.tree_map(lambda a: a[0], xs)
    closed, out_shapes = jax.make_jaxpr(body, return_shape=True)(carry, first)
    out_tree = jax.tree_util.tree_structure(out_shapes)
    traced = jex_core.jaxpr_as_fun(closed)

    def replay(carry, x):
        return jax.tree_util.tree_unflatten(out_tree, traced(*jax.tree_util.tree_leaves((carry, x))))

    unroll = True if target_platform.target() == "cpu" and fingerprint.convolves(closed) else 1
    return jax.lax.scan(replay, carry, xs, length=length, unroll=unroll)


def _like(original, ts):
    """``ts`` packed the way ``original`` was (or not)."""
    return original.packing.pack(ts) if isinstance(original, packing_lib.Packed) else ts


class Trainer(InferenceSteps):
    """Pure training of ``model`` with an optax optimizer, losses and metrics.

    ``train_step(ts, batch) -> (ts, logs)`` is jitted and donates the train state's buffers
    (don't reuse a train state after passing it in). ``train_steps(ts, batches)`` runs
    ``k`` steps in one call with ``jax.lax.scan`` over batches stacked on a leading axis.
    ``eval_step(ts, batch, metrics=None) -> (metrics, logs)`` accumulates evaluation
    metrics (logs: their running values); ``predict_step(ts, x)`` returns the outputs;
    ``predict_batch(ts, x, valid)`` also the state the model assigned (a stateful RNN's),
    or None.
    ``train_step``'s logs are the batch's loss and metrics, as 0-d device arrays;
    ``train_steps`` returns them stacked, one row per step. (``fit`` keeps running epoch
    means in ``ts.metrics`` instead.) Every step also takes a packed train state
    (``pack(ts)``, see ``runtime.packing``) and returns one: the same numbers, with far
    less dispatch overhead per step for small models.

    Args:
      model: a kgraph model (compiled here with ``compiler.compile``).
      optimizer: an optax ``GradientTransformation`` or a Keras name ("adam", "sgd", ...).
      loss: a loss (name, object or callable), or a list/dict of them per output; None
        makes an inference-only Trainer (``predict_step``).
      metrics: metrics (names, objects or callables), or lists/dicts of them per output.
      loss_weights: scales of each output's loss in the total (float, list or dict).
      weighted_metrics: metrics weighted by sample and class weights (``metrics`` are not,
        as in Keras 3).
      mesh: a ``jax.sharding.Mesh`` to train on (None: one device). Batches are split
        over ``data_axis`` (default: the mesh's first axis), weights as ``sharding``
        says, the optimizer state like the weights it tracks (``runtime.sharding``).
      sharding: ``runtime.ShardingRules`` for the weights (None: replicated).
      remat: rematerialise layers in the backward pass: a ``jax.checkpoint`` policy name
        for every layer, or ``{layer path pattern: policy name}`` (``runtime.remat``).
      scan_blocks: run repeated identical blocks as one ``lax.scan`` each (compiled once;
        ``compiler.scan_blocks``); False: every layer unrolled.
      stack_blocks: keep the weights of scanned blocks, and the optimizer state, stacked in
        the train state (``compiler.stacking``), so a deep stack's step compiles like a
        shallow one's. Default: when the optimizer says its update treats every weight
        element by element (Keras's optimizers, by name or class, without ``clipnorm``;
        not Adafactor), as stacking would change per-weight norms and statistics; pass
        True for an optax transformation that does. False: the step stacks them itself.
      precision: compute in another dtype than the layers' own, keeping float32 weights
        and optimizer state: a policy name for the whole model (``"mixed_bfloat16"``) or
        ``{layer path pattern: policy name}`` (``runtime.precision``).
    """

    def __init__(self, model, optimizer="adam", loss=None, metrics=(), *, loss_weights=None,
                 weighted_metrics=None, mesh=None, sharding=None, data_axis=None,
                 placement=None, remat=None, scan_blocks=True, precision=None,
                 stack_blocks=None, inference_only=False, output_structure=None):
        self.model = model
        self.program = compiler.compile(model, scan_blocks=scan_blocks)
        self.optimizer = optimizers.get(optimizer)
        if self.optimizer is None:
            raise ValueError("Trainer needs an optimizer (a Keras name, a kgraph optimizer or an "
                             "optax GradientTransformation); received None.")
        if stack_blocks is None:
            stack_blocks = bool(getattr(self.optimizer, "elementwise", False))
        self.stack_blocks = bool(stack_blocks) and bool(self.program.stacked_runs)
        if mesh is None and (sharding is not None or data_axis is not None):
            raise ValueError("sharding and data_axis need a mesh: pass mesh=jax.make_mesh(...).")
        if mesh is not None:
            placement = MeshPlacement(mesh, sharding, self.optimizer, data_axis)
        # One device or a mesh (``placement`` given: a MeshPlacement made by compile).
        self.placement = placement if placement is not None else OneDevice()
        self.placement.stacked_runs = self.program.stacked_runs if self.stack_blocks else []
        self.remat = Remat(remat) if remat is not None else None
        self.precision = Precision(precision) if precision is not None else None
        # Typos in paths are errors now, not at the first step.
        self.placement.check_weight_paths(compiler.weights.weight_paths(model), model.name)
        paths = node_paths(model)
        for hook in (self.placement.hints, self.remat, self.precision):
            if hook is not None:
                hook.check_paths(paths, model.name)
        # Without a loss a Trainer trains on the losses the layers add (``add_loss``), as
        # Keras's compile without a loss does; ``inference_only``: it only predicts.
        self.objective = (_InferenceOnly(model.name) if inference_only else
                          Objective(model, loss, metrics, loss_weights, weighted_metrics,
                                    require_loss=False, output_structure=output_structure))
        self.metric_names = self.objective.log_names
        self.traces: collections.Counter = collections.Counter()  # traces (compiles) per kind
        self.train_step = jax.jit(self._train_step, donate_argnums=0)
        self.train_steps = jax.jit(self._train_steps, donate_argnums=0)
        self.eval_step = jax.jit(self._eval_step)
        self.predict_step = jax.jit(self._predict_step)
        self.results = jax.jit(self.objective.results)
        # Padded forms used by fit/evaluate/predict: batches carry a 0/1 ``valid`` row mask.
        self._packings: dict = {}
        self.fit_batches = jax.jit(self._fit_batches, donate_argnums=0)
        self.fit_indexed = jax.jit(self._fit_indexed, donate_argnums=0,
                                   static_argnames=("steps",))
        self.eval_batch = jax.jit(self._eval_batch, donate_argnums=1)
        self.eval_indexed = jax.jit(self._eval_indexed, donate_argnums=1)
        self.predict_batch = jax.jit(self._predict_batch)
        self.predict_indexed = jax.jit(self._predict_indexed)

    # ----------------------------------------------------------------- states
    def init(self, key) -> TrainState:
        """A fresh train state: new weights from ``key``, new optimizer state (on a mesh:
        created sharded, inside ``jit``)."""
        return self.placement.init(self, key)

    def init_from_model(self, key, opt_state=None, *, read_only=False) -> TrainState:
        """A train state holding the model's current weights (``compiler.variables``) and
        ``opt_state`` (None: a fresh one), fitted to the weights trained now
        (``fitted_opt_state``). ``read_only``: for steps that never donate it (evaluate,
        predict), so on one device it holds the model's own arrays instead of copies."""
        params, state = compiler.variables(self.model)
        if jax.tree_util.tree_leaves(opt_state):  # fitted in the named layout (layer names)
            opt_state = self.opt_state_in_layout(
                self.fitted_opt_state(params, self.opt_state_named(opt_state), state))
        if self.stack_blocks:
            params, state = self.program.stack(params, state)
        # (on a mesh: copied once, onto it; the optimizer state made there)
        return self.placement.from_weights(self, params, state, key, opt_state,
                                           read_only=read_only)

    def fitted_opt_state(self, params, opt_state, state):
        """``opt_state`` for training ``params`` and overwriting the weights of ``state``
        written with their gradient (all in the named layout): as it is if it has their
        structure; else (layers frozen or unfrozen since it was made) a fresh state into
        which the entries the old one also holds carry over
        (``runtime.opt_state_layout.fitted``)."""
        specs = self.__dict__.setdefault("_opt_state_specs", {})  # per weights' layout
        overwritten = self.named_gradient_writes().values(state)
        return opt_state_layout.fitted(
            lambda p: overwrites.init_state(self.optimizer, p, overwritten), params,
            opt_state, specs, self.model.name)

    def opt_state_named(self, opt_state):
        """``opt_state`` with its weight-shaped trees in the named layout (one entry per
        layer), whichever layout it is in: what files hold."""
        runs = self.program.stacked_runs if self.stack_blocks else []
        return opt_state_layout.named(runs, opt_state)

    def opt_state_in_layout(self, opt_state):
        """``opt_state`` (either layout, or None) in the layout this Trainer's steps use."""
        if opt_state is None or not self.stack_blocks:
            return opt_state
        return opt_state_layout.stacked(self.program.stacked_runs, opt_state)

    def _train_state(self, params, state, key, opt_state=None, copy=True):
        if copy:  # steps donate their train state: the arrays given must survive
            params, state = jax.tree_util.tree_map(jnp.copy, (params, state))
        if opt_state is None:
            opt_state = self.init_opt_state(params, state)
        return TrainState(params, state, opt_state, jnp.zeros((), jnp.int32), key)

    def init_opt_state(self, params, state):
        """A fresh optimizer state for training ``params`` and overwriting the weights of
        ``state`` written with their gradient (``gradient_writes``), this Trainer's
        layout."""
        return overwrites.init_state(self.optimizer, params, self.gradient_writes().values(state))

    def pack(self, train_state: TrainState) -> packing_lib.Packed:
        """``train_state`` with its small arrays packed into one buffer per dtype.

        Every step accepts and returns packed states; a small model's step then runs
        much faster (each array passed costs a few microseconds of dispatch). Fields read
        through (``packed.params``); ``packed.unpack()`` gives the ``TrainState``.
        """
        if isinstance(train_state, packing_lib.Packed):
            return train_state
        key = (packing_lib.signature(train_state), self.placement.packing_key(train_state))
        if key not in self._packings:  # one layout per shape: compiled steps are shared
            self._packings[key] = packing_lib.Packing(
                train_state, replicated_only=self.placement.replicated_only)
        return self._packings[key].pack_jit(train_state)

    def unpacked(self, train_state) -> TrainState:
        """``train_state`` unpacked (one compiled call; as it is if it is not packed)."""
        if isinstance(train_state, packing_lib.Packed):
            return train_state.unpack()
        return train_state

    def variables(self) -> list:
        """The model's variables this Trainer's train states hold."""
        return [e.variable for e in self.program._entries]

    def describes_model(self) -> bool:
        """Whether the model is still the one this Trainer compiled (see
        ``Program.is_current``)."""
        return self.program.is_current()

    def init_metrics(self) -> dict:
        """Fresh metric states (for ``eval_step``)."""
        return self.objective.init_metrics()

    def reset_metrics(self, ts: TrainState) -> TrainState:
        """``ts`` with fresh running metrics (e.g. at the start of an epoch; a metric with
        its own ``reset_state`` gets what that makes of its state)."""
        return ts._replace(metrics=self.objective.init_metrics(ts.metrics))

    def named_weights(self, train_state: TrainState, copy: bool = True) -> tuple[dict, dict]:
        """``(params, state)`` of ``train_state`` in the named layout (one entry per layer),
        gathered whole from other processes' devices, and copied unless ``copy=False``
        (steps donate the train state's buffers)."""
        params, state = self.placement.whole((train_state.params, train_state.state), copy)
        return self.program.unstack(params, state)

    def write_back(self, train_state: TrainState, copy: bool = False) -> None:
        """Put the trained weights into the model's layers (eager calls see them).

        ``copy=True`` copies them first, so the train state can still be donated. Weights
        of repeated blocks kept stacked (``compiler.stacking``) go back to each block.
        """
        self.assign_named(*self.named_weights(train_state, copy=copy))

    def keep_state(self, state) -> None:
        """Put ``state`` (this Trainer's layout; None: nothing) into the model's
        non-trainable variables, as an inference run that assigned it leaves them."""
        if state is None:
            return
        state = self.program.unstack({}, self.placement.whole(state, copy=False))[1]
        for entry in self.program._entries:
            if not entry.is_param:
                entry.variable.assign(compiler.weights.get_path(state, entry.path, "state"))

    def assign_named(self, params, state) -> None:
        """Named-layout ``(params, state)`` (this Trainer's) into the model's variables."""
        compiler.assign(self.model, params, state, self.program._entries)

    def _entry(self, variable):
        entries = self.__dict__.get("_entries_by_variable")
        if entries is None:
            entries = self._entries_by_variable = {id(e.variable): e
                                                   for e in self.program._entries}
        return entries[id(variable)]

    def named_value(self, named, variable):
        """``variable``'s value in named-layout ``(params, state)``."""
        entry = self._entry(variable)
        return compiler.weights.get_path(named[0 if entry.is_param else 1], entry.path,
                                         "params" if entry.is_param else "state")

    def with_weights(self, train_state: TrainState, writes) -> TrainState:
        """``train_state`` with ``writes`` (``(variable, value)`` pairs, named by the model's
        variables) in place of those weights' values, in this Trainer's layout and with
        each weight's sharding; the optimizer state is unchanged."""
        get_path, set_path = compiler.weights.get_path, compiler.weights.set_path
        trees = jax.tree_util.tree_map(lambda leaf: leaf, (train_state.params,
                                                           train_state.state))
        stacked = {id(e.variable): (run.path, path, block)
                   for run in (self.program.stacked_runs if self.stack_blocks else ())
                   for block, entries in enumerate(run.entries)
                   for (path, _), e in zip(run.weights, entries)}
        for variable, value in writes:
            entry = self._entry(variable)
            tree = trees[0 if entry.is_param else 1]
            where = stacked.get(id(variable))
            if where is None:
                old = get_path(tree, entry.path, "params")
                new = jnp.asarray(value, old.dtype)
                path = entry.path
            else:
                at, inner, block = where
                path = (*at, *inner)
                old = get_path(tree, path, "params")
                new = old.at[block].set(jnp.asarray(value, old.dtype))
            set_path(tree, path, jax.device_put(new, old.sharding))
        return train_state._replace(params=trees[0], state=trees[1])

    def named_gradient_writes(self) -> GradientWrites:
        """The state weights a training step writes with their gradient
        (``runtime.gradient_writes``), in the named layout."""
        return GradientWrites(split_values(self.program._entries, written_by_gradient)[1])

    def gradient_writes(self) -> GradientWrites:
        """``named_gradient_writes`` in this Trainer's layout."""
        writes = self.__dict__.get("_gradient_writes")
        if writes is None:
            flags = self.named_gradient_writes().flags
            if self.stack_blocks:
                flags = stacking.stack_tree(self.program.stacked_runs, flags,
                                            lambda leaves, path: all(leaves))
            writes = self._gradient_writes = GradientWrites(flags)
        return writes

    def _run(self, params, state, x, **kwargs):
        """``program.run`` with a mesh's activation sharding hints and rematerialisation."""
        # precision outermost: a rematerialised node recomputes in its precision too
        hooks = tuple(h for h in (self.placement.batch_split(x), self.placement.hints or None,
                                  self.remat, self.precision) if h is not None)
        run = self.program.run(params, state, x, hooks=hooks, **kwargs)
        for hook in hooks:
            hook.check_all_used(self.model.name)
        return run

    def on_shapes(self, x, y, fn, training=False):
        """``fn(y, run)`` on shapes alone: ``x`` (arrays or ``ShapeDtypeStruct``s) run
        through the model (``program.run``; in inference unless ``training``) with nothing
        computed, so the model's input checks and ``fn``'s run on the batch's shapes;
        returns what ``fn`` returns."""
        found = []
        params, state = jax.tree_util.tree_map(
            lambda v: jax.ShapeDtypeStruct(v.shape, v.dtype),
            split_values(self.program._entries, operator.attrgetter("variable")))

        def probe(params, state, x, y):
            # a key as evaluation passes one: a model may be random in inference too
            run = self.program.run(params, state, x, training=training,
                                   key=jax.random.PRNGKey(0))
            found.append(fn(y, run))

        jax.eval_shape(probe, params, state, x, y)
        return found[0]

    def pads_rows(self, x, y) -> bool:
        """Whether batches shaped like ``(x, y)`` may be padded with weight-0 rows: every
        loss leaves them out (``Objective.masks_rows``), and the layers add no loss that
        is one value for the whole batch (``add_loss``). Found from shapes alone, once per
        batch layout; where it is False, fit and evaluate run a partial batch unpadded."""
        found = self.__dict__.setdefault("_pads_rows", {})
        layout = opt_state_layout.layout_key((x, y))
        if layout not in found:
            found[layout] = self.on_shapes(
                x, y, lambda y, run: (not run.batch_wide_losses
                                      and self.objective.masks_rows(y, run.outputs)),
                training=True)
        return found[layout]

    def memory_report(self, train_state, batch) -> dict:
        """What XLA's compiled ``train_step`` on ``batch`` needs, in bytes
        (``compiled.memory_analysis()``): ``temp`` (activations and scratch: what
        rematerialisation trades for compute), ``arguments``, ``outputs``, ``aliased``."""
        analysis = self.train_step.lower(train_state, batch).compile().memory_analysis()
        return {"temp": analysis.temp_size_in_bytes,
                "arguments": analysis.argument_size_in_bytes,
                "outputs": analysis.output_size_in_bytes,
                "aliased": analysis.alias_size_in_bytes}

    # ------------------------------------------------------------------- core
    def _step(self, ts: TrainState, x, y, sample_weight, valid, accumulate=True):
        """One optimizer step on a batch (``valid``: padding mask or None).

        Returns ``(train_state, logs)``. With ``accumulate`` the batch goes into the
        running metrics in ``ts.metrics`` (and ``logs`` is None); otherwise ``ts.metrics``
        passes through and ``logs`` are this batch's values, so a custom loop's step
        computes nothing it doesn't return.
        """
        self.traces["train"] += 1
        x, y, sample_weight, valid = self.placement.constrain_batch((x, y, sample_weight, valid))
        # The base key never changes; each step's key is derived from it and the step
        # number, so a model without random layers compiles to no key arithmetic at all.
        step_key = jax.random.fold_in(ts.key, ts.step)

        # a LossScaleOptimizer's scale: the gradient is the scaled loss's, which its
        # update divides again (float16 gradients that would underflow survive)
        scale_of = getattr(self.optimizer, "loss_scale", None)
        scale = scale_of(ts.opt_state) if scale_of is not None else None

        writes = self.gradient_writes()  # state weights whose gradient is their new value
        current = writes.values(ts.state)

        def objective(params, written):
            state = writes.with_values(ts.state, written) if writes else ts.state
            run = self._run(params, state, x, training=True, key=step_key,
                            sample_mask=valid)
            self.objective.check(y, run.outputs)
            if not self.objective.has_loss and not run.loss_terms:  # else it trains on nothing
                raise ValueError(
                    f"Model {self.model.name!r} has no loss to compute: compile was given "
                    "none and no layer adds one (add_loss, weight regularizers). Provide a "
                    "`loss` argument in `compile()`.")
            total, per_output = self.objective.loss(y, run.outputs, sample_weight, valid,
                                                    run.masks)
            loss = total + run.loss
            return (loss if scale is None else loss * scale), (run, per_output, loss)

        (_, (run, per_output, loss)), (grads, proposed) = jax.value_and_grad(
            objective, argnums=(0, 1), has_aux=True)(ts.params, current)
        # the optimizer says what they become (Keras's overwrite_with_gradient), before
        # its update of the same step
        written, opt_state = overwrites.overwrite(self.optimizer, ts.opt_state, proposed,
                                                  current)
        state = writes.written(run.state, written) if writes else run.state
        extra = decay_arguments(self.optimizer, self.program._entries, ts.params)
        updates, opt_state = self.optimizer.update(grads, opt_state, ts.params, **extra)
        params = self.program.constrain(optax.apply_updates(ts.params, updates))
        logs, metrics = None, ts.metrics
        if accumulate:
            metrics = self.objective.update_metrics(
                metrics if metrics is not None else self.objective.init_metrics(), y,
                run.outputs, loss, per_output, sample_weight=sample_weight, valid=valid,
                masks=run.masks, step=ts.step)
        else:
            logs = self.objective.results(self.objective.update_metrics(
                self.objective.init_metrics(), y, run.outputs, loss, per_output,
                sample_weight=sample_weight, valid=valid, masks=run.masks))
        new = TrainState(params, state, opt_state, ts.step + 1, ts.key, metrics)
        # on a mesh, the same shardings every step: donation reuses the buffers
        new = self.placement.constrain_state(new)
        return new, logs

    # ------------------------------------------------------------ public steps
    def _train_step(self, ts, batch):
        new, logs = self._step(_unpacked(ts), *unpack(batch), None, accumulate=False)
        return _like(ts, new), logs

    def _train_steps(self, ts, batches):
        def body(ts, batch):
            return self._step(ts, *unpack(batch), None, accumulate=False)

        new, logs = _scan(body, _unpacked(ts), batches)
        return _like(ts, new), logs

    # ----------------------------------------------- padded forms (fit)
    def _fit_batches(self, ts, batches):
        """Steps over host batches ``(x, y, sample_weight, valid)`` stacked on axis 0."""
        def body(ts, batch):
            return self._step(ts, *batch)

        return _like(ts, _scan(body, _unpacked(ts), batches)[0])

    def _fit_indexed(self, packed, data, index, valid, start, *, steps):
        """``steps`` steps over device-resident ``data`` = (x, y, sample_weight).

        Step ``n`` of the epoch (``n = ts.step - start``) trains on rows ``index[n]``, or
        with ``index=None`` on the ``n``-th contiguous block of rows (data gathered into
        the epoch's order); ``valid[n]`` marks real rows (padding repeats a row with
        weight 0).
        """
        def body(ts, _):
            (x, y, sample_weight), mask = rows_at(data, index, valid, ts.step - start)
            return self._step(ts, x, y, sample_weight, mask)

        ts = _unpacked(packed)
        if steps == 1:
            return _like(packed, body(ts, None)[0])
        return _like(packed, _scan(body, ts, None, length=steps)[0])
