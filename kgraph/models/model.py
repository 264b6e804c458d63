"""``Model``: a layer with training conveniences; ``Model(inputs, outputs)`` is a Functional.

>>> import kgraph as kg
>>> x = kg.Input(shape=(3,))
>>> model = kg.Model(inputs=x, outputs=kg.layers.Dense(2)(x))
>>> type(model).__name__, isinstance(model, kg.Model)
('Functional', True)
"""

from __future__ import annotations

import inspect

import jax

from kgraph import engine, saving
from kgraph.base import weight_tree
from kgraph.base.layer import Layer, _shapes as _shapes_of
from kgraph.display import plotting
from kgraph.saving import pickling, safetensors_io, state_tree
from kgraph.display.summary import summary_text
from kgraph.distribution import distribution_lib
from kgraph.layers import quantized
from kgraph.models import tracing
from kgraph.models.model_batches import ModelBatches

__all__ = ["Model"]


def _float16_policy(model, precision) -> bool:
    """Whether ``model`` (or ``compile``'s ``precision``) computes in float16."""
    named = [getattr(precision, "name", precision)] if isinstance(precision, str) or hasattr(
        precision, "compute_dtype") else list(precision.values()) if isinstance(
        precision, dict) else []
    policies = [str(getattr(p, "name", p)) for p in named]
    policies += [layer.dtype_policy.name for layer in getattr(model, "layers", [])]
    return any("float16" in p and "bfloat16" not in p for p in policies)


def _is_functional_init(args, kwargs) -> bool:
    return ("inputs" in kwargs and "outputs" in kwargs) or len(args) >= 2 or (
        len(args) == 1 and "outputs" in kwargs)


_FUNCTIONAL_SUBCLASSES: dict = {}


def _functional_subclass(cls, functional):
    """``cls`` with ``Functional`` mixed in (made once per class, named as ``cls``)."""
    if issubclass(cls, functional):
        return cls
    if cls not in _FUNCTIONAL_SUBCLASSES:
        _FUNCTIONAL_SUBCLASSES[cls] = type(cls.__name__, (cls, functional),
                                           {"__module__": cls.__module__,
                                            "__qualname__": cls.__qualname__,
                                            "_serialized_as": cls})  # its registered name
    return _FUNCTIONAL_SUBCLASSES[cls]


class Model(ModelBatches, Layer):
    """A layer that can be trained: ``compile``, ``fit``, ``evaluate``, ``predict``.

    ``Model(inputs=..., outputs=...)`` returns a ``Functional`` (a graph of layers). The
    training methods are thin shells over ``runtime.Trainer`` (imported when first used).
    """

    def __new__(cls, *args, **kwargs):
        if cls is Model and _is_functional_init(args, kwargs):
            from kgraph.models.functional import Functional  # a Model subclass: imported on use

            return Functional.__new__(Functional)
        return super().__new__(cls, *args, **kwargs)  # a custom model's auto config

    def __init__(self, *args, **kwargs):
        if _is_functional_init(args, kwargs):
            # A Model subclass called with (inputs, outputs): a functional model of that
            # class (Keras's "functional subclass"); its overrides (train_step, ...) apply.
            from kgraph.models.functional import Functional

            self.__class__ = _functional_subclass(type(self), Functional)
            Functional.__init__(self, *args, **kwargs)
            return
        super().__init__(*args, **kwargs)
        # Made by runtime on compile (or predict) and opaque here: compile's settings, the
        # Trainer and what fit carries between calls (runtime.training_setup).
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
        """Keras's list: a ``Mean`` named "loss", then the compiled metrics (a subclass may
        return its own trackers instead)."""
        return engine.runtime().keras_protocol.default_metrics(self)

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

    def _owns_namespace(self) -> bool:
        return True

    # Subclassed models: the first build traces call() into graph form (kgraph.models.tracing).
    def _maybe_build(self, inputs):
        if not self.built:
            if type(self).build is not Model.build:
                self.build(_shapes_of(inputs))  # the user's own build first
            tracing.trace_call(self, jax.tree_util.tree_map(
                lambda x: (tuple(x.shape), x.dtype), inputs))
            self.built = True

    def build(self, input_shape):
        """Build a subclassed model for ``input_shape`` (batch axis included, as Keras)."""
        if not self.built and type(self).build is Model.build:
            tracing.trace_call(self, jax.tree_util.tree_map(
                lambda s: (tuple(s), "float32"), input_shape,
                is_leaf=lambda s: isinstance(s, tuple)))
        self.built = True

    # Training shell (the runtime is reached through ``kgraph.engine``, on first use).
    @classmethod
    def from_config(cls, config, custom_objects=None, safe_mode=True):
        """A functional config (``name``, ``layers``, ``input_layers``, ``output_layers``)
        rebuilds a functional model of ``cls`` when ``cls`` takes ``(inputs, outputs,
        name)`` or ``(*args, **kwargs)``, as Keras's ``Model.from_config``; any other
        config goes to ``cls(**config)``.

        >>> import kgraph as kg
        >>> x = kg.Input((3,), name="x")
        >>> m = kg.Model(x, kg.layers.Dense(2, name="d")(x), name="m")
        >>> [layer.name for layer in kg.Model.from_config(m.get_config()).layers]
        ['x', 'd']
        """
        functional_keys = ("name", "layers", "input_layers", "output_layers")
        spec = inspect.getfullargspec(cls.__init__)
        revivable = (cls is Model or spec.args[1:4] == ["inputs", "outputs", "name"]
                     or (spec.varargs is not None and spec.varkw is not None))
        if isinstance(config, dict) and all(k in config for k in functional_keys) and revivable:
            return saving.functional_from_config(cls, config, custom_objects, safe_mode)
        return super().from_config(config)

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

    def summary(self, print_fn=print, line_length=None, expand_nested=False,
                show_trainable=False):
        """Print a table of layers, output shapes, parameter counts and connections.

        ``expand_nested`` lists nested models' layers indented under their row;
        ``show_trainable`` adds a Trainable column (Y/N; - for layers without weights).
        """
        print_fn(summary_text(self, line_length=line_length, expand_nested=expand_nested,
                              show_trainable=show_trainable))

    def save(self, filepath, overwrite=True, zipped=None, **kwargs):
        """Write the model (config and weights) to a ``.keras`` file, as Keras 3 does;
        ``kg.load_model`` (or Keras's) reads it back. See ``kgraph.saving.save_model``."""
        if kwargs:
            raise TypeError(f"save got unexpected arguments {sorted(kwargs)}.")
        saving.save_model(self, filepath, overwrite=overwrite,
                          zipped=True if zipped is None else zipped)

    def save_weights(self, filepath, overwrite=True):
        """Write the weights: ``*.weights.h5`` as Keras 3 lays them out, or
        ``*.safetensors`` keyed ``params/<layer>/<weight>`` and ``state/...`` (the pytrees
        of ``compiler.variables``; ``compiler.load_safetensors`` reads them back)."""
        if str(filepath).endswith(".safetensors"):
            params, state = weight_tree.variables(self)
            safetensors_io.save_safetensors(filepath, params, state, overwrite=overwrite)
            return
        saving.save_weights(self, filepath, overwrite=overwrite)

    def load_weights(self, filepath, skip_mismatch=False):
        """Load weights written by ``save_weights`` (``.weights.h5``, ``.safetensors``) or
        in a ``.keras`` file; the file must hold exactly this model's weights, unless
        ``skip_mismatch=True`` (``.weights.h5``, ``.keras``): then, as Keras, the layers
        the file matches are loaded and a warning lists the others, which keep theirs."""
        if str(filepath).endswith(".safetensors"):
            if skip_mismatch:
                raise ValueError("skip_mismatch=True is supported for .weights.h5 and .keras "
                                 "files; a .safetensors file must match the model exactly.")
            safetensors_io.load_safetensors_into(self, filepath)
            return
        saving.load_weights(self, filepath, skip_mismatch=skip_mismatch)

    def get_state_tree(self, value_format="backend_tensor"):
        """Keras's state tree: ``trainable_variables``, ``non_trainable_variables``,
        ``optimizer_variables`` and ``metrics_variables``, nested by Keras's variable paths
        (``kgraph.saving.state_tree``); ``value_format``: "backend_tensor" or
        "numpy_array"."""
        return state_tree.get_state_tree(self, value_format)

    def set_state_tree(self, state_tree_):
        """Assign the values of a ``get_state_tree`` tree (the optimizer's state too)."""
        state_tree.set_state_tree(self, state_tree_)

    def quantize(self, mode=None, config=None, filters=None, **kwargs):
        """Quantize the model's ``Dense``, ``EinsumDense`` and ``Embedding`` layers (nested
        models' too) to ``mode`` (``"int8"``, ``"int4"``, ``"float8"``) or by ``config`` (a
        ``kgraph.quantizers.QuantizationConfig``), as Keras's ``model.quantize``:
        ``filters`` (a regex on layer names, a list of them, or a callable) picks the
        layers; other layers are left as they are (with Keras's warning). See
        ``kgraph.layers.quantized``; compile the model again to run it."""
        quantized.quantize_model(self, mode, config, filters, **kwargs)

    def __reduce__(self):
        """Pickle (and ``copy.deepcopy``) the model as Keras does: as its ``.keras`` file's
        bytes, loaded back compiled, with its weights and optimizer state (see
        ``kgraph.saving.pickling``)."""
        return pickling.reduce_model(self)

    def to_json(self, **kwargs) -> str:
        """The model's config as JSON (``kg.model_from_json`` rebuilds it, fresh weights)."""
        return saving.to_json(self, **kwargs)

    def _repr_html_(self):
        """Jupyter display: the graph drawn by Graphviz if installed, else the summary table."""
        return plotting.repr_html(self)
