"""Keras-style ``compile`` / ``fit`` / ``evaluate`` / ``predict`` over a ``Trainer``.

The model keeps its weights in its layers (eager calls and ``compiler.variables`` see the
trained values after ``fit``, and after every epoch during it); the optimizer state lives
in the model's ``TrainingSetup`` and carries over between ``fit`` calls, as in Keras.
"""

from __future__ import annotations

import warnings

import jax
import numpy as np

from compiler.weights import weight_paths
from kgraph import config as kg_config, tree
from kgraph.metrics import metrics as metrics_lib
from runtime import (custom_steps, data as data_lib, data_checks, fit_loop, keras_protocol,
                     loss_terms, optimizers)
from runtime.batch_steps import (evaluate_on_batch, get_metrics_result, predict_on_batch,
                                 record_metrics, reset_metrics, train_on_batch)
from kgraph.callbacks.callback_list import CallbackList
from runtime.checkpoints.backup import BackupAndRestore  # noqa: F401 - kgraph.callbacks'
from runtime.compile_utils import CompileLoss, CompileMetrics  # noqa: F401 - keras.src's
from runtime import data_adapters, epoch_iterator  # noqa: F401 - keras.src's trainers
from runtime.log_order import keras_results
from runtime.precision import Precision
from runtime.remat import Remat
from runtime.sharding.placement import MeshPlacement
from runtime.sharding.rules import ShardingRules
from runtime.training_setup import TrainingSetup

__all__ = ["compile_model", "evaluate", "evaluate_on_batch", "fit", "get_metrics_result",
           "predict", "predict_on_batch", "reset_metrics", "train_on_batch",
           "BackupAndRestore"]  # kgraph.callbacks reaches it here, through the seam


def compile_model(model, optimizer="adam", loss=None, metrics=None, loss_weights=None,
                  steps_per_execution=1, seed=None, weighted_metrics=None, mesh=None,
                  sharding=None, data_axis=None, remat=None, scan_blocks=True, precision=None,
                  distribution=None, scale_loss=False):
    """Configure training (see ``Model.compile``); names are checked now, as in Keras.
    ``scale_loss``: wrap the optimizer in a ``LossScaleOptimizer`` (a float16 model).

    ``distribution`` (a ``kgraph.distribution`` one, set by ``set_distribution``) stands
    for ``mesh``, ``sharding`` and ``data_axis`` when those are not given. The Trainer is
    made on first use, once the model is built (a subclassed model builds on its first
    batch).
    """
    own_steps = keras_protocol.uses_own_steps(model, "train_step", "compute_loss")
    if distribution is not None and mesh is None:
        if own_steps:
            warnings.warn(f"Model {model.name!r} has its own compute_loss or train_step, which "
                          "runs as it is written: the distribution set by set_distribution "
                          "is not applied to it (it trains on one device).", UserWarning,
                          stacklevel=3)
        else:
            mesh, data_axis = distribution.mesh, distribution.batch_dim_name
            sharding = ShardingRules(distribution.layout_rules(), allow_unused=True)
    if int(steps_per_execution) < 1:
        raise ValueError(f"steps_per_execution must be a positive integer, received "
                         f"{steps_per_execution}.")
    optimizer = _optimizer(optimizer)
    if scale_loss and not isinstance(optimizer, optimizers.LossScaleOptimizer):
        optimizer = optimizers.LossScaleOptimizer(optimizer)  # float16: Keras's rule
    placement = None
    if own_steps and mesh is not None:
        raise ValueError(f"Model {model.name!r} has its own compute_loss or train_step, which "
                         "runs as it is written: kgraph does not place it on a mesh (mesh, "
                         "sharding and data_axis shard kgraph's compiled steps). Shard inside "
                         "your train_step, or train without the override.")
    if mesh is not None:  # argument errors now, not at the first fit
        placement = MeshPlacement(mesh, sharding, optimizer, data_axis)
        if model.built:
            placement.rules.check_used(weight_paths(model), model.name)
    elif sharding is not None or data_axis is not None:
        raise ValueError("sharding and data_axis need a mesh: pass mesh=jax.make_mesh(...).")
    if remat is not None:
        Remat(remat)  # an unknown policy is an error now
    if precision is not None:
        Precision(precision)
    _check_losses(loss)  # (how they fit the outputs is checked at the first batch, as Keras)
    _check_metric_names(metrics)
    _check_metric_names(weighted_metrics)
    TrainingSetup.of(model).compile(optimizer, loss, metrics, loss_weights,
                                    steps_per_execution, seed, weighted_metrics,
                                    placement=placement, remat=remat,
                                    scan_blocks=bool(scan_blocks), precision=precision)
    model.stop_training = False


def _check_losses(loss) -> None:
    """Each loss given to ``compile`` resolves (a known name, a ``Loss``, a function) and
    reduces a batch to one value (``loss_terms.resolve``): errors at ``compile``."""
    for leaf in tree.flatten(loss):
        if leaf is not None:
            loss_terms.resolve(leaf)


def _check_metric_names(metrics) -> None:
    """Each metric named in ``compile``'s ``metrics`` is a known name: a misspelt one is an
    error at ``compile`` (Keras's comes at the first batch). How the metrics fit the
    outputs is checked at the first batch, as Keras's."""
    if isinstance(metrics, dict) and "class_name" not in metrics:
        for key in metrics:
            _check_metric_names(metrics[key])
    elif isinstance(metrics, (list, tuple)):
        for each in metrics:
            _check_metric_names(each)
    elif isinstance(metrics, str):
        metrics_lib.get(metrics)  # an unknown name: "Unknown metric ...", with the known ones


def _optimizer(identifier):
    """The optimizer ``compile`` trains with (None is refused: nothing to train with)."""
    optimizer = optimizers.get(identifier)
    if optimizer is None:
        raise ValueError("compile needs an optimizer (a Keras name such as 'adam', a kgraph "
                         "optimizer or an optax GradientTransformation); received None.")
    return optimizer


def _has_compiled_loss(model) -> bool:
    """Whether ``compile`` was given a loss (else the layers' added losses are trained on,
    and batches need no targets)."""
    return (TrainingSetup.of(model).config or {}).get("loss") is not None


def _first_batch(model, data):
    """The inputs a model not built yet builds on: the arrays, or an iterable's first batch
    (read ahead: the iterable still yields it); None for a built model."""
    if model.built:
        return None
    if isinstance(data, data_lib.ArrayData):
        return data.arrays[0]
    return data.first_inputs() if isinstance(data, data_lib.IterableData) else None


def _predict_key(model):
    """The key of this ``predict``'s random draws (layers that draw in inference): a new
    one each call, as Keras's seed generators move on."""
    setup = TrainingSetup.of(model)
    calls = setup.__dict__.get("_predict_calls", 0)
    setup._predict_calls = calls + 1
    key = jax.random.PRNGKey(0)
    return key if calls == 0 else jax.random.fold_in(key, calls)


def _build_on_first_batch(model, data) -> None:
    """A model not built yet builds on the first batch of ``data`` (a model with its own
    steps, before they run: Keras's symbolic build)."""
    TrainingSetup.of(model)._build_on(model, _first_batch(model, data))


def _is_iterable_source(x) -> bool:
    return (not isinstance(x, (np.ndarray, jax.Array, dict, list, tuple))
            and hasattr(x, "__iter__"))


def _mesh_placement(model):
    """The mesh placement ``compile`` chose for ``model``, or None (one device)."""
    setup = getattr(model, "_training_setup", None)
    return (setup.config or {}).get("placement") if setup is not None else None


def _process_batch_size(model, batch_size):
    """On several processes training on one mesh, ``batch_size`` is the global batch
    (as Keras's distribution API): each process batches its own data by its share."""
    processes = jax.process_count()
    if _mesh_placement(model) is None or processes == 1:
        return batch_size
    batch_size = 32 if batch_size is None else int(batch_size)
    if batch_size % processes:
        raise ValueError(f"batch_size={batch_size} (the global batch) must be a multiple of "
                         f"the number of processes, {processes}.")
    return batch_size // processes


def _same_on_every_process(what: str, value: int) -> None:
    """Processes running different numbers of steps would wait for each other forever."""
    if jax.process_count() > 1:
        from jax.experimental import multihost_utils

        multihost_utils.assert_equal(value, f"Every process must run the same number of "
                                            f"{what}: this one has {value}.")


def _capped_epochs(epochs):
    """``epochs``, capped by ``kgraph.config.set_max_epochs`` (with Keras's warning)."""
    cap = kg_config.max_epochs()
    if cap and cap < epochs:
        warnings.warn(f"Limiting epochs to {cap}", stacklevel=3)
        return cap
    return epochs


def _capped_steps(steps):
    """``steps`` (per epoch), capped by ``kgraph.config.set_max_steps_per_epoch``."""
    cap = kg_config.max_steps_per_epoch()
    if cap and (not steps or cap < steps):
        warnings.warn(f"Limiting steps_per_epoch to {cap}", stacklevel=3)
        return cap
    return steps


def _make_data(x, y, sample_weight, batch_size, class_weight, steps, *, targets=True):
    if _is_iterable_source(x):
        if y is not None or sample_weight is not None:
            raise ValueError("When x is an iterable of batches, y and sample_weight must be "
                             "None: the iterable yields (x, y) or (x, y, sample_weight).")
        return data_lib.IterableData(x, steps=steps, targets=targets,
                                     class_weight=class_weight)
    if targets and y is None:
        raise ValueError("Targets are missing: pass y (or an iterable of (x, y) batches).")
    batch_size = data_checks.check_batch_size(batch_size)
    return data_lib.ArrayData(x, y, sample_weight, batch_size=batch_size or 32,
                              class_weight=class_weight)


def _first_rows(arrays, steps, batch_size):
    """In-memory ``(x, y, sample_weight)`` cut to their first ``steps`` batches (for a
    model's own ``test_step`` / ``predict_step``, which read whole arrays)."""
    if not steps or _is_iterable_source(arrays[0]):
        return arrays
    rows = int(steps) * (batch_size or 32)
    return jax.tree_util.tree_map(lambda a: np.asarray(a)[:rows], arrays)


def _first_batches(data, steps):
    """In-memory ``data`` cut to its first ``steps`` batches, as Keras's ``evaluate`` and
    ``predict`` read them (an iterable already stops after ``steps``)."""
    if not isinstance(data, data_lib.ArrayData) or not steps or int(steps) >= data.steps:
        return data  # steps None or 0: all of it, as Keras
    x, y, sample_weight = _first_rows(data.arrays, steps, data.batch_size)
    return data_lib.ArrayData(x, y, sample_weight, batch_size=data.batch_size)


def _fewer_rows_than_a_batch(model, data):
    """In-memory data smaller than one batch, batched by the next power of two of its size
    instead (``predict(x[:1])`` on a conv net runs 1 row, not 32): at most one extra
    compiled program per power of two. Kept as it is for a model whose inputs fix their
    batch size or that runs on a mesh (the batch must split over its devices)."""
    if (not isinstance(data, data_lib.ArrayData) or data.size >= data.batch_size
            or jax.process_count() > 1 or _mesh_placement(model) is not None
            or any(getattr(t, "shape", (None,))[:1] != (None,)
                   for t in getattr(model, "inputs", None) or ())):
        return data
    x, y, sample_weight = data.arrays
    return data_lib.ArrayData(x, y, sample_weight, batch_size=1 << (data.size - 1).bit_length())


def _fixed_batch_size(model):
    """The batch size ``model``'s inputs fix (``Input(batch_size=...)``), else None."""
    if not model.built:
        return None
    sizes = {t.shape[0] for t in getattr(model, "inputs", None) or ()
             if getattr(t, "shape", (None,))[:1] != (None,)}
    return sizes.pop() if len(sizes) == 1 else None


def _one_batch_if_smaller(model, data):
    """In-memory data smaller than one batch, for a model whose inputs fix their batch
    size: batched by that size (padded up to it if smaller), as the inputs take it."""
    fixed = _fixed_batch_size(model)
    if (not isinstance(data, data_lib.ArrayData) or data.size >= data.batch_size
            or fixed is None or fixed == data.batch_size):
        return data
    x, y, sample_weight = data.arrays
    made = data_lib.ArrayData(x, y, sample_weight, batch_size=fixed)  # (weights merged)
    made.shuffle = data.shuffle
    return made


def _check_inputs(model, data):
    """Input structure errors (e.g. a dict missing an input) before training starts."""
    if (isinstance(data, data_lib.ArrayData) and model.built
            and hasattr(model, "_flatten_inputs")):
        model._flatten_inputs(data.arrays[0])


def _check_labels(model, trainer, data, what="y"):
    """Sparse labels in range, for in-memory targets (see ``data_checks``)."""
    if isinstance(data, data_lib.ArrayData) and data.arrays[1] is not None:
        objective = trainer.objective
        names = getattr(objective, "names", None)
        if names:
            data_checks.check_sparse_labels(objective, data.arrays[1],
                                            data_checks.output_shapes(model, len(names)), what)


def _validation(validation_data, batch_size):
    if validation_data is None:
        return None
    if _is_iterable_source(validation_data):
        return data_lib.IterableData(validation_data)
    if not isinstance(validation_data, (tuple, list)) or len(validation_data) not in (2, 3):
        raise ValueError("validation_data must be (x, y), (x, y, sample_weight) or an "
                         "iterable of such batches.")
    return data_lib.ArrayData(*validation_data, batch_size=batch_size, source="validation_data")


def fit(model, x=None, y=None, batch_size=None, epochs=1, verbose="auto", callbacks=None,
        validation_split=0.0, validation_data=None, shuffle=True, class_weight=None,
        sample_weight=None, initial_epoch=0, steps_per_epoch=None, validation_steps=None,
        validation_batch_size=None, validation_freq=1):
    """Train ``model``; returns a ``History`` of per-epoch logs (see ``Model.fit``)."""
    epochs, steps_per_epoch = _capped_epochs(epochs), _capped_steps(steps_per_epoch)
    data_checks.check_fit_arguments(epochs, initial_epoch, steps_per_epoch, validation_freq,
                                    validation_steps)
    if validation_split and _is_iterable_source(x):
        raise ValueError("validation_split needs array inputs; pass validation_data when x "
                         "is an iterable of batches.")
    if validation_split and validation_data is None:  # validation_data wins, as in Keras
        (x, y, sample_weight), validation_data = data_lib.split_validation(
            x, y, sample_weight, validation_split)
    data_checks.check_class_weight(class_weight,
                                   data_checks.num_classes(model) if model.built else None)
    batch_size = _process_batch_size(model, batch_size)
    if validation_batch_size is not None:  # else it follows batch_size, as on one process
        validation_batch_size = _process_batch_size(model, validation_batch_size)
    data = _one_batch_if_smaller(model, _make_data(
        x, y, sample_weight, batch_size, class_weight, steps_per_epoch,
        targets=_has_compiled_loss(model)))  # (else x alone: add_loss)
    _check_inputs(model, data)
    if shuffle not in (True, False, "batch"):
        raise ValueError(f"shuffle must be True, False or 'batch', received {shuffle!r}.")
    if isinstance(data, data_lib.ArrayData):
        data.shuffle = shuffle
        _same_on_every_process("batches per epoch", data.steps)
    val_batch = data_checks.check_batch_size(validation_batch_size, "validation_batch_size")
    val_data = _one_batch_if_smaller(model, _validation(validation_data,
                                                        val_batch or batch_size or 32))
    validation_steps = _capped_steps(validation_steps) if val_data is not None else None
    if val_data is not None and isinstance(val_data, data_lib.IterableData):
        val_data.steps = validation_steps
    val_data = _first_batches(val_data, validation_steps)
    if isinstance(data, data_lib.ArrayData) and steps_per_epoch is not None:
        # an epoch runs whole executions, as Keras's: steps_per_epoch rounded up to them
        per_execution = int(getattr(model, "steps_per_execution", 1) or 1)
        data.steps_per_epoch = -(-int(steps_per_epoch) // per_execution) * per_execution
    if keras_protocol.uses_own_steps(model, "train_step", "compute_loss"):
        _build_on_first_batch(model, data)
        return custom_steps.fit(model, data, val_data, epochs=epochs, verbose=verbose,
                                callbacks=callbacks, shuffle=shuffle,
                                initial_epoch=initial_epoch, steps_per_epoch=steps_per_epoch,
                                validation_freq=validation_freq)
    setup = TrainingSetup.of(model)
    trainer = setup.trainer_for(model, _first_batch(model, data))
    if not model.built:
        raise ValueError(f"Model {model.name!r} is not built; build it (call it on an input) "
                         "before fitting it on an iterable.")
    _check_labels(model, trainer, data)
    if isinstance(val_data, data_lib.ArrayData):
        _check_inputs(model, val_data)
        _check_labels(model, trainer, val_data, "validation_data")
        data_checks.check_validation(trainer, val_data)
    steps = (min(steps_per_epoch or data.steps, data.steps)
             if isinstance(data, data_lib.ArrayData) else steps_per_epoch)
    model.stop_training = False
    loop = fit_loop.FitLoop(model, trainer, trainer.init_from_model(
        setup.train_key, setup.opt_state),
        data_seed=(setup.seed, setup.fits))
    loop.initial_epoch = initial_epoch
    if hasattr(trainer.optimizer, "_bind"):  # model.optimizer.learning_rate: the running one
        trainer.optimizer._bind(loop)
    callback_list = CallbackList(callbacks, model=model, loop=loop, add_history=True,
                                 add_progbar=verbose != 0, verbose=verbose, epochs=epochs,
                                 steps=steps)
    loop.callbacks = callback_list
    loop.remake_trainer = lambda: setup.remade_trainer(model)
    setup.fits += 1
    setup.running = loop
    logs = {}
    failing = True
    loop.bind()  # the model's variables read and write the running train state
    try:
        callback_list.on_train_begin()  # a BackupAndRestore may resume a run here
        if loop.resumed and getattr(data, "one_shot", False):
            warnings.warn("Resuming a run whose data is a one-shot iterator (a generator): "
                          "it starts again from its first batch, so the resumed run does "
                          "not see the batches the interrupted one would have. Pass a "
                          "re-iterable (a list, or an object whose __iter__ starts over) "
                          "to resume exactly.", RuntimeWarning, stacklevel=2)
        skip = loop.initial_step
        for epoch in range(loop.initial_epoch, epochs):
            loop.epoch = epoch
            if not skip:
                loop.train_state = trainer.reset_metrics(loop.train_state)
            epoch_start = loop.global_step - skip
            loop.step_in_epoch = skip
            callback_list.on_epoch_begin(epoch)
            passes, window = epoch, None
            if isinstance(data, data_lib.ArrayData):
                passes, *window = data.window(epoch - initial_epoch)
                passes += initial_epoch
            done = fit_loop.train_epoch(
                loop, callback_list, data, skip=skip, window=window,
                shuffle_rng=loop.shuffle_rng(passes) if shuffle else None,
                steps_per_execution=setup.steps_per_execution)
            skip = 0
            if done == 0:
                warnings.warn(f"The training data ran out at epoch {epoch + 1}: the "
                              "iterable produced no batches. Training stopped. Pass a "
                              "re-iterable (e.g. a list), or steps_per_epoch with an "
                              "endless generator.", RuntimeWarning, stacklevel=2)
                break
            metrics, trainer = loop.train_state.metrics, loop.trainer
            logs = fit_loop._epoch_logs(trainer, metrics)
            fit_loop._check_finite(loop, metrics, epoch_start, callback_list)
            if val_data is not None and (epoch + 1) % validation_freq == 0:
                callback_list.on_test_begin()
                val_logs, assigned = fit_loop.evaluate_data(
                    trainer, loop.train_state, val_data, callback_list,
                    steps_per_execution=model.steps_per_execution)
                if assigned is not None:  # as Keras: training goes on from that state
                    loop.train_state = loop.train_state._replace(state=assigned)
                callback_list.on_test_end(val_logs)
                logs.update({f"val_{k}": v for k, v in val_logs.items()})
            callback_list.on_epoch_end(epoch, logs)
            if loop.stop_training:
                break
        finalized = getattr(trainer.optimizer, "_finalized", None)  # Keras's finalization:
        ts = loop.train_state  # (the moving averages of use_ema)
        params = None if finalized is None else finalized(ts.opt_state, ts.params)
        if params is not None:
            loop.train_state = ts._replace(params=params)
        callback_list.on_train_end(logs)
        record_metrics(model, _last_metrics(logs))
        failing = False
    finally:
        loop.unbind()  # the variables hold the trained weights again
        ts, trainer = loop.train_state, loop.trainer
        setup.opt_state, setup.running = ts.opt_state, None
        setup.rest(trainer.optimizer, model)  # its variables: what the next fit resumes
        setup.train_key = jax.random.fold_in(ts.key, ts.step)  # next fit draws new masks
        _run_exit(callback_list, failing)
    model.history = callback_list.history
    return model.history


def _last_metrics(logs) -> dict:
    """What the model's metrics hold after ``fit``, as Keras's: the last validation's
    results if it ran in the last epoch (its ``evaluate`` reset them), else the last
    epoch's."""
    validation = {k[len("val_"):]: v for k, v in logs.items() if k.startswith("val_")}
    return validation or {k: v for k, v in logs.items() if k != "learning_rate"}


def _run_exit(callback_list, failing: bool) -> None:
    """The callbacks' ``on_run_exit`` (background checkpoint writes finish here). Its error
    is raised, unless fit is already failing: then it is a warning, and fit's own error
    is the one raised."""
    try:
        callback_list.on_run_exit()
    except Exception as error:
        if not failing:
            raise
        warnings.warn(f"While fit was failing, finishing its callbacks failed too: "
                      f"{type(error).__name__}: {error}", RuntimeWarning, stacklevel=3)


def evaluate(model, x=None, y=None, batch_size=None, verbose="auto", sample_weight=None,
             steps=None, callbacks=None, return_dict=False):
    """Mean loss and metrics over ``(x, y)`` (padded batches; one compiled program)."""
    steps = _capped_steps(steps)
    data = _first_batches(_make_data(x, y, sample_weight, _process_batch_size(model, batch_size),
                                     None, steps, targets=_has_compiled_loss(model)), steps)
    data = _one_batch_if_smaller(model, data)
    _check_inputs(model, data)
    if isinstance(data, data_lib.ArrayData):
        _same_on_every_process("batches to evaluate", data.steps)
    if keras_protocol.uses_own_steps(model, "test_step", "metrics", "compute_loss"):
        _build_on_first_batch(model, data)
        logs = custom_steps.evaluate(model, data, verbose, callbacks)
        record_metrics(model, logs)
        return keras_results(model.metrics, logs, return_dict)
    setup = TrainingSetup.of(model)
    trainer = setup.trainer_for(model, _first_batch(model, data))
    _check_labels(model, trainer, data)
    callback_list = CallbackList(callbacks, model=model, add_history=False,
                                 add_progbar=verbose != 0, verbose=verbose, epochs=1,
                                 steps=data.steps)
    model.stop_evaluating = False
    callback_list.on_test_begin()
    state = trainer.init_from_model(setup.train_key, opt_state=(), read_only=True)
    logs, assigned = fit_loop.evaluate_data(trainer, state, data, callback_list, model,
                                            model.steps_per_execution)
    trainer.keep_state(assigned)
    callback_list.on_test_end(logs)
    record_metrics(model, logs)
    return keras_results(model.metrics, logs, return_dict)


def predict(model, x, batch_size=None, verbose="auto", steps=None, callbacks=None):
    """Model outputs for ``x`` as NumPy arrays (padded batches; one compiled program)."""
    steps = _capped_steps(steps)
    data = _first_batches(_make_data(x, None, None, _process_batch_size(model, batch_size), None,
                                     steps, targets=False), steps)
    data = _one_batch_if_smaller(model, _fewer_rows_than_a_batch(model, data))
    _check_inputs(model, data)
    if isinstance(data, data_lib.ArrayData):
        _same_on_every_process("batches to predict", data.steps)
    if keras_protocol.uses_own_steps(model, "predict_step"):
        _build_on_first_batch(model, data)
        return custom_steps.predict(model, data, verbose, callbacks)
    predictor = TrainingSetup.of(model).predictor_for(model, _first_batch(model, data))
    callback_list = CallbackList(callbacks, model=model, add_history=False,
                                 add_progbar=verbose != 0, verbose=verbose, epochs=1,
                                 steps=data.steps)
    model.stop_predicting = False
    callback_list.on_predict_begin()
    ts = predictor.init_from_model(_predict_key(model), opt_state=(), read_only=True)
    outputs, assigned = fit_loop.predict_data(predictor, ts, data, callback_list, model,
                                              model.steps_per_execution)
    predictor.keep_state(assigned)
    callback_list.on_predict_end()
    return outputs

