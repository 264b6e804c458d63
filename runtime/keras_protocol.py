"""Keras 3's JAX-form training protocol: ``stateless_call``, ``compute_loss``,
``metrics``, and the default ``train_step`` / ``test_step`` / ``predict_step`` that a
model's own steps build on (what ``super().train_step(state, data)`` runs).

The state is Keras's tuple of lists: ``(trainable_variables, non_trainable_variables,
optimizer_variables, metrics_variables)`` for ``train_step`` (without the optimizer's for
``test_step``), in the order of ``model.trainable_variables``,
``model.non_trainable_variables``, ``model.optimizer.variables`` and ``model.metrics``'s
variables. The numbers are Keras's: the loss tracker is a mean weighted by batch size,
``metrics`` ignore sample weights and ``weighted_metrics`` use them, and the log names are
Keras's (``runtime.objective.metric_log_names``).
"""

from __future__ import annotations

import contextlib
import contextvars

import jax
import jax.numpy as jnp

import compiler
import compiler.weights
from kgraph.interpreter import context
from kgraph.base import call_args
from kgraph.base.layer_surface import given_values
from kgraph.base.symbolic_scope import SymbolicScope
from kgraph.interpreter.walk import node_paths
from kgraph.metrics import reduction_metrics
from kgraph.utils.data_utils import unpack_x_y_sample_weight
from kgraph.models.trainer import Trainer
from runtime.compile_utils import CompileLoss, CompileMetrics
from runtime.objective import Objective
from runtime.precision import Precision
from runtime.remat import Remat
from runtime.training_setup import TrainingSetup

__all__ = [
    "CompileMetrics", "OutputLossTracker", "build_compiled_loss", "compile_loss",
    "compute_loss", "default_metrics", "default_predict_step", "default_test_step",
    "default_train_step", "loss_objective", "metric_state", "objective", "overrides",
    "stateless_call", "stateless_compute_loss", "step_key", "symbolic_build", "unpack",
    "uses_own_steps"
]


_STEP_KEY = contextvars.ContextVar("kgraph_step_key", default=None)
# Inside a default step: what the forward pass added (layer losses), for the default
# ``compute_loss`` to add, and the per-output losses it computes, for their trackers.
_FORWARD = contextvars.ContextVar("kgraph_forward_losses", default=None)


@contextlib.contextmanager
def step_key(key):
    """Random layers in ``stateless_call`` draw from ``key`` inside this context."""
    token = _STEP_KEY.set(key)
    try:
        yield
    finally:
        _STEP_KEY.reset(token)


def overrides(model, name) -> bool:
    """Whether ``model``'s class defines its own ``name`` (e.g. ``train_step``)."""
    return getattr(type(model), name) is not getattr(Trainer, name)


def uses_own_steps(model, *names) -> bool:
    """Whether ``model`` trains or evaluates through Keras's protocol: it overrides one of
    ``names`` (``train_step``, ``compute_loss``, ...)."""
    return any(overrides(model, name) for name in names)


# ------------------------------------------------------------------ stateless pieces
def _program(model):
    """The model's program and the hooks ``compile`` chose (``remat``, ``precision``)."""
    setup = TrainingSetup.of(model)
    made = getattr(setup, "_stateless_program", None)
    if made is None or not made[0].is_current():
        config = setup.config or {}
        hooks = tuple(hook for hook in (
            Remat(config["remat"]) if config.get("remat") is not None else None,
            Precision(config["precision"]) if config.get("precision") is not None else None)
            if hook is not None)
        for hook in hooks:
            hook.check_paths(node_paths(model), model.name)
        program = compiler.compile(model, scan_blocks=config.get("scan_blocks", True))
        made = setup._stateless_program = (program, hooks)
    return made


def stateless_call(model, trainable_variables, non_trainable_variables, *args,
                   return_losses=False, training=False, key=None, **kwargs):
    """``(outputs, non_trainable_variables)`` of ``model`` on the weights given as lists (in
    ``model.trainable_variables`` / ``non_trainable_variables`` order), touching nothing.

    Random layers in training draw from ``key`` (inside ``fit``, each step's key); with
    ``return_losses`` also the losses the layers added and the weight penalties, as Keras's
    list (one scalar each, empty when there are none)."""
    if kwargs:
        raise TypeError(f"stateless_call got unexpected arguments {sorted(kwargs)}.")
    program, hooks = _program(model)
    non_trainable = model.non_trainable_variables
    values = given_values(model, "stateless_call", trainable_variables,
                           non_trainable_variables)
    params, state = compiler.weights.split_values(program._entries,
                                                  lambda e: values[id(e.variable)])
    inputs = args[0] if len(args) == 1 else list(args)
    key = key if key is not None else _STEP_KEY.get()
    run = program.run(params, state, inputs, training=training, key=key, hooks=hooks)
    paths = {id(e.variable): e.path for e in program._entries}
    # a seed generator's state is not the program's: its draws come from ``key`` and
    # leave it as given (``kgraph.base.seed_generator``)
    new_non_trainable = [values[id(v)] if id(v) not in paths
                         else compiler.weights.get_path(run.state, paths[id(v)], "state")
                         for v in non_trainable]
    if return_losses:
        return run.outputs, new_non_trainable, list(run.loss_terms)
    return run.outputs, new_non_trainable


def objective(model, require_loss=True) -> Objective:
    """The compiled losses and metrics of ``model`` (made once per ``compile``)."""
    setup = TrainingSetup.of(model)
    if setup.config is None:
        raise RuntimeError(f"You must call model.compile(optimizer, loss, metrics) before "
                           f"training or evaluating model {model.name!r}.")
    made = getattr(setup, "_keras_objective", None)
    if made is None:
        config = setup.config
        made = setup._keras_objective = Objective(
            model, config["loss"], config["metrics"] or (), config["loss_weights"],
            config["weighted_metrics"], require_loss=False,
            output_structure=setup.output_structure)
    if require_loss and not made.has_loss:
        raise ValueError(f"Model {model.name!r} has no compiled loss: call compile(loss=...) "
                         "or override compute_loss.")
    return made


def loss_objective(model, y_pred=None) -> Objective:
    """The compiled losses as ``compute_loss`` meets them: the model's ``objective``, or,
    once ``compute_loss`` was given predictions of another structure than the model's
    outputs (an override may regroup them), the losses placed on that structure, as Keras
    builds its compiled loss on the first predictions it receives."""
    setup = TrainingSetup.of(model)
    made = getattr(setup, "_keras_loss_objective", None)
    compiled = objective(model, require_loss=False)
    if made is not None or y_pred is None:
        return made or compiled
    leaves = jax.tree_util.tree_leaves(y_pred)
    if len(leaves) == len(compiled.names):
        return compiled
    config = setup.config
    made = setup._keras_loss_objective = Objective(
        None, config["loss"], None, config["loss_weights"], require_loss=False,
        output_structure=jax.tree_util.tree_unflatten(jax.tree_util.tree_structure(y_pred),
                                                      range(len(leaves))),
        names=[None] * len(leaves))
    return made


def build_compiled_loss(model, batch) -> None:
    """Keras's symbolic build of the compiled loss, before the first step: a model's own
    ``compute_loss`` run abstractly on ``batch``, so that the loss trackers follow the
    predictions it passes on (``loss_objective``)."""
    setup = TrainingSetup.of(model)
    if (setup.config is None or setup.config["loss"] is None or setup.losses_built
            or not overrides(model, "compute_loss")):
        return
    x, y, sample_weight = unpack(batch)
    trainable = [v.value for v in model.trainable_variables]
    non_trainable = [v.value for v in model.non_trainable_variables]
    metrics = metric_state(model.metrics)
    with SymbolicScope():  # (as Keras's: ``in_symbolic_scope()`` tells the override)
        jax.eval_shape(lambda t, n, m: _forward_pass(model, t, n, m, x, y, sample_weight,
                                                     False)[0],
                       trainable, non_trainable, metrics)


def compute_loss(model, x=None, y=None, y_pred=None, sample_weight=None, training=True):
    """Keras's default: the compiled loss of ``(y, y_pred)`` (per output, weighted by
    ``loss_weights``) plus the losses the model's layers added in the forward pass."""
    forward = _FORWARD.get()
    added = None if forward is None else forward.get("added")
    compiled = loss_objective(model, y_pred)
    if added is None and not compiled.has_loss:
        compiled = objective(model, require_loss=True)  # (its error)
    total = None
    if compiled.has_loss:
        total, per_output = compiled.loss(y, y_pred, sample_weight)
        if forward is not None:
            forward["per_output"] = per_output
    if added is not None:
        total = added if total is None else total + added
    return total


def stateless_compute_loss(model, trainable_variables, non_trainable_variables,
                           metrics_variables, x=None, y=None, y_pred=None, sample_weight=None,
                           training=True):
    """Keras's ``stateless_compute_loss``: ``model.compute_loss`` with the model's variables
    and its metrics' states taken from the lists given, touching nothing. Returns
    ``(loss, (trainable_variables, non_trainable_variables, metrics_variables))``, the last
    two as ``compute_loss`` left them (a loss tracker it updates, a weight it assigns)."""
    non_trainable = model.non_trainable_variables
    values = given_values(model, "stateless_compute_loss", trainable_variables,
                           non_trainable_variables)
    with _metrics_at(model, metrics_variables, "stateless_compute_loss") as held:
        scope = context.CallContext(values=values, training=training,
                                    collect_assignments=True)
        with scope:
            loss = _call_compute_loss(model, x, y, y_pred, sample_weight, training)
        new_metrics = held()
    assigned = scope.weights.assignments
    new_non_trainable = [assigned.get(id(v), values[id(v)]) for v in non_trainable]
    return loss, (list(trainable_variables), new_non_trainable, new_metrics)


def _call_compute_loss(model, x, y, y_pred, sample_weight, training):
    """``model.compute_loss``, given ``training`` if it takes it (older overrides do not)."""
    extra = {"training": training} if call_args.accepts(model.compute_loss, "training") else {}
    return model.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight, **extra)


@contextlib.contextmanager
def _metrics_at(model, metrics_variables, caller):
    """Within the block, ``model.metrics`` hold the states in ``metrics_variables`` (Keras's
    flat list); yields a function giving their states then, as such a list."""
    metrics = model.metrics
    counts = [len(metric._state_leaves()) for metric in metrics]
    if len(metrics_variables) != sum(counts):
        raise ValueError(f"{caller} on model {model.name!r}: expected {sum(counts)} metrics "
                         f"variables (model.metrics_variables), received "
                         f"{len(metrics_variables)}.")
    given = iter(metrics_variables)
    states = [metric._state_from_leaves([next(given) for _ in range(count)])
              for metric, count in zip(metrics, counts)]
    with contextlib.ExitStack() as holding:
        for metric, state in zip(metrics, states):
            holding.enter_context(metric._holding(state))
        yield lambda: [leaf for metric in metrics for leaf in metric._state_leaves()]


class OutputLossTracker(reduction_metrics.Mean):
    """The mean of one of two or more compiled losses (Keras's ``<output>_loss``); ``term``:
    its position among the losses (``Objective.terms``)."""

    def __init__(self, name, term=0):
        super().__init__(name=name)
        self.term = term


def _loss_trackers(compiled: Objective) -> list:
    """A tracker of each loss, when there are two or more (named as Keras's: two losses of
    one name have two trackers of that name; the logs show the later one's)."""
    if len(compiled.terms) < 2:
        return []
    return [OutputLossTracker(f"{term.name}_loss", index)
            for index, term in enumerate(compiled.terms)]


def default_metrics(model) -> list:
    """Keras's ``model.metrics`` of a compiled model: a ``Mean`` named "loss", the compiled
    metrics (``CompileMetrics``, when ``compile`` was given ``metrics`` or
    ``weighted_metrics``), then, once the model first trained or evaluated (Keras builds
    its compiled loss then), each output's loss tracker when two or more outputs have a
    loss."""
    setup = TrainingSetup.of(model)
    if setup.config is None:
        return []
    made = getattr(setup, "_keras_metrics", None)
    if made is None:
        config = setup.config
        made = [reduction_metrics.Mean(name="loss")]
        if config["metrics"] is not None or config["weighted_metrics"] is not None:
            made.append(CompileMetrics.compiled(objective(model, require_loss=False),
                                                built=lambda: setup.losses_built))
        setup._keras_metrics = made
    if setup.losses_built and not any(isinstance(m, OutputLossTracker) for m in made):
        made += _loss_trackers(loss_objective(model))
    return made


def compile_loss(model):
    """Keras's ``model._compile_loss``: the compiled loss (``CompileLoss``), whose metrics
    are the per-output loss trackers once built; None before ``compile`` or without a
    loss."""
    setup = TrainingSetup.of(model)
    if setup.config is None or setup.config["loss"] is None:
        return None
    made = getattr(setup, "_keras_compile_loss", None)
    if made is None:
        made = setup._keras_compile_loss = CompileLoss.compiled(
            objective(model, require_loss=False),
            trackers=lambda: [m for m in default_metrics(model)
                              if isinstance(m, OutputLossTracker)],
            built=lambda: setup.losses_built)
    return made


def symbolic_build(model, iterator=None, data_batch=None) -> None:
    """Keras's ``_symbolic_build``: build the model (on a batch's inputs, its weights
    kept), its compiled loss and metrics and its optimizer, before any step runs."""
    if data_batch is None:
        if iterator is None:
            raise ValueError("_symbolic_build needs a data_batch or an iterator of batches.")
        data_batch = next(iter(iterator))
        if isinstance(data_batch, tuple) and len(data_batch) == 3 and isinstance(
                data_batch[2], list):  # an EpochIterator's (begin, end, batches)
            data_batch = data_batch[2][0]
    x, _, _ = unpack(data_batch)
    setup = TrainingSetup.of(model)
    setup._build_on(model, x)
    if setup.config is not None:
        setup.losses_built = True
        optimizer = setup.config["optimizer"]
        if hasattr(optimizer, "build") and not getattr(optimizer, "built", True):
            optimizer.build(model.trainable_variables)


def metric_state(metrics) -> list:
    """Fresh states of ``metrics``, as Keras's flat list of metrics variables."""
    return [leaf for m in metrics for leaf in m.stateless_reset_state()]


def _batch_size(x):
    leaves = jax.tree_util.tree_leaves(x)
    return leaves[0].shape[0] if leaves and jnp.ndim(leaves[0]) else 1


def _update_metrics(model, metrics_variables, loss, x, y, y_pred, sample_weight, per_output):
    """Keras's default metric updates, and the logs: every metric's result."""
    batch = jnp.asarray(_batch_size(x), jnp.float32)
    logs, new, position = {}, [], 0
    for metric in model.metrics:
        count = len(metric.stateless_reset_state())
        own = list(metrics_variables[position:position + count])
        position += count
        if isinstance(metric, CompileMetrics):
            own = metric.stateless_update_state(own, y, y_pred, sample_weight)
        elif isinstance(metric, OutputLossTracker):
            if per_output and metric.term < len(per_output):
                own = metric.stateless_update_state(own, per_output[metric.term],
                                                    sample_weight=batch)
        elif metric.name == "loss" and loss is not None:
            own = metric.stateless_update_state(own, loss, sample_weight=batch)
        result = metric.stateless_result(own)
        logs.update(result if isinstance(result, dict) else {metric.name: result})
        new += own
    return logs, new


def _forward_pass(model, trainable, non_trainable, metrics_variables, x, y, sample_weight,
                  training):
    """``(loss, y_pred, non_trainable, per-output losses, metrics_variables)`` of Keras's
    default step; ``compute_loss`` sees the forward pass's losses as ``model.losses`` and
    may update the model's metrics (their states from ``metrics_variables``)."""
    y_pred, non_trainable, added = model.stateless_call(trainable, non_trainable, x,
                                                        training=training, return_losses=True)
    forward = {"added": sum(added[1:], added[0]) if added else None}
    token = _FORWARD.set(forward)
    model.__dict__["_losses_override"] = list(added)
    try:
        with _metrics_at(model, metrics_variables, "train_step") as held:
            loss = _call_compute_loss(model, x, y, y_pred, sample_weight, training)
            metrics_variables = held()
    finally:
        _FORWARD.reset(token)
        model.__dict__.pop("_losses_override", None)
    return loss, y_pred, non_trainable, forward.get("per_output"), metrics_variables


def default_train_step(model, state, data):
    """Keras's default ``train_step`` in JAX form (what ``super().train_step`` runs)."""
    trainable, non_trainable, optimizer_variables, metrics_variables = state
    x, y, sample_weight = unpack(data)

    def loss_of(trainable):
        loss, y_pred, new_non_trainable, per_output, new_metrics = _forward_pass(
            model, trainable, non_trainable, metrics_variables, x, y, sample_weight, True)
        scaled = model.optimizer.stateless_scale_loss(optimizer_variables, loss) if hasattr(
            model.optimizer, "stateless_scale_loss") else loss
        return scaled, (y_pred, new_non_trainable, per_output, loss, new_metrics)

    (_, (y_pred, non_trainable, per_output, loss, metrics_variables)), grads = \
        jax.value_and_grad(loss_of, has_aux=True)(trainable)
    trainable, optimizer_variables = model.optimizer.stateless_apply(
        optimizer_variables, grads, trainable)
    logs, metrics_variables = _update_metrics(model, metrics_variables, loss, x, y, y_pred,
                                              sample_weight, per_output)
    return logs, (trainable, non_trainable, optimizer_variables, metrics_variables)


def default_test_step(model, state, data):
    """Keras's default ``test_step`` in JAX form."""
    trainable, non_trainable, metrics_variables = state
    x, y, sample_weight = unpack(data)
    loss, y_pred, non_trainable, per_output, metrics_variables = _forward_pass(
        model, trainable, non_trainable, metrics_variables, x, y, sample_weight, False)
    logs, metrics_variables = _update_metrics(model, metrics_variables, loss, x, y, y_pred,
                                              sample_weight, per_output)
    return logs, (trainable, non_trainable, metrics_variables)


def default_predict_step(model, state, data):
    """Keras's default ``predict_step``: the outputs."""
    trainable, non_trainable = state
    x, _, _ = unpack(data)
    return model.stateless_call(trainable, non_trainable, x, training=False)[0]


unpack = unpack_x_y_sample_weight  # Keras's: (x, y, sample_weight) of a batch
