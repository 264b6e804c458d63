"""Keras's ``CompileLoss`` and ``CompileMetrics`` (``keras.src.trainers.compile_utils``):
``compile``'s ``loss`` and ``metrics`` over a structure of outputs, as objects with Keras's
stateful API. Both resolve their arguments with ``runtime.objective.Objective``, the code
``fit`` trains with; they only add Keras's way of meeting the structures at ``build``.

>>> import numpy as np
>>> loss = CompileLoss({"a": "mse", "b": "mae"})
>>> y = {"a": np.zeros((2, 1)), "b": np.zeros((2, 1))}
>>> float(loss(y, {"a": np.ones((2, 1)), "b": np.full((2, 1), 2.0)}))
3.0
>>> [m.name for m in loss.metrics]
['a_loss', 'b_loss']
>>> metrics = CompileMetrics(["mae"], ["mae"])
>>> metrics.update_state(np.zeros((2, 1)), np.ones((2, 1)), np.array([1.0, 0.0]))
>>> {name: float(value) for name, value in metrics.result().items()}
{'mae': 1.0, 'weighted_mae': 1.0}
"""

from __future__ import annotations

import collections

import jax.numpy as jnp

from kgraph import tree
from kgraph.losses import losses as losses_lib
from kgraph.metrics import metric as metric_base, reduction_metrics
from runtime.objective import Objective

__all__ = ["CompileLoss", "CompileMetrics"]


def _positions(structure):
    """``structure`` with each leaf replaced by its flat position (one leaf: ``0``)."""
    return tree.pack_sequence_as(structure, range(len(tree.flatten(structure))))


def _shape(value):
    shape = getattr(value, "shape", None)
    return tuple(shape) if shape is not None else tuple(jnp.shape(value))


def _check_container(value, argument):
    if value and not isinstance(value, (list, tuple, dict)):
        raise ValueError(f"Expected `{argument}` argument to be a list, tuple, or dict. "
                         f"Received instead: {argument}={value} of type {type(value)}")


def _built_flag() -> property:
    """``built``: a flag, or a function telling whether the model built the object yet."""
    def read(self) -> bool:
        built = self.__dict__.get("_built", False)
        return bool(built() if callable(built) else built)

    def write(self, value):
        self.__dict__["_built"] = value

    return property(read, write)


class CompileMetrics(metric_base.Metric):
    """The metrics and weighted metrics of ``compile`` as one metric whose result is a dict
    keyed by Keras's log names (``output_metric``; a repeated name numbered, a weighted one
    taken ``weighted_``). ``metrics`` ignore sample weights, ``weighted_metrics`` use them.

    Args:
      metrics, weighted_metrics: a list (every output's, or one entry per output), a dict
        keyed by output name, or a structure like the outputs'.
      output_names: the outputs' names, flat (they prefix the log names).
    """

    def __init__(self, metrics, weighted_metrics, name="compile_metric", output_names=None):
        _check_container(metrics, "metrics")
        _check_container(weighted_metrics, "weighted_metrics")
        super().__init__(name="compile_metrics")
        self._user_metrics, self._user_weighted_metrics = metrics, weighted_metrics
        self.output_names = output_names
        self._objective = None
        self._keys = None  # a flat dict's keys in output order (``_flatten_y``)
        self._flattens = True  # made by ``build`` (not from a model's ``Objective``)
        self.built = False

    @classmethod
    def compiled(cls, objective: Objective, built=True) -> CompileMetrics:
        """The compiled metrics of a model, from its ``Objective``; ``built``: a flag, or a
        function telling whether the model built them yet (Keras's first step does)."""
        made = cls(None, None)
        made._objective, made._flattens, made.built = objective, False, built
        return made

    built = _built_flag()

    def build(self, y_true, y_pred):
        """Resolve the metrics against the structure of ``y_pred`` (arrays or symbolic)."""
        count = len(tree.flatten(y_pred))
        flat = tree.is_nested(y_pred) and len(y_pred) == count
        names = self.output_names
        if flat and isinstance(y_pred, dict):  # the dict's keys, in the outputs' order
            if names and set(y_pred) == set(names):
                names = list(names)
            else:
                names = list(y_pred) if isinstance(y_pred, collections.OrderedDict) \
                    else sorted(y_pred)
        self._keys = list(names) if count > 1 and flat and names else None
        if count == 1:
            structure, metrics = 0, tree.flatten(self._user_metrics or [])
            weighted = tree.flatten(self._user_weighted_metrics or [])
        else:
            structure = list(range(count)) if flat else _positions(y_pred)
            metrics, weighted = self._user_metrics, self._user_weighted_metrics
        if names is None or len(names) != count:
            names = [None] * count
        self._objective = Objective(None, None, metrics or None, None, weighted or None,
                                    require_loss=False, output_structure=structure,
                                    names=list(names))
        self._keras_state = None
        self.built = True

    def _flatten_y(self, y):
        if isinstance(y, dict) and self._keys is not None:
            return [y[name] for name in self._keys]
        return tree.flatten(y)

    @property
    def metrics(self) -> list:
        """The metric objects, every output's plain ones then weighted ones ([] unbuilt)."""
        if not self.built:
            return []
        return [metric for _, _, metric in self._objective.metrics]

    @property
    def variables(self) -> list:
        return super().variables if self._objective is not None else []

    def init(self):
        if self._objective is None:
            raise ValueError("Cannot get result() since the metric has not yet been built.")
        return {name: metric.init() for _, name, metric in self._objective.metrics}

    def _size_from(self, y_true, y_pred):  # (``update_state`` builds on first use)
        if not self.built:
            self.build(y_true, y_pred)

    def update(self, state, y_true, y_pred, sample_weight=None, mask=None):
        if not self._flattens:  # a model's: its Objective meets the structures
            return self._objective.update_metric_states(state, y_true, y_pred,
                                                        sample_weight=sample_weight)
        y_true, y_pred = self._flatten_y(y_true), self._flatten_y(y_pred)
        if sample_weight is None:
            weights = [None] * len(y_pred)
        else:  # one weight for every output, or one per output
            weights = self._flatten_y(sample_weight)
            if len(weights) < len(y_pred):
                weights = [weights[0]] * len(y_pred)
        return self._objective.update_metric_states(state, y_true, y_pred,
                                                    sample_weight=weights, aligned=True)

    def reset_state(self):
        if self._objective is not None:
            super().reset_state()

    def result(self, state):
        return {name: metric.result(state[name]) for _, name, metric in self._objective.metrics}

    def get_config(self):
        raise NotImplementedError("CompileMetrics is made by compile; it has no config.")


class CompileLoss(losses_lib.Loss):
    """The loss of ``compile`` over a structure of outputs: one loss for every output, a
    list or dict with one per output, or a structure matching part of the outputs'. Its
    value is the sum of the losses times ``loss_weights``; with two losses or more,
    ``metrics`` holds a ``Mean`` of each (unweighted) loss, named ``<output>_loss``.

    Args:
      loss: as ``compile``'s ``loss``.
      loss_weights: a float, or a list / dict / structure with one weight per loss.
      output_names: the outputs' names, flat (they name the losses).
    """

    def __init__(self, loss, loss_weights=None, reduction="sum_over_batch_size",
                 output_names=None):
        if loss_weights and not isinstance(loss_weights, (list, tuple, dict, float)):
            raise ValueError("Expected `loss_weights` argument to be a float (single output "
                             "case) or a list, tuple, or dict (multiple output case). "
                             f"Received instead: loss_weights={loss_weights} of type "
                             f"{type(loss_weights)}")
        super().__init__(name="compile_loss", reduction=reduction)
        self._user_loss, self._user_loss_weights = loss, loss_weights
        self.output_names = output_names
        self._objective = None
        self._structure = None
        self._metrics = []
        self.built = False

    @classmethod
    def compiled(cls, objective: Objective, trackers, built) -> CompileLoss:
        """A model's compiled loss, from its ``Objective``: ``trackers()`` gives its loss
        trackers, ``built()`` whether the model built it yet (Keras's first step does)."""
        made = cls(None)
        made._objective, made._trackers, made._built = objective, trackers, built
        return made

    built = _built_flag()

    @property
    def metrics(self) -> list:
        """A ``Mean`` of each loss when there are two or more (after ``build``)."""
        trackers = self.__dict__.get("_trackers")
        return list(trackers()) if trackers is not None else self._metrics

    @property
    def variables(self) -> list:
        return [variable for metric in self._metrics for variable in metric.variables]

    def build(self, y_true, y_pred):
        """Place the losses on the structure of ``y_pred`` (arrays or symbolic)."""
        count = len(tree.flatten(y_pred))
        names = self.output_names
        if names is None or len(names) != count:
            histories = [getattr(t, "_keras_history", None) for t in tree.flatten(y_pred)]
            names = None if None in histories else [h[0].name for h in histories]
        self._structure = _positions(y_pred)
        self._objective = Objective(None, self._user_loss, None, self._user_loss_weights,
                                    require_loss=False, output_structure=self._structure,
                                    names=names if names is not None else [None] * count)
        self._metrics = ([reduction_metrics.Mean(name=f"{term.name}_loss")
                          for term in self._objective.terms]
                         if len(self._objective.terms) > 1 else [])
        self.built = True

    def _targets(self, y_true, y_pred) -> list:
        """``y_true`` flat, aligned with the outputs (partial labels on the outputs that
        have a loss), as Keras reconciles the two structures."""
        count = len(tree.flatten(y_pred))
        if not tree.is_nested(y_true) and count == 1:
            return [y_true]
        if (isinstance(y_true, dict) and isinstance(y_pred, (list, tuple))
                and self.output_names and set(self.output_names) == set(y_true)):
            return [y_true[name] for name in self.output_names]
        flat = tree.flatten(y_true)
        if len(flat) == count:
            return flat
        covered = self._objective._covered()
        if len(flat) == len(covered):
            placed = [None] * count
            for index, target in zip(covered, flat):
                placed[index] = target
            return placed
        shape = lambda structure: tree.map_structure(lambda _: "*", structure)  # noqa: E731
        raise ValueError(f"y_true and y_pred have different structures.\ny_true: "
                         f"{shape(y_true)}\ny_pred: {shape(y_pred)}\n")

    def __call__(self, y_true, y_pred, sample_weight=None):
        return self.call(y_true, y_pred, sample_weight)

    def call(self, y_true, y_pred, sample_weight=None):
        """The total loss (None when no output has a loss)."""
        if "_trackers" in self.__dict__:  # a model's: its Objective meets the structures
            return self._objective.loss(y_true, y_pred, sample_weight)[0] \
                if self._objective.terms else None
        if not self.built:
            self.build(y_true, y_pred)
        predictions = tree.flatten(y_pred)
        if len(predictions) != len(tree.flatten(self._structure)):
            raise ValueError(f"CompileLoss was built for {len(tree.flatten(self._structure))} "
                             f"outputs; received y_pred with {len(predictions)}.")
        targets = self._targets(y_true, y_pred)
        weights = sample_weight
        if tree.is_nested(sample_weight):
            weights = self._targets(sample_weight, y_pred)
        if not self._objective.terms:
            return None
        total, per_term = self._objective.loss(
            targets if len(targets) > 1 else targets[0],
            predictions if len(predictions) > 1 else predictions[0], weights)
        batch = _shape(predictions[0])[0] if _shape(predictions[0]) else 1
        for tracker, value in zip(self._metrics, per_term):
            tracker.update_state(value, sample_weight=batch)
        return total

    def get_config(self):
        raise NotImplementedError("CompileLoss is made by compile; it has no config.")
