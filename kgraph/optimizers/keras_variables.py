"""The optimizer's state as Keras 3's optimizer variables, the ``optimizer/vars`` group of
``.keras`` and ``.weights.h5`` files, and back.

Keras lists an optimizer's variables as ``iterations``, ``learning_rate`` (unless it is a
schedule), the moving averages of ``use_ema`` (one per trainable weight), then the update
rule's slots: for Adam, each weight's ``momentum`` and ``velocity`` in turn, then each
``velocity_hat`` under ``amsgrad``; RMSprop keeps every ``velocity``, then every
``momentum``, then every ``average_gradient`` (each class says how, ``Optimizer._keras_slots``).
Weights come in the order of ``model.trainable_weights``, which is Keras's. So a compiled
model saved by kgraph resumes in Keras with its moments, and one saved by Keras resumes here.
Under ``gradient_accumulation_steps=k`` (``optax.MultiSteps`` here) ``iterations`` counts
every batch, and each weight's ``gradient_accumulator`` (after the moving averages,
before the rule's slots) holds the sum of the gradients since the last update, where
optax keeps their mean; the weights a step overwrites with their gradient (a float8
layer's scales and amax histories, which Keras's trainable weights include where the layer
lists them) have one too, holding the largest of those gradients
(``kgraph.optimizers.overwrites``). ``model_values`` / ``model_restore`` read and set a compiled
model's variables where training continues from (a running fit's train state, or the
state between fits): ``optimizer.variables`` are views through them (``state_variables``).

>>> import jax, numpy as np, optax, kgraph as kg
>>> from kgraph.optimizers import Adam
>>> params = {"dense": {"kernel": np.ones((2, 3), np.float32), "bias": np.zeros(3, np.float32)}}
>>> order = [("dense", "kernel"), ("dense", "bias")]
>>> optimizer = Adam(0.01)
>>> _, opt_state = optimizer.update(params, optimizer.init(params), params)
>>> values = to_keras(optimizer, opt_state, params, order)
>>> [np.shape(v) for v in values]  # iterations, learning_rate, then momentum, velocity per weight
[(), (), (2, 3), (2, 3), (3,), (3,)]
>>> back = from_keras(optimizer, values, params, order)
>>> jax.tree_util.tree_all(jax.tree_util.tree_map(np.array_equal, back, opt_state))
True
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from kgraph.base.weight_tree import get_path, set_path, variables, weight_entries
from kgraph.optimizers import overwrites as overwrites_lib

__all__ = [
    "UnsupportedOptimizer", "expected", "from_keras", "model_expected", "model_restore",
    "model_values", "model_variables", "no_layout_reason", "to_keras", "with_iterations"
]


class UnsupportedOptimizer(NotImplementedError):
    """The optimizer's state has no Keras layout (a custom class, or one that keeps its
    sub-optimizers' states)."""


class _Parts(NamedTuple):
    """Where Keras's variables sit in an optimizer state (inside ``inject_hyperparams``):
    the optax chain of clipping, update rule and decay (``chain``, a tuple of states; the
    rule's at ``rule``), ``optax.MultiSteps``'s state around it under
    ``gradient_accumulation_steps`` (else None), ``use_ema``'s ``EmaState`` (else None;
    the chain's last under no accumulation, beside ``MultiSteps`` under it) and, under
    accumulation, the ``OverwriteState`` after them (the maxima of the weights overwritten
    with their gradient; else None)."""

    chain: tuple
    rule: int
    accumulation: object
    average: object
    overwrites: object = None


def _check(optimizer):
    config = getattr(optimizer, "_config", None)
    if config is None:
        raise UnsupportedOptimizer(f"{type(optimizer).__name__} is not a Keras optimizer class")
    if not getattr(optimizer, "_keras_layout", True):
        raise UnsupportedOptimizer(f"{type(optimizer).__name__} keeps its sub-optimizers' "
                                   "states, which have no Keras layout here")
    return config


def _parts(optimizer, opt_state) -> _Parts:
    config = _check(optimizer)
    rule = int(any(config[k] for k in ("clipnorm", "global_clipnorm", "clipvalue")))
    inner = opt_state.inner_state
    if not config["gradient_accumulation_steps"]:
        return _Parts(inner, rule, None, inner[-1] if config["use_ema"] else None)
    accumulation, *average, overwrites = inner
    return _Parts(accumulation.inner_opt_state, rule, accumulation,
                  average[0] if average else None, overwrites)


def _assembled(opt_state, parts: _Parts, config):
    """``opt_state`` holding ``parts`` (``_parts``'s inverse)."""
    chain = tuple(parts.chain)
    if parts.accumulation is None:
        if parts.average is not None:
            chain = chain[:-1] + (parts.average,)
        return opt_state._replace(inner_state=chain)
    accumulation = parts.accumulation._replace(inner_opt_state=chain)
    average = (parts.average,) if config["use_ema"] else ()
    return opt_state._replace(inner_state=(accumulation, *average, parts.overwrites))


def _has_rate_variable(optimizer) -> bool:
    rate = optimizer._config["learning_rate"]  # a schedule has no variable; nor has a
    return rate is not None and not callable(rate)  # MultiOptimizer (its parts have)


def with_iterations(optimizer, opt_state, iterations: int):
    """``opt_state`` at Keras's ``iterations`` (batches trained on): every step counter of
    the state follows (the schedule's and the moving average's count batches, as Keras's
    ``_iterations``; the rule's count updates, ``iterations // gradient_accumulation_steps``),
    and ``MultiSteps``'s place in its accumulation with it."""
    config = _check(optimizer)
    iterations = jnp.asarray(iterations, jnp.int32)  # (a traced value too: jittable)
    every = config["gradient_accumulation_steps"] or 1
    updates = iterations // every
    parts = _parts(optimizer, opt_state)
    counters = jax.tree_util.tree_map(  # a buffer each: train steps donate them
        lambda x: jnp.array(updates, jnp.int32)
        if jnp.ndim(x) == 0 and jnp.result_type(x) == jnp.int32 else x, parts.chain)
    accumulation, average = parts.accumulation, parts.average
    if accumulation is not None:  # its mean of the gradients seen keeps their sum
        seen, now = accumulation.mini_step, iterations % every
        sums = jax.tree_util.tree_map(
            lambda a: jnp.where(seen == now, a, a * seen.astype(a.dtype)
                                / jnp.maximum(now, 1).astype(a.dtype)),
            accumulation.acc_grads)
        accumulation = accumulation._replace(
            mini_step=jnp.array(now, jnp.int32), gradient_step=jnp.array(updates, jnp.int32),
            acc_grads=sums)
    if average is not None:
        average = average._replace(ema_count=jnp.array(
            iterations if accumulation is not None else updates, jnp.int32))
    state = _assembled(opt_state, parts._replace(chain=counters, accumulation=accumulation,
                                                 average=average), config)
    schedules = {name: s._replace(count=jnp.array(iterations, jnp.int32))
                 for name, s in state.hyperparams_states.items()}
    return state._replace(count=jnp.array(iterations, jnp.int32), hyperparams_states=schedules)


def _held(tree, path) -> bool:
    """Whether ``tree`` (nested dicts) has an entry at ``path``."""
    for name in path:
        if not isinstance(tree, dict) or name not in tree:
            return False
        tree = tree[name]
    return True


def to_keras(optimizer, opt_state, params, order, accumulated=None) -> list:
    """Keras's ``optimizer.variables`` for ``opt_state`` (``params``: the trainable weights
    in the named layout, or their shapes; ``order``: their paths in Keras's order;
    ``accumulated``: the paths of the weights Keras keeps a ``gradient_accumulator`` of, in
    its order: those and the weights overwritten with their gradient; None: ``order``)."""
    parts = _parts(optimizer, opt_state)
    values = [jnp.asarray(opt_state.count, jnp.int32)]
    if _has_rate_variable(optimizer):
        values.append(jnp.asarray(opt_state.hyperparams["learning_rate"], jnp.float32))
    if parts.average is not None:
        values += [get_path(parts.average.ema, path, "moving average") for path in order]
    accumulation = parts.accumulation
    if accumulation is not None:
        seen = accumulation.mini_step.astype(jnp.float32)
        maxima = parts.overwrites.overwrite_maxima
        for path in order if accumulated is None else accumulated:
            if _held(maxima, path):  # an overwritten weight's maximum, as Keras keeps it
                values.append(get_path(maxima, path, "overwrite maxima"))
            else:  # optax's running mean, as Keras's sum
                mean = get_path(accumulation.acc_grads, path, "accumulator")
                values.append(mean * seen.astype(mean.dtype))
    groups, scalars = optimizer._keras_slots(parts.chain[parts.rule], params)
    for group in groups:
        values += [get_path(slot, path, "slot") for path in order for slot in group]
    return values + list(scalars)


def expected(optimizer, params, order, overwritten=None, accumulated=None) -> list:
    """``[(shape, dtype)]`` of the variables ``to_keras`` gives, computed without arrays
    (``overwritten``: the weights overwritten with their gradient, or their shapes, in the
    named layout)."""
    shapes = jax.eval_shape(
        lambda p: to_keras(optimizer, overwrites_lib.init_state(optimizer, p, overwritten), p,
                           order, accumulated), params)
    return [(tuple(s.shape), np.dtype(s.dtype)) for s in shapes]


def from_keras(optimizer, values, params, order, overwritten=None, accumulated=None):
    """The optimizer state whose Keras variables are ``values`` (``to_keras``'s inverse;
    ``overwritten`` as ``expected`` takes it).

    Every step counter of the state follows Keras's ``iterations`` (``with_iterations``)."""
    config = _check(optimizer)
    values = list(values)
    iterations = jnp.asarray(values.pop(0), jnp.int32)  # (a traced value too: jittable)
    template = overwrites_lib.init_state(optimizer, params, overwritten)
    hyperparams = dict(template.hyperparams)
    if _has_rate_variable(optimizer):
        hyperparams["learning_rate"] = jnp.asarray(values.pop(0), jnp.float32)
    parts = _parts(optimizer, template)

    def copy(tree):
        return jax.tree_util.tree_map(lambda x: x, tree)  # a copy to fill in

    def refill(tree):
        tree = copy(tree)
        for path in order:
            set_path(tree, path, jnp.asarray(values.pop(0)))
        return tree

    average = parts.average
    if average is not None:
        average = average._replace(ema=refill(average.ema))
    accumulation, kept = parts.accumulation, parts.overwrites
    if accumulation is not None:  # Keras's sums, as optax's mean over the batches seen
        seen = iterations % config["gradient_accumulation_steps"]
        sums, maxima = copy(accumulation.acc_grads), copy(kept.overwrite_maxima)
        for path in order if accumulated is None else accumulated:
            tree = maxima if _held(maxima, path) else sums
            set_path(tree, path, jnp.asarray(values.pop(0)))
        accumulation = accumulation._replace(
            mini_step=jnp.asarray(seen, jnp.int32),
            acc_grads=jax.tree_util.tree_map(
                lambda a: a / jnp.maximum(seen, 1).astype(a.dtype), sums))
        kept = kept._replace(overwrite_maxima=maxima)
    chain = list(parts.chain)
    groups, scalars = optimizer._keras_slots(chain[parts.rule], params)
    filled = [[{} for _ in group] for group in groups]
    for group, out in zip(groups, filled):
        for path in order:
            for slot, tree in zip(group, out):
                value = values.pop(0)
                set_path(tree, path, jnp.asarray(value, get_path(slot, path, "slot").dtype))
    scalars = [jnp.asarray(values.pop(0), s.dtype) for s in scalars]
    chain[parts.rule] = optimizer._from_keras_slots(chain[parts.rule], filled, scalars, params)
    state = _assembled(template, _Parts(tuple(chain), parts.rule, accumulation, average, kept),
                       config)._replace(hyperparams=hyperparams)
    return with_iterations(optimizer, state, iterations)


# ------------------------------------------------------------------ a compiled model's
def _keras_order(model):
    """The trainable weights' paths in Keras's order (``model.trainable_weights``; those
    a step overwrites with their gradient left out: they have no slots)."""
    paths = {id(e.variable): e.path for e in weight_entries(model) if e.is_param}
    return [paths[id(v)] for v in model.trainable_weights if id(v) in paths]


class _Weights(NamedTuple):
    """What a compiled model's optimizer state is laid out by: the trainable weights'
    shapes (named layout) and paths in Keras's order, the shapes of the weights a step
    overwrites with their gradient, and the paths of the weights Keras's optimizer tracks
    (both kinds, which Keras's trainable weights are), in its order."""

    params: dict
    order: list
    overwritten: dict
    accumulated: list


def _shapes(entries) -> dict:
    tree: dict = {}
    for entry in entries:
        set_path(tree, entry.path, jax.ShapeDtypeStruct(tuple(entry.variable.shape),
                                                        entry.variable.dtype))
    return tree


def _weights(model) -> _Weights:
    """``model``'s ``_Weights``, from shapes alone."""
    entries = weight_entries(model)
    tracked = {id(e.variable): e.path for e in entries if e.is_param or e.written}
    return _Weights(_shapes([e for e in entries if e.is_param]), _keras_order(model),
                    _shapes([e for e in entries if e.written]),
                    [tracked[id(v)] for v in model.weights if id(v) in tracked])


def _compiled_optimizer(model):
    """``(setup, optimizer)``; the optimizer is None unless compiled with a Keras class."""
    setup = getattr(model, "_training_setup", None)
    config = getattr(setup, "config", None)
    optimizer = config["optimizer"] if config is not None else None
    return setup, optimizer if hasattr(optimizer, "_config") else None


def _named_params(model):
    return variables(model)[0]


def _local(tree) -> bool:
    """Whether this process holds every array of ``tree`` whole."""
    return all(getattr(a, "is_fully_addressable", True) for a in jax.tree_util.tree_leaves(tree))


def _header(optimizer, count):
    values = [np.asarray(count, np.int32)]
    if _has_rate_variable(optimizer):
        values.append(np.asarray(optimizer.learning_rate, np.float32))
    return values


def _not_saved(reason):
    warnings.warn(f"The optimizer's state is not saved ({reason}): training resumed from "
                  "this file starts with a fresh optimizer state.", stacklevel=5)


def _running_state(setup):
    """The optimizer state the next step continues from: during fit (a checkpoint callback
    saving, a callback reading optimizer.variables) the running loop's, the newest."""
    return setup.running.train_state.opt_state if setup.running else setup.opt_state


def _state_values(model, setup, optimizer, opt_state) -> list:
    """Keras's variables of ``opt_state`` (the trainer's layout), or UnsupportedOptimizer
    saying why they cannot be given."""
    if setup.trainer is not None:
        opt_state = setup.trainer.opt_state_named(opt_state)
    if not _local(opt_state):
        raise UnsupportedOptimizer("it is split over several processes; save it with a "
                                   "CheckpointManager")
    weights = _weights(model)
    made_for = jax.tree_util.tree_structure(jax.eval_shape(
        lambda p: overwrites_lib.init_state(optimizer, p, weights.overwritten),
        weights.params))
    if jax.tree_util.tree_structure(opt_state) != made_for:
        raise UnsupportedOptimizer("it was made for other trainable weights: a layer was "
                                   "frozen or unfrozen after training")
    return to_keras(optimizer, opt_state, weights.params, weights.order, weights.accumulated)


def model_values(model):
    """Keras's optimizer variables of compiled ``model`` as arrays (None before any
    training); UnsupportedOptimizer when its state has no Keras layout."""
    setup, optimizer = _compiled_optimizer(model)
    if optimizer is None:
        raise UnsupportedOptimizer("the model is not compiled with a Keras optimizer class")
    opt_state = _running_state(setup)
    if opt_state is None:
        return None
    return _state_values(model, setup, optimizer, opt_state)


def model_variables(model):
    """``(name, values)``: Keras's optimizer variables of compiled ``model`` (None when it
    is not compiled, or compiled with an optax transformation, which Keras cannot
    describe). Before any training, Keras's two: ``iterations`` 0 and the learning rate."""
    setup, optimizer = _compiled_optimizer(model)
    if optimizer is None:
        return None
    opt_state = _running_state(setup)
    if opt_state is None:
        return optimizer.name, _header(optimizer, 0)
    count = int(np.asarray(opt_state.count)) if _local(opt_state.count) else 0
    try:
        values = _state_values(model, setup, optimizer, opt_state)
    except NotImplementedError as err:
        _not_saved(err)
        return optimizer.name, _header(optimizer, count)
    return optimizer.name, [np.asarray(v) for v in values]


def model_expected(model):
    """``[(shape, dtype)]`` of compiled ``model``'s Keras optimizer variables, or None
    (not compiled with a Keras optimizer class, or one without a Keras layout). Computed
    from shapes alone: no weight values are made."""
    _, optimizer = _compiled_optimizer(model)
    if optimizer is None:
        return None
    try:
        return expected(optimizer, *_weights(model))
    except NotImplementedError:
        return None


def no_layout_reason(model) -> str:
    """Why compiled ``model``'s optimizer state has no Keras layout (``model_expected`` is
    None)."""
    setup, optimizer = _compiled_optimizer(model)
    if optimizer is None:
        return (f"{type(setup.config['optimizer']).__name__}, an optax transformation that "
                "Keras's variables do not describe")
    try:
        expected(optimizer, *_weights(model))
    except NotImplementedError as error:
        return f"{type(optimizer).__name__}: {error}"
    return "none"


def model_restore(model, values) -> None:
    """Set compiled ``model``'s optimizer state from Keras's variables ``values`` (as
    ``model_expected`` describes them): the next ``fit`` continues from it, and
    ``optimizer.iterations`` / ``learning_rate`` read it."""
    setup, optimizer = _compiled_optimizer(model)
    weights = _weights(model)
    opt_state = from_keras(optimizer, values, _named_params(model), weights.order,
                           weights.overwritten, weights.accumulated)
    loop = setup.running
    if loop is not None:  # during fit: what the next step trains from
        loop.train_state = loop.train_state._replace(
            opt_state=loop.trainer.opt_state_in_layout(opt_state))
        return
    setup.opt_state = opt_state if setup.trainer is None else \
        setup.trainer.opt_state_in_layout(opt_state)
    setup.rest(optimizer, model)
