"""``TrainingSetup``: what ``model.compile`` chose and what training carries between calls.

A model holds one in ``model._training_setup`` (made here, on its first ``compile`` or
``predict``; kgraph only carries it, never looks inside): ``compile``'s optimizer, losses
and metrics, the ``Trainer`` made from them on first use, the optimizer state and PRNG key
that carry over from one ``fit`` to the next (as in Keras), and the inference-only Trainer
``predict`` uses on a model that was never compiled. When the model's graph changes (a
Sequential's ``add`` / ``pop``), the Trainers and optimizer state made for the old graph
are dropped and remade on next use.

>>> import kgraph as kg
>>> x = kg.Input(shape=(3,))
>>> model = kg.Model(x, kg.layers.Dense(1)(x))
>>> model.compile(optimizer="sgd", loss="mse", seed=1)
>>> setup = TrainingSetup.of(model)
>>> setup is model._training_setup, setup.seed, setup.trainer is None
(True, 1, True)
>>> setup.trainer_for(model) is setup.trainer
True
"""

from __future__ import annotations

import weakref
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax

from kgraph.interpreter import context
from runtime.trainer import Trainer

__all__ = ["TrainingSetup"]


class _RestingState(NamedTuple):
    opt_state: object


class _Resting:
    """What a compiled model's optimizer is bound to between fits: ``learning_rate`` and
    ``train_state.opt_state`` read (and set) the optimizer state the next ``fit``
    continues, as a running fit's loop does during training; ``model``: the model."""

    def __init__(self, setup, model):
        self._setup = setup
        self._model = weakref.ref(model) if model is not None else lambda: None

    @property
    def model(self):
        return self._model()

    @property
    def train_state(self):
        return _RestingState(self._setup.opt_state)

    @train_state.setter
    def train_state(self, value) -> None:
        self._setup.opt_state = value.opt_state

    @property
    def learning_rate(self) -> float:
        return float(optax.tree_utils.tree_get(self._setup.opt_state, "learning_rate"))

    @learning_rate.setter
    def learning_rate(self, value) -> None:
        state = self._setup.opt_state
        old = optax.tree_utils.tree_get(state, "learning_rate")
        self._setup.opt_state = optax.tree_utils.tree_set(
            state, learning_rate=jnp.asarray(value, jnp.asarray(old).dtype))


def _first_rows(x):
    return jax.tree_util.tree_map(lambda a: np.asarray(a)[:1], x)


class TrainingSetup:
    """A model's training configuration and the state ``fit`` carries between calls.

    Attributes:
      config: ``compile``'s ``optimizer``, ``loss``, ``metrics`` and ``loss_weights``
        (None until ``compile``).
      steps_per_execution, seed: from ``compile``.
      train_key: the PRNG key the next ``fit`` starts from.
      opt_state: the optimizer state the next ``fit`` continues (None: fresh).
      running: the ``FitLoop`` of the ``fit`` running now, whose train state is newer
        than ``opt_state`` (a checkpoint saved from a callback reads it), else None.
      fits: how many ``fit`` calls ran (the shuffling seed of each).
      trainer: the Trainer made from ``config`` (None until first used).
      losses_built: whether the model trained or evaluated since ``compile`` (Keras
        builds its compiled loss, and lists each output's loss tracker, from then on).
      output_structure: a model without output tensors (a layer's own ``call``): the
        structure of its outputs, seen on the first batch (None until then).
    """

    def __init__(self):
        self.config = None
        self.steps_per_execution = 1
        self.seed = 0
        self.train_key = jax.random.PRNGKey(0)
        self.opt_state = None
        self.running = None
        self.fits = 0
        self.trainer = None
        self.losses_built = False
        self._predictor = None
        self._graph = ()  # the model's output tensors the Trainers were made for
        # the output structure of a model without output tensors, seen on its first batch
        # (its flat output positions; None: the model's outputs say it)
        self.output_structure = None

    @classmethod
    def of(cls, model) -> "TrainingSetup":
        """``model``'s setup, made (uncompiled) if it has none yet."""
        setup = getattr(model, "_training_setup", None)
        if setup is None:
            setup = model._training_setup = cls()
        return setup

    def compile(self, optimizer, loss, metrics, loss_weights, steps_per_execution, seed,
                weighted_metrics=None, placement=None, remat=None, scan_blocks=True,
                precision=None):
        """Record ``compile``'s choices. A new optimizer starts afresh; the optimizer of
        the last ``compile`` again (``compile(optimizer=model.optimizer, ...)``) keeps its
        state, step count and the run's random stream, as Keras keeps its variables."""
        previous = (self.config or {}).get("optimizer")
        keep = (previous is not None and optimizer is previous
                and (seed is None or int(seed) == self.seed))
        self.config = dict(optimizer=optimizer, loss=loss, metrics=metrics,
                           loss_weights=loss_weights, weighted_metrics=weighted_metrics,
                           placement=placement, remat=remat, scan_blocks=scan_blocks,
                           precision=precision)
        self.steps_per_execution = int(steps_per_execution)
        self.trainer = self._predictor = None
        self.losses_built = False
        for made in ("_keras_metrics", "_keras_objective", "_keras_loss_objective",
                     "_keras_compile_loss", "_stateless_program", "_custom_runner"):
            self.__dict__.pop(made, None)  # what the model's own steps made of the last one
        if keep:
            return
        for each in (previous, optimizer):  # a fresh state: the optimizers' configs rule
            if hasattr(each, "_bind"):
                each._bind(None)
        self.seed = 0 if seed is None else int(seed)
        self.train_key = jax.random.PRNGKey(self.seed)
        self.opt_state = None
        self.fits = 0

    def replace_optimizer(self, optimizer) -> None:
        """Train with ``optimizer`` from now on (Keras's ``model.optimizer = ...`` after
        ``compile``): compile's other choices stay; a new optimizer starts afresh."""
        previous = self.config["optimizer"]
        if optimizer is previous:
            return
        self.config = {**self.config, "optimizer": optimizer}
        self.trainer = self._predictor = None
        for each in (previous, optimizer):
            if hasattr(each, "_bind"):
                each._bind(None)
        self.opt_state = None

    def rest(self, optimizer, model) -> None:
        """Bind ``optimizer`` (a Keras optimizer class) to this setup's optimizer state, the
        one of compiled ``model``: after a ``fit``, or a file's state loaded."""
        if hasattr(optimizer, "_bind") and self.opt_state is not None:
            optimizer._bind(_Resting(self, model))

    def _follow_graph(self, model) -> None:
        """Forget what was made for an earlier graph of ``model``."""
        graph = tuple(getattr(model, "outputs", None) or ()) if model.built else ()
        if len(graph) == len(self._graph) and all(
                a is b for a, b in zip(graph, self._graph)):
            return
        if self._graph:
            self.trainer = self._predictor = self.opt_state = None
        self._graph = graph

    def _build_on(self, model, x) -> None:
        """Build ``model`` on the first row of ``x`` if needed; follow its graph. A model
        without output tensors (a layer's own call) shows its output structure there."""
        self._follow_graph(model)
        if x is not None and (not model.built or (
                not getattr(model, "outputs", None) and self.output_structure is None)):
            # a build, as Keras's symbolic one: what the call assigns is dropped
            with context.CallContext(collect_assignments=True):
                outputs = model(_first_rows(x))
            if not getattr(model, "outputs", None):
                leaves, treedef = jax.tree_util.tree_flatten(outputs)
                self.output_structure = jax.tree_util.tree_unflatten(
                    treedef, list(range(len(leaves))))
            self._follow_graph(model)

    def trainer_for(self, model, x=None) -> Trainer:
        """The Trainer of ``compile``'s settings, made on first use (building the model on
        the first row of ``x`` if it is not built yet)."""
        if self.config is None:
            raise RuntimeError(f"You must call model.compile(optimizer, loss, metrics) before "
                               f"training or evaluating model {model.name!r}.")
        self._build_on(model, x)
        self.losses_built = True
        if self.trainer is not None and not self.trainer.program.is_current():
            self.trainer = None  # layers frozen or unfrozen since: train what the model says
        if self.trainer is None:
            config = self.config
            self.trainer = Trainer(model, config["optimizer"], config["loss"],
                                   config["metrics"], loss_weights=config["loss_weights"],
                                   weighted_metrics=config["weighted_metrics"],
                                   placement=config["placement"], remat=config["remat"],
                                   scan_blocks=config["scan_blocks"],
                                   precision=config["precision"],
                                   output_structure=self.output_structure)
        return self.trainer

    def remade_trainer(self, model) -> Trainer:
        """A Trainer of ``compile``'s settings for ``model`` as it is now (layers frozen or
        unfrozen during ``fit``)."""
        return self.trainer_for(model)

    def predictor_for(self, model, x=None) -> Trainer:
        """The Trainer ``predict`` runs: the training one if made, else an inference-only
        one (made once); builds the model on the first row of ``x`` like ``trainer_for``."""
        self._build_on(model, x)
        if self.trainer is not None and self.trainer.program.is_current():
            return self.trainer
        if self._predictor is None or not self._predictor.program.is_current():
            config = self.config or {}  # compile's mesh and remat apply to predict too
            self._predictor = Trainer(model, loss=None, placement=config.get("placement"),
                                      remat=config.get("remat"),
                                      scan_blocks=config.get("scan_blocks", True),
                                      precision=config.get("precision"),
                                      inference_only=True)
        return self._predictor
