"""``FeatureSpace`` (Keras 3's ``keras.utils.FeatureSpace``): structured data preprocessed
and encoded by kgraph's preprocessing layers, with Keras's arguments, defaults, configs and
numbers.

Each feature goes through its preprocessor (``Normalization``, ``Rescaling``,
``Discretization``, ``IntegerLookup``, ``StringLookup``, ``Hashing``, or one you give),
crosses hash the preprocessed features together (``HashedCrossing``), and integer outputs
are one-hot encoded (``CategoryEncoding``) unless asked for as ``"int"``; ``"concat"``
concatenates everything (features sorted by name, then crosses), ``"dict"`` returns each.

Without TensorFlow, ``adapt`` takes a dict of arrays or lists, or any iterable of dict
records or batches (a list, a generator, a Grain ``MapDataset`` / ``IterDataset``), and
calling the space encodes NumPy values (strings included) into JAX arrays: strings are
looked up or hashed on the host, the rest runs as one program compiled per input shape.
Strings cannot enter a graph (JAX arrays hold numbers), so a space with string features
has no model inputs (``get_inputs`` raises and says why) and its
``get_encoded_features()`` are model inputs standing for the encoded values (train on
``feature_space(x)``); a space of numbers and integers is also a graph from
``get_inputs()`` to ``get_encoded_features()``, as in Keras. ``save`` writes the file
Keras writes (Keras loads it); ``FeatureSpace.load`` reads it and Keras's files.

>>> import numpy as np
>>> space = FeatureSpace({"x": "float_normalized", "c": "integer_categorical"})
>>> space.adapt({"x": [0.0, 2.0, 4.0], "c": [1, 2, 2]})
>>> np.asarray(space({"x": [2.0], "c": [2]})).tolist()  # c one-hot (OOV, 2, 1), then x
[[0.0, 1.0, 0.0, 0.0]]
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from kgraph import layers
from kgraph.base import naming
from kgraph.base.layer import Layer
from kgraph.graph.input_layer import Input
from kgraph.saving import keras_file
from kgraph.utils import feature_space_file
from kgraph.utils.feature_space_data import adapt_batches, call_inputs
from kgraph.utils.feature_space_specs import KERAS_MODULE, Cross, Feature, from_entry, identity

__all__ = ["FeatureSpace"]

_KINDS = ("float", "float_normalized", "float_rescaled", "float_discretized",
          "integer_categorical", "string_categorical", "integer_hashed", "string_hashed")
_STRINGS_OFF_GRAPH = (
    "{owner}: feature(s) {names} hold strings, which kgraph graphs (JAX arrays) cannot "
    "carry, so the space has no model inputs for them. Encode on the host instead: "
    "`encoded = feature_space(data)`, and build the model on "
    "`feature_space.get_encoded_features()` (inputs standing for the encoded values), e.g. "
    "`model.predict(feature_space(data))`.")


def _dtype_name(value) -> str:
    dtype = np.dtype(value.dtype)
    return "string" if dtype.kind in "USO" else dtype.name


def _cardinality(preprocessor):
    """The size of an integer preprocessor's output space, as Keras reads it."""
    if isinstance(preprocessor, (layers.IntegerLookup, layers.StringLookup)):
        return preprocessor.vocabulary_size()
    if isinstance(preprocessor, layers.CategoryEncoding):
        return preprocessor.num_tokens
    if isinstance(preprocessor, (layers.Discretization, layers.HashedCrossing,
                                 layers.Hashing)):
        return preprocessor.num_bins
    return False


class FeatureSpace(Layer):
    """One-stop preprocessing and encoding of structured data (Keras's ``FeatureSpace``).

    ``features``: ``{name: kind or Feature}`` with kinds ``"float"``,
    ``"float_normalized"``, ``"float_rescaled"``, ``"float_discretized"``,
    ``"integer_categorical"``, ``"string_categorical"``, ``"integer_hashed"``,
    ``"string_hashed"`` (defaults as below) or the static constructors
    (``FeatureSpace.integer_categorical(max_tokens=10)``...). ``output_mode``: ``"concat"``
    or ``"dict"``. ``crosses``: ``[("a", "b"), FeatureSpace.cross(...)]``, hashed into
    ``crossing_dim`` bins; ``hashing_dim`` and ``num_discretization_bins`` are the defaults
    of the hashed and discretized kinds.

    ``adapt(dataset)`` learns the preprocessors' state; then ``space(data)`` encodes a dict
    of arrays (a batch, or one record of scalars). See the module docstring for what runs
    in a graph; ``save("f.keras")`` writes Keras's file layout, ``FeatureSpace.load`` reads
    kgraph's and Keras's.

    >>> space = FeatureSpace({"s": "string_categorical", "n": "float"}, output_mode="dict")
    >>> space.adapt([{"s": "a", "n": 1.0}, {"s": "b", "n": 2.0}, {"s": "a", "n": 3.0}])
    >>> {k: np.asarray(v).tolist() for k, v in space({"s": "b", "n": 5.0}).items()}
    {'n': [5.0], 's': [0.0, 0.0, 1.0]}
    """

    # ------------------------------------------------------------ constructors
    @classmethod
    def cross(cls, feature_names, crossing_dim, output_mode="one_hot"):
        return Cross(feature_names, crossing_dim, output_mode=output_mode)

    @classmethod
    def feature(cls, dtype, preprocessor, output_mode):
        return Feature(dtype, preprocessor, output_mode)

    @classmethod
    def float(cls, name=None):
        name = name or naming.unique_name("float")
        return Feature("float32", identity(f"{name}_preprocessor"), "float")

    @classmethod
    def float_rescaled(cls, scale=1.0, offset=0.0, name=None):
        name = name or naming.unique_name("float_rescaled")
        return Feature("float32", layers.Rescaling(scale=scale, offset=offset,
                                                   name=f"{name}_preprocessor"), "float")

    @classmethod
    def float_normalized(cls, name=None):
        name = name or naming.unique_name("float_normalized")
        return Feature("float32", layers.Normalization(axis=-1, name=f"{name}_preprocessor"),
                       "float")

    @classmethod
    def float_discretized(cls, num_bins, bin_boundaries=None, output_mode="one_hot",
                          name=None):
        name = name or naming.unique_name("float_discretized")
        preprocessor = layers.Discretization(num_bins=num_bins, bin_boundaries=bin_boundaries,
                                             name=f"{name}_preprocessor")
        return Feature("float32", preprocessor, output_mode)

    @classmethod
    def integer_categorical(cls, max_tokens=None, num_oov_indices=1, output_mode="one_hot",
                            name=None):
        name = name or naming.unique_name("integer_categorical")
        preprocessor = layers.IntegerLookup(name=f"{name}_preprocessor", max_tokens=max_tokens,
                                            num_oov_indices=num_oov_indices)
        return Feature("int32", preprocessor, output_mode)

    @classmethod
    def string_categorical(cls, max_tokens=None, num_oov_indices=1, output_mode="one_hot",
                           name=None):
        name = name or naming.unique_name("string_categorical")
        preprocessor = layers.StringLookup(name=f"{name}_preprocessor", max_tokens=max_tokens,
                                           num_oov_indices=num_oov_indices)
        return Feature("string", preprocessor, output_mode)

    @classmethod
    def string_hashed(cls, num_bins, output_mode="one_hot", name=None):
        name = name or naming.unique_name("string_hashed")
        return Feature("string", layers.Hashing(name=f"{name}_preprocessor",
                                                num_bins=num_bins), output_mode)

    @classmethod
    def integer_hashed(cls, num_bins, output_mode="one_hot", name=None):
        name = name or naming.unique_name("integer_hashed")
        return Feature("int32", layers.Hashing(name=f"{name}_preprocessor",
                                               num_bins=num_bins), output_mode)

    # ------------------------------------------------------------------- init
    def __init__(self, features, output_mode="concat", crosses=None, crossing_dim=32,
                 hashing_dim=32, num_discretization_bins=32, name=None):
        super().__init__(name=name)
        if not features:
            raise ValueError("The `features` argument cannot be None or empty.")
        self.crossing_dim = crossing_dim
        self.hashing_dim = hashing_dim
        self.num_discretization_bins = num_discretization_bins
        self.features = {name: self._standardize_feature(name, value)
                         for name, value in features.items()}
        self.crosses = [self._standardize_cross(cross) for cross in crosses or ()]
        self.crosses_by_name = {cross.name: cross for cross in self.crosses}
        if output_mode not in {"dict", "concat"}:
            raise ValueError("Invalid value for argument `output_mode`. Expected one of "
                             f"{{'dict', 'concat'}}. Received: output_mode={output_mode}")
        self.output_mode = output_mode
        self.preprocessors = {name: value.preprocessor for name, value in self.features.items()}
        self.crossers = {cross.name: layers.HashedCrossing(cross.crossing_dim, name=cross.name)
                         for cross in self.crosses}
        self.inputs = None
        self.encoded_features = None
        self.one_hot_encoders = {}
        self.concat = None
        self._is_adapted = False
        self._encoders_built = False
        self._preprocessed_features_names = None
        self._crossed_features_names = None
        self._compiled = None  # ``_encode`` under jit; reset when the state is learned

    def _owner(self):
        return f'FeatureSpace "{self.name}"'

    def _standardize_feature(self, name, feature):
        if isinstance(feature, Feature):
            return feature
        if isinstance(feature, dict):
            return from_entry(feature, Feature, self._owner())
        if feature not in _KINDS:
            raise ValueError(f"Invalid feature type: {feature}")
        if feature == "float_discretized":
            return self.float_discretized(name=name, num_bins=self.num_discretization_bins)
        if feature in ("integer_hashed", "string_hashed"):
            return getattr(self, feature)(self.hashing_dim, name=name)
        return getattr(self, feature)(name=name)

    def _standardize_cross(self, cross):
        if isinstance(cross, dict):
            cross = from_entry(cross, Cross, self._owner())
        if isinstance(cross, Cross):
            return cross
        if not self.crossing_dim:
            raise ValueError("When specifying `crosses`, the argument `crossing_dim` "
                             "(dimensionality of the crossing space) should be specified as "
                             "well.")
        if any(key not in self.features for key in cross):
            raise ValueError("All features referenced in the `crosses` argument should be "
                             f"present in the `features` dict. Received unknown features: "
                             f"{cross}")
        return Cross(cross, crossing_dim=self.crossing_dim)

    # ------------------------------------------------------------------ adapt
    def _list_adaptable_preprocessors(self):
        names = []
        for name in self.features:
            preprocessor = self.preprocessors[name]
            if isinstance(preprocessor, layers.Normalization) and \
                    preprocessor.input_mean is not None:
                continue  # given mean and variance: nothing to learn
            if isinstance(preprocessor, layers.TextVectorization) and \
                    len(preprocessor.get_vocabulary()) > 2:
                continue  # has a vocabulary beyond padding and OOV
            if hasattr(preprocessor, "adapt"):
                names.append(name)
        return names

    def adapt(self, dataset):
        """Learn each adaptable preprocessor's state (vocabularies, mean and variance, bin
        boundaries) from ``dataset``: a dict of arrays or lists (the whole data, one entry
        per feature), or an iterable of dicts, each a record (scalars) or a batch (arrays):
        a list, a generator, a Grain ``MapDataset`` / ``IterDataset``. Records are batched
        32 at a time, as Keras does; anything else raises a ValueError."""
        names = self._list_adaptable_preprocessors()
        for name, batches in adapt_batches(dataset, names, "FeatureSpace").items():
            self.preprocessors[name].adapt(batches)
        self._is_adapted = True
        self._compiled = None  # the compiled encoding holds the state as constants
        self.get_encoded_features()  # make the encoders (and the graph, for numbers)
        self.built = True

    def _check_if_adapted(self):
        if not self._is_adapted:
            if self._list_adaptable_preprocessors():
                raise ValueError("You need to call `.adapt(dataset)` on the FeatureSpace "
                                 "before you can start using it.")
            self._is_adapted = True

    # ------------------------------------------------------- symbolic features
    def _host_only_features(self):
        return [name for name, feature in self.features.items() if feature.dtype == "string"]

    def _make_inputs(self):
        if self.inputs is None:
            self.inputs = {name: Input(shape=(1,), dtype=feature.dtype, name=name)
                           for name, feature in self.features.items()}
        return self.inputs

    def get_inputs(self):
        """The model inputs of the raw features (``{name: Input(shape=(1,))}``)."""
        self._check_if_adapted()
        strings = self._host_only_features()
        if strings:
            raise TypeError(_STRINGS_OFF_GRAPH.format(owner=self._owner(), names=strings))
        self.get_encoded_features()
        return self.inputs

    def get_encoded_features(self):
        """The encoded features as symbolic tensors: computed from ``get_inputs()`` for a
        space of numbers and integers; for a space with string features, model inputs of
        the encoded values' shape (feed them ``feature_space(data)``)."""
        self._check_if_adapted()
        if self.encoded_features is None:
            if self._host_only_features():
                self.encoded_features = self._encoded_inputs()
            else:
                inputs = self._make_inputs()
                preprocessed = self._preprocess_features(inputs)
                self.encoded_features = self._merge_features(
                    preprocessed, self._cross_features(preprocessed))
        return self.encoded_features

    def _example(self, name):
        """One value feature ``name``'s preprocessor takes (a vocabulary token if any)."""
        preprocessor = self.preprocessors[name]
        if hasattr(preprocessor, "get_vocabulary"):
            tokens = preprocessor.get_vocabulary(include_special_tokens=False)
            if tokens:
                return tokens[0]
        dtype = self.features[name].dtype
        return "" if dtype == "string" else np.zeros((), dtype)

    def _encoded_inputs(self):
        """Inputs shaped as the encoded features, found by encoding one example record."""
        encoded = self({name: np.asarray([self._example(name)]) for name in self.features})
        if self.output_mode == "concat":
            return Input(shape=encoded.shape[1:], dtype=_dtype_name(encoded),
                         name=f"{self.name}_encoded_features")
        return {name: Input(shape=value.shape[1:], dtype=_dtype_name(value), name=name)
                for name, value in encoded.items()}

    # -------------------------------------------------------------- pipeline
    def _preprocess_features(self, features):
        return {name: self.preprocessors[name](features[name]) for name in features}

    def _cross_features(self, features):
        return {cross.name: self.crossers[cross.name](
            [features[name] for name in cross.feature_names]) for cross in self.crosses}

    def _make_encoder(self, name, feature, spec):
        """The one-hot encoder of ``feature`` (or None), checked as Keras checks it."""
        dtype = _dtype_name(feature)
        if spec.output_mode != "one_hot":
            return None
        if not dtype.startswith("int"):
            raise ValueError(f"Feature '{name}' has `output_mode='one_hot'`. Thus its "
                             f"preprocessor should return an integer dtype. Instead it "
                             f"returns a {dtype} dtype.")
        preprocessor = self.preprocessors.get(name) or self.crossers.get(name)
        cardinality = _cardinality(preprocessor)
        if cardinality is False:
            raise ValueError(f"Feature '{name}' has `output_mode='one_hot'`. However it isn't "
                             "a standard feature and the dimensionality of its output space "
                             "is not known, thus it cannot be one-hot encoded. Try using "
                             "`output_mode='int'`.")
        if cardinality is None:
            return None
        return layers.CategoryEncoding(num_tokens=cardinality, output_mode="multi_hot")

    def _merge_features(self, preprocessed, crossed):
        if not self._preprocessed_features_names:
            self._preprocessed_features_names = sorted(preprocessed)
            self._crossed_features_names = sorted(crossed)
        names = self._preprocessed_features_names + self._crossed_features_names
        values = [preprocessed[n] for n in self._preprocessed_features_names] + [
            crossed[n] for n in self._crossed_features_names]
        building = not self._encoders_built
        merged = {}
        for name, value in zip(names, values):
            if building:
                spec = self.features.get(name) or self.crosses_by_name[name]
                encoder = self._make_encoder(name, value, spec)
                if encoder is not None:
                    self.one_hot_encoders[name] = encoder
            encoder = self.one_hot_encoders.get(name)
            if encoder is not None:
                value = encoder(value)
            dtype = _dtype_name(value)
            if building and self.output_mode == "concat" and (
                    dtype.startswith("int") or dtype == "string"):
                raise ValueError(f"Cannot concatenate features because feature '{name}' has "
                                 f"not been encoded (it has dtype {dtype}). Consider using "
                                 "`output_mode='dict'`.")
            merged[name] = value
        if building and self.output_mode == "concat":
            self.concat = layers.Concatenate(axis=-1)
        self._encoders_built = True
        if self.output_mode == "dict":
            return merged
        return self.concat(list(merged.values()))

    # ------------------------------------------------------------------- call
    def _encode(self, on_host, values):
        """The rest of the pipeline, compiled once per input shape (one program instead of
        an eager dispatch per op): the preprocessors of numbers, crosses, encoders."""
        preprocessed = {**on_host, **self._preprocess_features(values)}
        preprocessed = {name: preprocessed[name] for name in self.features}
        return self._merge_features(preprocessed, self._cross_features(preprocessed))

    def __call__(self, data):
        """Encode ``data`` (a dict of arrays or lists, or one record of scalars): a float
        array (``"concat"``) or a dict of arrays (``"dict"``), one row per record (no batch
        axis for a record of scalars)."""
        self._check_if_adapted()
        arrays, rebatched = call_inputs(data, self.features, self._owner())
        strings = self._host_only_features()
        on_host = {name: jnp.asarray(self.preprocessors[name](arrays[name]))
                   for name in strings}  # strings to integers, on the host
        if self._compiled is None:
            self._compiled = jax.jit(self._encode)
        merged = self._compiled(on_host, {k: v for k, v in arrays.items() if k not in strings})
        if self.output_mode == "dict":  # jit returns dicts by sorted key: Keras's order back
            merged = {name: merged[name] for name in
                      self._preprocessed_features_names + self._crossed_features_names}
        if rebatched:
            if self.output_mode == "concat":
                if merged.shape[0] != 1:
                    raise ValueError("Expected rebatched data to have batch size 1. "
                                     f"Received: shape={merged.shape}")
                return jnp.squeeze(jnp.asarray(merged), axis=0)
            return {name: jnp.squeeze(v, axis=0) if v.ndim == 2 and v.shape[0] == 1 else v
                    for name, v in merged.items()}
        return merged

    # ---------------------------------------------------------------- config
    def _feature_entry(self, name, build_config):
        config = self.features[name].get_config()
        if self._encoders_built or self.features[name].preprocessor.built:
            config["preprocessor"]["build_config"] = build_config
        else:
            config["preprocessor"].pop("build_config", None)
        return {"module": KERAS_MODULE, "class_name": "Feature", "config": config,
                "registered_name": "Feature"}

    def get_config(self):
        return {
            "features": {name: self._feature_entry(name, build)
                         for name, build in self.get_build_config().items()},
            "output_mode": self.output_mode,
            "crosses": [{"module": KERAS_MODULE, "class_name": "Cross",
                         "config": {**cross.get_config(),
                                    "feature_names": list(cross.feature_names)},
                         "registered_name": "Cross"} for cross in self.crosses],
            "crossing_dim": self.crossing_dim,
            "hashing_dim": self.hashing_dim,
            "num_discretization_bins": self.num_discretization_bins,
        }

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def get_build_config(self):
        """Each preprocessor's input shape once the space is in use, as Keras's (whose
        lookups have no build config)."""
        return {name: {"input_shape": [None, 1]} if (
            feature.preprocessor.built or self._encoders_built) and not isinstance(
            feature.preprocessor, (layers.IntegerLookup, layers.StringLookup)) else {}
                for name, feature in self.features.items()}

    def build_from_config(self, config):
        self._is_adapted = True

    def save(self, filepath):
        """Write the space to a ``.keras`` file (Keras's layout: the config, the
        preprocessors' weights); read it back with ``FeatureSpace.load``."""
        feature_space_file.save(self, filepath)

    @classmethod
    def load(cls, filepath):
        """The space saved in ``filepath`` (a ``.keras`` file from kgraph or Keras 3)."""
        return feature_space_file.load(cls, filepath)

    def save_own_variables(self, store):
        return

    def load_own_variables(self, store):
        return


keras_file.register_file_loader("FeatureSpace", FeatureSpace.load)  # load_model reads its files
