"""``Objective``: a model's compiled losses and metrics over its (possibly many) outputs.

It resolves Keras-style ``loss``/``metrics``/``loss_weights`` arguments (one value, a list
aligned with the outputs, or a dict keyed by output name) into per-output losses and
metrics, computes the weighted total loss, and keeps every log value as a stateless
metric pytree so a whole epoch accumulates on the device.

Padding: ``valid`` is a ``(batch,)`` 0/1 vector marking the real rows of a padded batch.
It enters losses as a Keras mask (so a padded batch gives the unpadded batch's value) and
metrics as a sample weight, combined with the output's own Keras mask if it has one. A
loss that cannot be masked (``Objective.masks_rows``) gets unpadded batches instead.

>>> import jax.numpy as jnp, kgraph as kg
>>> x = kg.Input(shape=(4,))
>>> objective = Objective(kg.Model(x, kg.layers.Dense(2, name="out")(x)), "mse", ["mae"])
>>> states = objective.init_metrics()
>>> total, per_output = objective.loss(jnp.zeros((3, 2)), jnp.ones((3, 2)))
>>> float(total), sorted(objective.results(states))
(1.0, ['loss', 'mae'])
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from kgraph import tree
from kgraph.base import call_args
from kgraph.losses import losses as losses_lib
from kgraph.metrics import metrics as metrics_lib
from runtime import loss_terms

__all__ = ["NONFINITE_STEP", "Objective", "metric_log_names", "output_names", "structure_of"]


NONFINITE_STEP = "__first_nonfinite_step"  # metric-state entry: first step with a bad loss


def _has_dict_outputs(model) -> bool:
    treedef = getattr(model, "_out_treedef", None)
    outputs = list(getattr(model, "outputs", None) or ())
    if treedef is None or not outputs:
        return False
    return isinstance(jax.tree_util.tree_unflatten(treedef, list(range(len(outputs)))), dict)


def structure_of(model, given=None):
    """The model's output structure as a structure of flat output positions (one output:
    ``0``): ``given`` (what the runtime saw the model return), the functional graph's or
    the traced call's; None when unknown."""
    if given is not None:
        return given
    treedef = getattr(model, "_out_treedef", None) or getattr(model, "_output_structure", None)
    if treedef is None or not getattr(model, "outputs", None):
        return None
    return jax.tree_util.tree_unflatten(treedef, list(range(treedef.num_leaves)))


def _layer_names(model) -> list[str] | None:
    """Keras's ``output_names``: the layers producing the outputs (None if unknown)."""
    outputs = list(getattr(model, "outputs", None) or ())
    histories = [getattr(t, "_keras_history", None) for t in outputs]
    if not outputs or any(h is None for h in histories):
        return None
    return _deduped([h[0].name for h in histories])


def _deduped(names) -> list[str]:
    """``names`` with each repeat numbered (``dense``, ``dense_1``), as Keras names outputs."""
    seen: dict = {}
    result = []
    for name in names:
        if name in seen:
            seen[name] += 1
            name = f"{name}_{seen[name]}"
        else:
            seen[name] = 0
        result.append(name)
    return result


def _path_names(structure) -> list[str]:
    """Names of a structure's leaves by their paths (``"a/b"``; a list position
    ``output_<i>``): the outputs of a model whose output tensors are unknown."""
    names = []

    def walk(node, path):
        if isinstance(node, dict):
            for key in sorted(node):
                walk(node[key], path + (str(key),))
        elif isinstance(node, (list, tuple)):
            for i, item in enumerate(node):
                walk(item, path + (f"output_{i}",) if not path else path + (str(i),))
        else:
            names.append("/".join(path) or "output")

    walk(structure, ())
    return names


def output_names(model) -> list[str]:
    """Keras's output names: dict keys for dict outputs (their paths, ``"a/b"``, when
    nested), else the producing layers' names."""
    outputs = list(getattr(model, "outputs", None) or ())
    if _has_dict_outputs(model):
        example = jax.tree_util.tree_unflatten(model._out_treedef, list(range(len(outputs))))
        if len(example) != len(outputs):  # nested
            return _path_names(example)
        return [str(k) for k in sorted(example)]
    histories = [getattr(tensor, "_keras_history", None) for tensor in outputs]
    names = _deduped([f"output_{i}" if history is None else history[0].name
                      for i, history in enumerate(histories)])
    return names or ["output"]


def metric_log_names(specs) -> list[str]:
    """The log name of each metric, as Keras 3 names them (``CompileMetrics.result``).

    ``specs``: ``(output name or None for a single-output model, metric name, weighted)``,
    plain metrics first, output by output, then the weighted ones. A name is
    ``<output>_<metric>`` (``<metric>`` for one output); a repeated plain name gets
    ``_1``, ``_2``...; a weighted metric whose name is taken becomes
    ``<output>_weighted_<metric>`` (then numbered alike).

    >>> metric_log_names([(None, "accuracy", False), (None, "accuracy", True)])
    ['accuracy', 'weighted_accuracy']
    >>> metric_log_names([("cls", "accuracy", False), ("cls", "accuracy", True),
    ...                   ("cls", "mae", False), ("cls", "mae", False)])
    ['cls_accuracy', 'cls_weighted_accuracy', 'cls_mae', 'cls_mae_1']
    """
    counters: dict = {}
    names = []
    for output, metric, weighted in specs:
        name = f"{output}_{metric}" if output else metric
        if name not in counters:
            counters[name] = 1
        elif not weighted:
            index, counters[name] = counters[name], counters[name] + 1
            name = f"{name}_{index}"
        else:
            name = f"{output}_weighted_{metric}" if output else f"weighted_{metric}"
            if name not in counters:
                counters[name] = 1
            else:
                index, counters[name] = counters[name], counters[name] + 1
                name = f"{name}_{index}"
        names.append(name)
    return names


def _per_output(value, names, what):
    """``value`` spread over the outputs: a list aligned with ``names``."""
    if isinstance(value, dict):
        unknown = sorted(set(value) - set(names))
        if unknown:
            raise ValueError(f"Invalid `{what}`: it has keys {unknown} that are not outputs "
                             f"of the model; its outputs are {names}.")
        return [value.get(n) for n in names]
    if isinstance(value, (list, tuple)) and len(names) > 1:
        if len(value) != len(names):
            raise ValueError(f"{what} is a list of {len(value)} entries, but the model has "
                             f"{len(names)} outputs {names}. Pass one entry per output, or a "
                             "dict keyed by output name.")
        return list(value)
    if len(names) == 1:
        return [value]
    raise ValueError(f"{what} must be a list or a dict for a model with outputs {names}.")


def _flat_outputs(values, count, what):
    """A model's output (or target) structure as a list of ``count`` leaves."""
    if count == 1:
        if isinstance(values, (list, tuple)) and len(values) == 1:
            return [values[0]]
        if isinstance(values, dict) and len(values) == 1:
            return list(values.values())
        return [values]
    if isinstance(values, dict):  # (a nested dict: its leaves, as the outputs flatten)
        return [values[k] for k in sorted(values)] if len(values) == count \
            else tree.flatten(values)
    leaves = list(values) if isinstance(values, (list, tuple)) else None
    if leaves is None or len(leaves) != count:
        raise ValueError(f"The model has {count} outputs, so {what} must be a list of {count} "
                         f"arrays or a dict keyed by output name; received "
                         f"{type(values).__name__}"
                         f"{f' of length {len(leaves)}' if leaves is not None else ''}.")
    return leaves


def _no_unknown_keys(tree, names, what):
    unknown = sorted(set(tree) - set(names))
    if unknown:
        raise ValueError(f"{what} has key(s) {unknown} that name no output of the model; its "
                         f"outputs are {names}.")


def _loss_logs(terms) -> list[tuple[int, str]]:
    """``(term index, log name)`` of each loss's own log (``<name>_loss``), as Keras logs
    them: none for a single loss; a name given twice logs the later loss's value, in the
    first one's place."""
    if len(terms) < 2:
        return []
    last = {f"{term.name}_loss": i for i, term in enumerate(terms)}
    ordered = dict.fromkeys(f"{term.name}_loss" for term in terms)
    return [(last[name], name) for name in ordered]


def _targets(y, names, covered=None):
    """``y`` as a list aligned with the outputs (dicts are keyed by output name; nested
    targets are flattened as Keras flattens them). ``covered``: the outputs that have a
    loss, in order: targets for those alone are placed on them (Keras's partial labels)."""
    if isinstance(y, dict) and len(names) > 1:
        if set(names) <= set(y):
            _no_unknown_keys(y, names, "y")
            return [y[n] for n in names]
        leaves = tree.flatten(y)
        if len(leaves) == len(names) and not set(y) - {n.split("/")[0] for n in names}:
            return leaves  # a nested dict of targets, flattened as the outputs are
        missing = sorted(set(names) - set(y))
        raise ValueError(f"Targets are missing output(s) {missing}; the model's outputs are "
                         f"{names}, received keys {sorted(y)}.")
    if (isinstance(y, (list, tuple)) and len(names) > 1 and covered is not None
            and len(tree.flatten(y)) == len(covered) < len(names)):
        placed = [None] * len(names)
        for index, target in zip(covered, tree.flatten(y)):
            placed[index] = target
        return placed
    if isinstance(y, (list, tuple)) and len(names) > 1 and any(
            isinstance(item, (list, tuple, dict)) for item in y):
        leaves = tree.flatten(y)
        if len(leaves) == len(names):
            return leaves
    if (not isinstance(y, (list, tuple, dict)) and len(names) > 1 and covered is not None
            and len(covered) == 1):
        placed = [None] * len(names)
        placed[covered[0]] = y
        return placed
    return _flat_outputs(y, len(names), "y")


def _weights(sample_weight, names):
    if sample_weight is None:
        return [None] * len(names)
    if isinstance(sample_weight, dict):
        _no_unknown_keys(sample_weight, names, "sample_weight")
        return [sample_weight.get(n) for n in names]
    if isinstance(sample_weight, (list, tuple)):
        return _flat_outputs(sample_weight, len(names), "sample_weight")
    return [sample_weight] * len(names)


def _with_rows(weight, valid):
    """``weight`` (a mask or sample weight, or None) times the ``(batch,)`` padding
    vector ``valid`` broadcast over its trailing axes (None if both are None)."""
    if valid is None:
        return weight
    if weight is None:
        return valid
    weight = jnp.asarray(weight, jnp.float32)
    return weight * valid.reshape(valid.shape + (1,) * (weight.ndim - 1))

class Objective:
    """Losses and metrics for ``model``'s outputs, compiled from Keras-style arguments.

    Args:
      model: the model (its outputs give the names and count).
      loss: a loss (name, ``kgraph.losses.Loss`` or callable), a list aligned with the
        outputs, or a dict keyed by output name (None entries: no loss for that output).
      metrics: a list of metrics (applied to every output of a multi-output model), a list
        of lists aligned with the outputs, or a dict keyed by output name.
      loss_weights: a float, list or dict scaling each output's loss in the total.
    """

    def __init__(self, model, loss, metrics=(), loss_weights=None, weighted_metrics=None,
                 require_loss=True, output_structure=None, names=None):
        if loss is None and require_loss:
            raise ValueError("Training needs a loss, e.g. compile(loss='mse').")
        structure = structure_of(model, output_structure)
        if names is not None:  # given with the structure (``runtime.compile_utils``)
            paths = _path_names(structure)
            self.names = [path if name is None else name for name, path in zip(names, paths)]
            keras_names = None if None in names else list(names)
            prefixes = list(names)
        elif structure is None or getattr(model, "outputs", None):
            self.names = output_names(model)
            keras_names = _layer_names(model)
        else:  # outputs known only by their structure (a layer's own call)
            self.names, keras_names = _path_names(structure), None
        if structure is None:
            structure = 0 if len(self.names) == 1 else list(range(len(self.names)))
        self.structure = structure
        multi = len(self.names) > 1
        if names is None:  # metrics are named by output (``metric_log_names``)
            prefixes = self.names
        # the losses, as Keras places them on the outputs (``runtime.loss_terms``)
        self.terms = loss_terms.loss_terms(loss, loss_weights, structure, keras_names)
        # each output's loss (its first own one), for the metrics that follow it
        self.losses = [None] * len(self.names)
        for term in reversed(self.terms):
            if isinstance(term.structure, int):
                self.losses[term.indices[0]] = term.loss
        self.has_loss = bool(self.terms)
        if not self.has_loss and require_loss:
            raise ValueError(f"No loss given for any output of the model {self.names}.")
        # As Keras 3: ``metrics`` ignore sample and class weights; ``weighted_metrics`` use
        # them. Log names as Keras builds them (``metric_log_names``).
        made = []
        for weighted, group in ((False, metrics), (True, weighted_metrics)):
            for index, specs in enumerate(self._metric_specs(group)):
                for spec in specs:
                    if spec is None:
                        raise ValueError("compile: Expected metric, received `None` (a "
                                         f"metric of output {self.names[index]!r}); give "
                                         "a name, a Metric, a Loss or a callable.")
                    metric = metrics_lib.get(spec, self.losses[index])
                    if hasattr(metric, "build_for_output") and getattr(model, "outputs", None):
                        metric.build_for_output(tuple(model.outputs[index].shape))
                    made.append((index, metrics_lib.name_of(metric), metric, weighted))
        names = metric_log_names([(prefixes[index] if multi else None, name, weighted)
                                  for index, name, _, weighted in made])
        self.weighted = {name for name, (*_, weighted) in zip(names, made) if weighted}
        self.metrics: list[tuple[int, str, object]] = [  # (output index, log name, metric)
            (index, name, metric) for name, (index, _, metric, _) in zip(names, made)]
        # (term index, log name) of each loss's log, in Keras's order
        self.loss_logs = _loss_logs(self.terms)
        self.log_names = ["loss"] + [name for _, name in self.loss_logs]
        self.log_names += [name for _, name, _ in self.metrics]
        duplicates = sorted({n for n in self.log_names if self.log_names.count(n) > 1})
        if duplicates:
            raise ValueError(f"Metric names {duplicates} appear twice in the logs; give the "
                             "metrics distinct names.")
        self._mean = metrics_lib.Mean()

    def _metric_specs(self, metrics):
        if metrics is None:
            return [[] for _ in self.names]
        if isinstance(metrics, str) or callable(metrics):
            metrics = [metrics]
        spread = _spread_over(self.structure, metrics) if len(self.names) > 1 else None
        if isinstance(metrics, dict):
            if spread is not None and not set(metrics) <= set(self.names):
                return [self._as_list(m) for m in spread]
            return [self._as_list(m) for m in _per_output(metrics, self.names, "metrics")]
        metrics = list(metrics)
        nested = any(isinstance(m, (list, tuple, dict)) for m in metrics)
        if nested and len(self.names) > 1:
            if spread is not None and len(metrics) != len(self.names):
                return [self._as_list(m) for m in spread]
            return [self._as_list(m) for m in _per_output(metrics, self.names, "metrics")]
        if nested:
            metrics = [m for group in metrics for m in self._as_list(group)]
        return [metrics for _ in self.names]

    @staticmethod
    def _as_list(specs):
        if specs is None:
            return []
        return [specs] if isinstance(specs, str) or callable(specs) else list(specs)

    # --------------------------------------------------------------- checking
    def _covered(self) -> list[int]:
        """The outputs some loss covers, in order."""
        return sorted({i for term in self.terms for i in term.indices})

    def _aligned(self, y, y_pred):
        """``(targets, predictions)`` as lists aligned with the outputs."""
        return (_targets(y, self.names, self._covered()),
                _flat_outputs(y_pred, len(self.names), "the model outputs"))

    def check(self, y, y_pred) -> None:
        """Static checks of targets against outputs (shapes/dtypes; raise clear errors)."""
        targets, preds = self._aligned(y, y_pred)
        for term in self.terms:
            missing = [self.names[i] for i in term.indices if targets[i] is None]
            if missing:
                raise ValueError(f"No target given for output {missing[0]!r}, which has a "
                                 "loss.")
            check = getattr(term.loss, "check", None)
            if check is not None and isinstance(term.structure, int):
                index = term.indices[0]
                try:
                    check(targets[index], preds[index])
                except ValueError as error:
                    prefix = f"Output {self.names[index]!r}: " if len(self.names) > 1 else ""
                    raise ValueError(f"{prefix}{error}") from None

    def masks_rows(self, y, y_pred) -> bool:
        """Whether every loss gives a batch padded with weight-0 rows the value of its
        real rows alone (shapes suffice: call it on ``jax.eval_shape``'s tracers). A loss
        that overrides ``__call__`` without ``mask`` or returns one value for the whole
        batch cannot, nor can a metric with its own ``update_state`` (it may ignore the
        sample weights that leave padding out): their batches must come unpadded."""
        if any(getattr(metric, "_by_update_state", False) for _, _, metric in self.metrics):
            return False  # a metric's own update_state may not weigh its samples
        targets, preds = self._aligned(y, y_pred)
        return all(_leaves_rows_out(term.loss, *self._term_values(term, targets, preds))
                   for term in self.terms
                   if all(targets[i] is not None for i in term.indices))

    @staticmethod
    def _term_values(term, targets, preds):
        """A term's ``(y_true, y_pred)``: one output's, or its substructure's."""
        if isinstance(term.structure, int):
            return targets[term.indices[0]], preds[term.indices[0]]
        return (loss_terms.pack_as(term.structure, [targets[i] for i in term.indices]),
                loss_terms.pack_as(term.structure, [preds[i] for i in term.indices]))

    # ------------------------------------------------------------------- loss
    def loss(self, y, y_pred, sample_weight=None, valid=None, masks=None):
        """``(total, per_term)``: the weighted total loss and each loss's (unweighted)
        value, in the order of ``terms``."""
        targets, preds = self._aligned(y, y_pred)
        weights = _weights(sample_weight, self.names)
        masks = masks if masks is not None else [None] * len(self.names)
        total, per_term = jnp.zeros((), jnp.float32), []
        for term in self.terms:
            t, p = self._term_values(term, targets, preds)
            first = term.indices[0]
            mask = masks[first] if isinstance(term.structure, int) else None
            value = _apply_loss(term.loss, t, p, weights[first], _with_rows(mask, valid))
            per_term.append(value)
            total = total + value.astype(jnp.float32) * (  # (a weight may be an array)
                1.0 if term.weight is None else jnp.asarray(term.weight, jnp.float32))
        return total, per_term

    # ---------------------------------------------------------------- metrics
    def init_metrics(self, previous=None) -> dict:
        """Fresh metric states for every log value (plus the non-finite-loss tracker).
        With ``previous`` (the states so far, e.g. at a new epoch), a metric whose class
        has its own ``reset_state`` gets what that makes of its state (Keras resets the
        metrics with their ``reset_state``: one may keep what it saw)."""
        states = {"loss": self._mean.init()}
        for _, name in self.loss_logs:
            states[name] = self._mean.init()
        for _, name, metric in self.metrics:
            if previous is not None and name in previous and _resets_itself(metric):
                with metric._holding(previous[name]):
                    metric.reset_state()
                    states[name] = metric._current()
            else:
                states[name] = metric.init()
        states[NONFINITE_STEP] = jnp.full((), -1, jnp.int32)
        return states

    def update_metrics(self, states, y, y_pred, total, per_term, *, sample_weight=None,
                       valid=None, masks=None, step=None):
        """States updated with one batch (``valid`` weights padding rows 0)."""
        targets, preds = self._aligned(y, y_pred)
        weights = _weights(sample_weight, self.names)
        masks = masks if masks is not None else [None] * len(self.names)
        rows = (jnp.sum(valid) if valid is not None
                else jnp.asarray(_batch_size(preds), jnp.float32))
        new = dict(states)
        new["loss"] = self._mean.update(states["loss"], total, rows)
        for index, name in self.loss_logs:
            new[name] = self._mean.update(states[name], per_term[index], rows)
        new.update(self.update_metric_states(states, targets, preds, sample_weight=weights,
                                             valid=valid, masks=masks, aligned=True))
        bad = states[NONFINITE_STEP]
        if step is not None:
            new[NONFINITE_STEP] = jnp.where((bad < 0) & ~jnp.isfinite(total),
                                            step.astype(jnp.int32), bad)
        return new

    def update_metric_states(self, states, y, y_pred, *, sample_weight=None, valid=None,
                             masks=None, aligned=False) -> dict:
        """The compiled metrics' states (``states[name]``) updated with one batch: plain
        metrics unweighted, weighted ones by ``sample_weight`` (as Keras 3); ``valid``
        weights padding rows 0. ``aligned``: ``y``, ``y_pred`` and ``sample_weight`` are
        already lists aligned with the outputs."""
        if not aligned:
            y, y_pred = self._aligned(y, y_pred)
            sample_weight = _weights(sample_weight, self.names)
        masks = masks if masks is not None else [None] * len(self.names)
        new = {}
        for index, name, metric in self.metrics:
            weight = sample_weight[index] if name in self.weighted else None
            mask = masks[index]
            if not getattr(metric, "_by_update_state", False):  # (those never see padding:
                if weight is None:  # ``masks_rows``); an unweighted metric stays unweighted
                    mask = _with_rows(mask, valid)
                else:
                    weight = _with_rows(weight, valid)
            new[name] = metric.update(states[name], y[index], y_pred[index],
                                      sample_weight=weight, mask=mask)
        return new

    def results(self, states) -> dict:
        """Log values (scalars) from metric states, in Keras order: loss, then metrics."""
        out = {"loss": self._mean.result(states["loss"])}
        for _, name in self.loss_logs:
            if name in states:
                out[name] = self._mean.result(states[name])
        for _, name, metric in self.metrics:
            out[name] = metric.result(states[name])
        return out


def _resets_itself(metric) -> bool:
    """Whether ``metric``'s class overrides ``reset_state`` (outside kgraph's metrics)."""
    reset = getattr(type(metric), "reset_state", None)
    return reset is not None and not reset.__module__.startswith("kgraph.")


def _spread_over(structure, metrics):
    """``metrics`` given in the nested structure of the outputs (Keras's deeply nested
    case): the metrics at each output leaf, in flat order; None if the structures differ
    (lists and tuples alike; a dict may leave outputs out)."""
    spread = {}

    def walk(node, given):
        if not tree.is_nested(node):
            spread[node] = given
            return True
        if given is None:
            return all(walk(child, None) for child in tree.flatten(node) or [])
        if isinstance(node, dict):
            return isinstance(given, dict) and not set(given) - set(node) and all(
                walk(node[key], given.get(key)) for key in sorted(node))
        return (isinstance(given, (list, tuple)) and len(given) == len(node)
                and all(walk(child, part) for child, part in zip(node, given)))

    if not walk(structure, metrics):
        return None
    return [spread[position] for position in sorted(spread)]


def _batch_size(preds):
    for p in preds:
        shape = getattr(p, "shape", ())
        if shape:
            return shape[0]
    return 1


def _apply_loss(loss_fn, y_true, y_pred, sample_weight, mask):
    """A loss object's Keras reduction; plain callables get the same reduction. A ``Loss``
    that overrides ``__call__`` without ``mask`` is called as Keras calls it,
    ``loss(y_true, y_pred, sample_weight)``: it cannot leave rows out (``masks_rows``)."""
    if isinstance(loss_fn, losses_lib.Loss):
        if not _takes_mask(loss_fn):
            return loss_fn(y_true, y_pred, sample_weight)
        return loss_fn(y_true, y_pred, sample_weight=sample_weight, mask=mask)
    return losses_lib.reduce_weighted(loss_fn(y_true, y_pred), sample_weight, mask)


def _takes_mask(loss_fn) -> bool:
    """Whether the ``Loss`` ``loss_fn`` is called with ``mask=``: its ``__call__`` is
    ``Loss``'s or takes ``mask``."""
    call = type(loss_fn).__call__
    return call is losses_lib.Loss.__call__ or call_args.accepts(call, "mask")


def _leaves_rows_out(loss_fn, y_true, y_pred) -> bool:
    """Whether ``loss_fn`` gives a padded batch its real rows' value when the padding rows
    are masked: it takes the mask and its unreduced values keep the batch axis."""
    if isinstance(loss_fn, losses_lib.Loss):
        if type(loss_fn).__call__ is not losses_lib.Loss.__call__:
            return _takes_mask(loss_fn)
        return jnp.ndim(loss_fn.unreduced(y_true, y_pred)[0]) > 0
    return jnp.ndim(loss_fn(y_true, y_pred)) > 0
