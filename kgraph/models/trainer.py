"""``Trainer``: the training surface of a model (``compile``, ``fit``, ``evaluate``,
``predict``, the single-batch methods, Keras's JAX-form steps and stateless protocol), as
a mixin. ``Model`` is a ``Trainer`` and a ``Layer``; as in Keras, any layer mixed with a
``Trainer`` trains the same way (Keras's ``JAXTrainer``):

>>> import numpy as np, kgraph as kg
>>> class TrainableDense(Trainer, kg.layers.Dense):
...     def __init__(self, units):
...         kg.layers.Dense.__init__(self, units)
...         Trainer.__init__(self)
>>> layer = TrainableDense(2)
>>> layer.compile(optimizer="sgd", loss="mse")
>>> history = layer.fit(np.ones((4, 3)), np.zeros((4, 2)), verbose=0)
>>> layer.predict(np.ones((1, 3)), verbose=0).shape
(1, 2)

The methods are thin shells over the runtime, reached through ``kgraph.engine`` on first
use; what ``compile`` chose and what ``fit`` carries between calls live in the object's
training setup (``runtime.training_setup``), opaque here.
"""

from __future__ import annotations

from kgraph import engine
from kgraph.distribution import distribution_lib
from kgraph.models.model_batches import ModelBatches

__all__ = ["Trainer"]


def _float16_policy(model, precision) -> bool:
    """Whether ``model`` (or ``compile``'s ``precision``) computes in float16."""
    named = [getattr(precision, "name", precision)] if isinstance(precision, str) or hasattr(
        precision, "compute_dtype") else list(precision.values()) if isinstance(
        precision, dict) else []
    policies = [str(getattr(p, "name", p)) for p in named]
    # the model's own policy (Keras's test) and its layers' (a subclassed model's too)
    policies += [layer.dtype_policy.name for layer in [model, *getattr(model, "layers", ())]]
    return any("float16" in p and "bfloat16" not in p for p in policies)


class Trainer(ModelBatches):
    """What makes a layer trainable: ``compile``, ``fit``, ``evaluate``, ``predict`` and
    Keras's JAX-form training protocol. Mixed in before a ``Layer`` class; its
    ``__init__`` (no arguments) runs after the layer's, as Keras's ``Trainer.__init__``."""

    # Made by runtime on compile (or predict) and opaque here: compile's settings, the
    # runtime's Trainer and what fit carries between calls (runtime.training_setup).
    _training_setup = None

    def __init__(self):
        self._training_setup = None

    # Read-only views into the training setup, kept for code that read these attributes.
    @property
    def _trainer(self):
        return getattr(self._training_setup, "trainer", None)

    @property
    def _opt_state(self):
        return getattr(self._training_setup, "opt_state", None)

    @property
    def optimizer(self):
        """The optimizer given to ``compile`` (None before, unless one was assigned)."""
        config = getattr(self._training_setup, "config", None)
        if config is None:
            return self.__dict__.get("_assigned_optimizer")
        return config["optimizer"]

    @optimizer.setter
    def optimizer(self, optimizer):
        """Keras's ``model.optimizer = ...``: a compiled model trains with it from then on
        (afresh: its own state); before ``compile`` it is held, and ``compile`` chooses."""
        if getattr(self._training_setup, "config", None) is not None:
            self._training_setup.replace_optimizer(optimizer)
        else:
            self.__dict__["_assigned_optimizer"] = optimizer

    # Keras 3's JAX-form training protocol (runtime.keras_protocol, through kgraph.engine).
    def stateless_call(self, trainable_variables, non_trainable_variables, *args,
                       return_losses=False, **kwargs):
        """``(outputs, non_trainable_variables)`` for weights given as lists, touching
        nothing; jittable (see ``runtime.keras_protocol.stateless_call``)."""
        protocol = engine.runtime().keras_protocol
        return protocol.stateless_call(self, trainable_variables, non_trainable_variables,
                                       *args, return_losses=return_losses, **kwargs)

    def stateless_compute_loss(self, trainable_variables, non_trainable_variables,
                               metrics_variables, x=None, y=None, y_pred=None,
                               sample_weight=None, training=True):
        """``compute_loss`` on variables given as lists, touching nothing: ``(loss,
        (trainable_variables, non_trainable_variables, metrics_variables))``; jittable."""
        protocol = engine.runtime().keras_protocol
        return protocol.stateless_compute_loss(
            self, trainable_variables, non_trainable_variables, metrics_variables, x=x, y=y,
            y_pred=y_pred, sample_weight=sample_weight, training=training)

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        """The compiled loss of ``(y, y_pred)``; override it to change the objective."""
        protocol = engine.runtime().keras_protocol
        return protocol.compute_loss(self, x, y, y_pred, sample_weight, training)

    @property
    def metrics(self) -> list:
        """Keras's list: once compiled, a ``Mean`` named "loss" and the compiled metrics;
        then the metrics held as attributes, the object's own and its layers' (not those
        of nested trainers: a nested model's compiled metrics are its own). A subclass
        may return its own trackers instead."""
        compiled = engine.runtime().keras_protocol.default_metrics(self)
        return compiled + self._held_metrics(lambda layer: not isinstance(layer, Trainer))

    @property
    def _loss_tracker(self):
        """Keras's loss tracker (the ``Mean`` named "loss"), None before ``compile``."""
        compiled = engine.runtime().keras_protocol.default_metrics(self)
        return compiled[0] if compiled else None

    @property
    def _compile_metrics(self):
        """Keras's compiled metrics (one metric of every ``metrics`` and
        ``weighted_metrics`` given to ``compile``), None without them."""
        compiled = engine.runtime().keras_protocol.default_metrics(self)
        return compiled[1] if len(compiled) > 1 and compiled[1].name == "compile_metrics" \
            else None

    @property
    def _compile_loss(self):
        """Keras's compiled loss (``CompileLoss``; its metrics: each output's loss
        tracker, once built), None without a compiled loss."""
        return engine.runtime().keras_protocol.compile_loss(self)

    def _symbolic_build(self, iterator=None, data_batch=None):
        """Keras's: build the model, its compiled loss and metrics and its optimizer on a
        batch (``data_batch``, or the first of ``iterator``), before training."""
        engine.runtime().keras_protocol.symbolic_build(self, iterator, data_batch)

    @property
    def metrics_variables(self) -> list:
        """The state arrays of ``metrics``, in order (Keras's ``metrics_variables``)."""
        return [variable for metric in self.metrics for variable in metric.variables]

    @property
    def metrics_names(self) -> list:
        return [metric.name for metric in self.metrics]

    def train_step(self, state, data):
        """One training step in Keras's JAX form: ``(logs, state)``; override to customize
        ``fit`` (state: trainable, non-trainable, optimizer and metrics variables)."""
        return engine.runtime().keras_protocol.default_train_step(self, state, data)

    def test_step(self, state, data):
        """One evaluation step in Keras's JAX form: ``(logs, state)``."""
        return engine.runtime().keras_protocol.default_test_step(self, state, data)

    def predict_step(self, state, data):
        """The outputs for one batch, from ``(trainable, non_trainable)`` variables."""
        return engine.runtime().keras_protocol.default_predict_step(self, state, data)

    def compile(self, optimizer="adam", loss=None, metrics=None, loss_weights=None,
                weighted_metrics=None, steps_per_execution=1, seed=None, *, mesh=None,
                sharding=None, data_axis=None, remat=None, scan_blocks=True, precision=None,
                **kwargs):
        """Choose the optimizer (optax object or name), loss(es) and metrics for ``fit``.

        ``metrics`` ignore sample and class weights; ``weighted_metrics`` use them (Keras 3).

        ``steps_per_execution=k`` runs ``k`` training steps per device call (one
        ``lax.scan``); ``seed`` fixes dropout keys and shuffling. ``mesh`` (a JAX mesh),
        ``sharding`` (``runtime.ShardingRules``) and ``data_axis`` train on many devices
        (without them, the ``kgraph.distribution`` set by ``set_distribution`` decides);
        ``remat`` rematerialises layers by path; ``scan_blocks=False`` runs repeated
        blocks unrolled instead of as one scan; ``precision="mixed_bfloat16"`` (or by
        path) computes in bfloat16 with float32 weights. See ``runtime.Trainer``.
        """
        # Keras's switches, kept as the model's attributes: kgraph always compiles with jax.jit
        switches = {"run_eagerly": bool(kwargs.pop("run_eagerly", False) or False),
                    "jit_compile": kwargs.pop("jit_compile", "auto")}
        # float16 gradients underflow unscaled: Keras's rule wraps the optimizer in a
        # LossScaleOptimizer (the runtime does, where the optimizers live)
        scale_loss = kwargs.pop("auto_scale_loss", True) and _float16_policy(self, precision)
        if kwargs:
            raise TypeError(f"compile got unexpected arguments {sorted(kwargs)}.")
        engine.runtime().compile_model(
            self, optimizer, loss, metrics, loss_weights=loss_weights,
            steps_per_execution=steps_per_execution, seed=seed,
            weighted_metrics=weighted_metrics, mesh=mesh, sharding=sharding,
            data_axis=data_axis, remat=remat, scan_blocks=scan_blocks,
            precision=precision, distribution=distribution_lib.distribution(),
            scale_loss=scale_loss)
        self.__dict__["_keras_compile_settings"] = switches

    def fit(self, x=None, y=None, batch_size=None, epochs=1, verbose="auto", callbacks=None,
            validation_split=0.0, validation_data=None, shuffle=True, class_weight=None,
            sample_weight=None, initial_epoch=0, steps_per_epoch=None, validation_steps=None,
            validation_batch_size=None, validation_freq=1):
        """Train for ``epochs`` over arrays or an iterable of batches; returns a ``History``.

        Arguments follow Keras's ``Model.fit``. The last partial batch is padded and
        masked, so every step runs one compiled program.
        """
        return engine.runtime().fit(
            self, x, y, batch_size=batch_size, epochs=epochs, verbose=verbose,
            callbacks=callbacks, validation_split=validation_split,
            validation_data=validation_data, shuffle=shuffle,
            class_weight=class_weight, sample_weight=sample_weight,
            initial_epoch=initial_epoch, steps_per_epoch=steps_per_epoch,
            validation_steps=validation_steps,
            validation_batch_size=validation_batch_size,
            validation_freq=validation_freq)

    def evaluate(self, x=None, y=None, batch_size=None, verbose="auto", sample_weight=None,
                 steps=None, callbacks=None, return_dict=False):
        """Loss and metrics over ``(x, y)``: a scalar, a list, or a dict (``return_dict``)."""
        return engine.runtime().evaluate(
            self, x, y, batch_size=batch_size, verbose=verbose,
            sample_weight=sample_weight, steps=steps, callbacks=callbacks,
            return_dict=return_dict)

    def predict(self, x, batch_size=None, verbose="auto", steps=None, callbacks=None):
        """Model outputs for ``x`` (arrays or an iterable of batches) as NumPy arrays."""
        return engine.runtime().predict(
            self, x, batch_size=batch_size, verbose=verbose, steps=steps,
            callbacks=callbacks)
