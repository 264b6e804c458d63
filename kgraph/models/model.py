"""``Model``: a layer with training conveniences; ``Model(inputs, outputs)`` is a Functional.

>>> import kgraph as kg
>>> x = kg.Input(shape=(3,))
>>> model = kg.Model(inputs=x, outputs=kg.layers.Dense(2)(x))
>>> type(model).__name__, isinstance(model, kg.Model)
('Functional', True)
"""

from __future__ import annotations

import functools
import inspect

import jax

from kgraph import saving
from kgraph.base import weight_tree
from kgraph.base.layer import Layer, _shapes as _shapes_of
from kgraph.display import plotting
from kgraph.saving import pickling, safetensors_io, state_tree
from kgraph.display.summary import summary_text
from kgraph.layers import quantized
from kgraph.models import tracing
from kgraph.models.trainer import Trainer

__all__ = ["Model"]


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


# Keras's export formats, each another framework's (what it writes).
_EXPORT_FORMATS = {
    "tf_saved_model": "a TensorFlow SavedModel, which needs TensorFlow's graph",
    "onnx": "an ONNX model, through TensorFlow or PyTorch", "openvino": "an OpenVINO model",
    "litert": "a LiteRT (TensorFlow Lite) model, which needs TensorFlow",
    "torch": "a PyTorch program, which needs PyTorch"}


def _check_unique_paths(layer, prefix, seen) -> None:
    """Keras's refusal of a state tree in which two sub-layers of one layer, both with
    weights, have one name (so their weights would have one path)."""
    names = set()
    for sub in layer._tracked_layers():
        if id(sub) in seen or not sub.weights:
            continue
        seen.add(id(sub))
        if sub.name in names:
            path = f"{prefix}{sub.name}/{sub.weights[0].name}"
            raise ValueError(f"The following variable path is found twice in the model: "
                             f"'{path}'. `get_state_tree()` can only be called when all "
                             "variable paths are unique. Make sure to give unique names to "
                             "your layers (and other objects).")
        names.add(sub.name)
        _check_unique_paths(sub, f"{prefix}{sub.name}/", seen)


class Model(Trainer, Layer):
    """A layer that can be trained: ``compile``, ``fit``, ``evaluate``, ``predict`` (its
    ``Trainer`` part, ``kgraph.models.trainer``).

    ``Model(inputs=..., outputs=...)`` returns a ``Functional`` (a graph of layers).
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
        Layer.__init__(self, *args, **kwargs)
        Trainer.__init__(self)

    def _owns_namespace(self) -> bool:
        return True

    @property
    def layers(self) -> list:
        """The model's direct sub-layers, in attribute order (Keras's ``Model.layers``)."""
        return self._flatten_layers(include_self=False, recursive=False)

    @layers.setter
    def layers(self, _):
        raise AttributeError("`Model.layers` attribute is reserved and should not be used "
                             "(it lists the model's sub-layers). Please use another name.")

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
            # as Keras: the config's other keys (a subclass's own) go to its constructor
            extra = {k: v for k, v in config.items() if k not in (*functional_keys,
                                                                   "trainable")}
            make = functools.partial(cls, **extra) if extra and cls is not Model else cls
            from kgraph.models.functional import _rebuild  # a Model subclass: imported on use

            return _rebuild(make, config, custom_objects, safe_mode)
        return super().from_config(config)

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
        saving.save_model(self, filepath, overwrite=overwrite, zipped=zipped, **kwargs)

    def save_weights(self, filepath, overwrite=True, max_shard_size=None, **kwargs):
        """Write the weights: ``*.weights.h5`` as Keras 3 lays them out, or
        ``*.safetensors`` keyed ``params/<layer>/<weight>`` and ``state/...`` (the pytrees
        of ``compiler.variables``; ``compiler.load_safetensors`` reads them back)."""
        if str(filepath).endswith(".safetensors"):
            params, state = weight_tree.variables(self)
            safetensors_io.save_safetensors(filepath, params, state, overwrite=overwrite)
            return
        saving.save_weights(self, filepath, overwrite=overwrite,
                            max_shard_size=max_shard_size, **kwargs)

    def load_weights(self, filepath, skip_mismatch=False, **kwargs):
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
        saving.load_weights(self, filepath, skip_mismatch=skip_mismatch, **kwargs)

    def export(self, filepath, format="tf_saved_model", verbose=None, input_signature=None,
               **kwargs):
        """Keras's ``model.export``: each of its formats (``"tf_saved_model"``, ``"onnx"``,
        ``"openvino"``, ``"litert"``, ``"torch"``) is another framework's, and raises
        NotImplementedError saying so; ``compiler.export(model, directory)`` writes the
        model as a JAX program that runs without kgraph."""
        if format not in _EXPORT_FORMATS:
            raise ValueError(f"Unrecognized format={format}. Supported formats are: "
                             f"{list(_EXPORT_FORMATS)}.")
        raise NotImplementedError(
            f"model.export(format={format!r}) writes {_EXPORT_FORMATS[format]}: kgraph models "
            "are JAX programs; export one with compiler.export(model, directory).")

    def _get_variable_map(self) -> dict:
        """Keras's ``{variable.path: variable}`` for the model's weights and its
        optimizer's variables."""
        store: dict = {}
        optimizer = getattr(self, "optimizer", None)
        for variable in [*self.weights, *(getattr(optimizer, "variables", None) or [])]:
            path = variable.path
            held = store.get(path)
            if held is not None and held is not variable:
                raise ValueError(f"The model contains two variables with a duplicate path: "
                                 f"path='{path}' appears at least twice. This path is used "
                                 f"for {variable} and for {held}. In order to get a variable "
                                 "map, make sure to use unique paths/names for each "
                                 "variable.")
            store[path] = variable
        return store

    def get_state_tree(self, value_format="backend_tensor"):
        """Keras's state tree: ``trainable_variables``, ``non_trainable_variables``,
        ``optimizer_variables`` and ``metrics_variables``, nested by Keras's variable paths
        (``kgraph.saving.state_tree``); ``value_format``: "backend_tensor" or
        "numpy_array"."""
        _check_unique_paths(self, "", set())
        return state_tree.get_state_tree(self, value_format)

    def set_state_tree(self, state_tree_):
        """Assign the values of a ``get_state_tree`` tree (the optimizer's state too; of an
        optimizer not built yet, its ``iteration`` and ``learning_rate``, as Keras)."""
        state_tree.set_state_tree(self, state_tree_)
        given = state_tree_.get("optimizer_variables") if isinstance(state_tree_, dict) else None
        optimizer = getattr(self, "optimizer", None)
        if not isinstance(given, dict) or len(given) != 1 or optimizer is None:
            return
        values = next(iter(given.values()))  # the optimizer's entries, under its name
        for variable in getattr(optimizer, "variables", None) or []:
            name = variable.path.rsplit("/", 1)[-1]
            if name in ("iteration", "learning_rate") and isinstance(values, dict) \
                    and name in values:
                variable.assign(values[name])

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
