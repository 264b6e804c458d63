"""Keras 3's ``Model`` methods for single batches and compile's settings: a base of
``kgraph.Model``. ``train_on_batch``, ``test_on_batch`` and ``predict_on_batch`` run the
steps ``fit`` / ``evaluate`` / ``predict`` run, through the runtime's one seam
(``kgraph.engine``, ``runtime.batch_steps``), from the same one truth: the model's
variables and the optimizer state its ``fit`` continues.

>>> import numpy as np, kgraph as kg
>>> x = kg.Input(shape=(3,))
>>> model = kg.Model(x, kg.layers.Dense(1, name="out")(x))
>>> model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
>>> model.compiled, model.loss, model.output_names, model.jit_compile
(True, 'mse', ['out'], True)
>>> loss, mae = model.train_on_batch(np.ones((4, 3)), np.zeros((4, 1)))
>>> sorted(model.get_metrics_result())
['loss', 'mae']
"""

from __future__ import annotations

import warnings

from kgraph import engine
from kgraph.base import catalog
from kgraph.saving import compile_config

__all__ = ["ModelBatches"]


class ModelBatches:
    """``train_on_batch``, ``test_on_batch``, ``predict_on_batch``, the metric results
    (``get_metrics_result``, ``reset_metrics``) and compile's settings as Keras's
    attributes (``compiled``, ``loss``, ``run_eagerly``, ``jit_compile``,
    ``steps_per_execution``, ``get_compile_config`` / ``compile_from_config``)."""

    def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None,
                       return_dict=False):
        """One optimizer step on the batch ``(x, y)`` (the step ``fit`` runs; ``fit`` and
        ``train_on_batch`` continue each other). Returns the batch's loss (a float), or
        ``[loss, *metrics]``, or a dict with ``return_dict``; metrics start fresh at
        every call, as Keras 3's."""
        return engine.runtime().train_on_batch(self, x, y, sample_weight=sample_weight,
                                               class_weight=class_weight,
                                               return_dict=return_dict)

    def test_on_batch(self, x, y=None, sample_weight=None, return_dict=False):
        """The loss and metrics of the batch ``(x, y)`` (``evaluate``'s step), as
        ``train_on_batch`` returns them."""
        return engine.runtime().evaluate_on_batch(self, x, y, sample_weight=sample_weight,
                                              return_dict=return_dict)

    def predict_on_batch(self, x):
        """The model's outputs for the batch ``x`` as NumPy arrays."""
        return engine.runtime().predict_on_batch(self, x)

    def reset_metrics(self):
        """Reset the metrics: ``get_metrics_result`` then gives fresh metrics' results."""
        engine.runtime().reset_metrics(self)

    def get_metrics_result(self) -> dict:
        """The metrics' results as a dict (``{"loss": ..., "mae": ...}``): what the last
        ``fit``, ``evaluate`` or ``*_on_batch`` call left."""
        return engine.runtime().get_metrics_result(self)

    # ------------------------------------------------------------- compile's settings
    def _compile_settings(self) -> dict:
        return self.__dict__.get("_keras_compile_settings") or {}

    @property
    def compiled(self) -> bool:
        """Whether ``compile`` was called."""
        return getattr(self._training_setup, "config", None) is not None

    @property
    def loss(self):
        """The ``loss`` given to ``compile`` (None before)."""
        config = getattr(self._training_setup, "config", None)
        return None if config is None else config["loss"]

    @property
    def steps_per_execution(self) -> int:
        """Training steps per device call (``compile``'s ``steps_per_execution``)."""
        return int(getattr(self._training_setup, "steps_per_execution", 1))

    @property
    def run_eagerly(self) -> bool:
        """``compile``'s ``run_eagerly`` (kgraph compiles its steps with ``jax.jit``
        whatever it says)."""
        return bool(self._compile_settings().get("run_eagerly", False))

    @run_eagerly.setter
    def run_eagerly(self, value) -> None:
        self.__dict__.setdefault("_keras_compile_settings", {})["run_eagerly"] = bool(value)

    @property
    def jit_compile(self) -> bool:
        """``compile``'s ``jit_compile`` ("auto": True; kgraph compiles its steps with
        ``jax.jit`` whatever it says)."""
        value = self._compile_settings().get("jit_compile", "auto")
        return True if value == "auto" else bool(value)

    @jit_compile.setter
    def jit_compile(self, value) -> None:
        self.__dict__.setdefault("_keras_compile_settings", {})["jit_compile"] = value

    def get_compile_config(self) -> dict:
        """Keras's serialized ``compile`` arguments ({} before ``compile``, or for what a
        file cannot describe, such as an optax transformation: then with a warning)."""
        if not self.compiled:
            return {}
        config = compile_config.compile_config(self)
        if config is None:
            return {}
        config.update(run_eagerly=self.run_eagerly, jit_compile=self.jit_compile)
        return config

    def compile_from_config(self, config):
        """``compile`` with a ``get_compile_config`` dict (Keras's warning, and nothing
        done, for a model whose class overrides ``compile``)."""
        owner = next(c for c in type(self).__mro__ if "compile" in c.__dict__)
        if owner.__module__ != "kgraph.models.trainer":  # a class's own compile
            warnings.warn("`compile()` was not called as part of model loading because the "
                          "model's `compile()` method is custom. All subclassed Models that "
                          "have `compile()` overridden should also override "
                          "`get_compile_config()` and `compile_from_config(config)`. "
                          "Alternatively, you can call `compile()` manually after loading.",
                          stacklevel=2)
            return
        compile_config.compile_from_config(self, config)
        if config and self.compiled:
            self.run_eagerly = config.get("run_eagerly", False)
            self.jit_compile = config.get("jit_compile", "auto")

    # ------------------------------------------------------------------- structure
    @property
    def output_names(self) -> list:
        """The names of the layers whose outputs are the model's outputs."""
        return [t._keras_history[0].name for t in getattr(self, "outputs", None) or ()]

    def get_build_config(self):
        """As Keras's: the shapes ``build`` was called with; a functional model built from
        its inputs: ``{"input_shape": None}`` (a Sequential: its input shape)."""
        config = super().get_build_config()
        if config is not None or not self.built:
            return config
        inputs = getattr(self, "inputs", None) or ()
        if catalog.is_instance(self, "Sequential") and len(inputs) == 1:
            return {"input_shape": tuple(inputs[0].shape)}
        return {"input_shape": None}
