"""A ``FeatureSpace`` as a ``.keras`` file, in Keras 3's layout, and back.

``save`` writes ``metadata.json``, ``config.json`` (the space's config with Keras's module
names; kgraph keeps the learned vocabularies and bin boundaries in the preprocessors'
configs) and ``model.weights.h5`` (a group per preprocessor, crosser, encoder and the
concatenation, named as Keras names them; ``Normalization`` statistics are the only
data), atomically. ``load`` reads kgraph's files and Keras's (whose vocabularies are in
``assets/preprocessors/<layer>/vocabulary.txt``) as data: the archive and the config are
checked, classes resolve among kgraph's own only, nothing is imported or evaluated.

>>> import os, tempfile, numpy as np
>>> from kgraph.utils import FeatureSpace
>>> space = FeatureSpace({"x": "float_normalized", "s": "string_categorical"})
>>> space.adapt({"x": [1.0, 3.0], "s": ["a", "b"]})
>>> path = os.path.join(tempfile.mkdtemp(), "space.keras")
>>> space.save(path)
>>> loaded = FeatureSpace.load(path)
>>> np.allclose(loaded({"x": [2.0], "s": ["b"]}), space({"x": [2.0], "s": ["b"]}))
True
"""

from __future__ import annotations

import datetime
import io
import json
import os
import zipfile

import numpy as np

from kgraph import layers
from kgraph.base import naming
from kgraph.saving import archive, h5_weights, keras_dialect, validation
from kgraph.saving.errors import LoadError
from kgraph.saving.keras_file import KERAS_FORMAT_VERSION
from kgraph.saving.keras_layout import join, unique
from kgraph.utils.feature_space_specs import keras_class_name

__all__ = ["load", "save"]

_LOOKUPS = (layers.StringLookup, layers.IntegerLookup)


def _named(container, prefix):
    """``[(group path, layer)]`` of a dict of layers, named as Keras names them."""
    used: dict = {}
    return [(join(prefix, unique(naming.to_snake_case(keras_class_name(layer)), used)), layer)
            for layer in container.values()]


def _groups(space):
    groups = [("", [])] + ([("concat", [])] if space.concat is not None else [])
    for prefix in ("crossers", "one_hot_encoders", "preprocessors"):
        for path, layer in _named(getattr(space, prefix), prefix):
            store: dict = {}
            layer.save_own_variables(store)
            groups.append((path, [store[str(i)] for i in range(len(store))]))
    return groups


def _config(space) -> dict:
    config = {"module": "keras.utils", "class_name": "FeatureSpace",
              "config": space.get_config(), "registered_name": None,
              "build_config": space.get_build_config()}
    return keras_dialect.to_keras(json.loads(json.dumps(config)))


def save(space, filepath) -> None:
    """Write the (adapted) ``space`` to ``filepath`` (``.keras``), atomically."""
    filepath = os.fspath(filepath)
    if not filepath.endswith(".keras"):
        raise ValueError(f"FeatureSpace.save: the file name must end in .keras, received "
                         f"{filepath!r}.")
    space.get_encoded_features()  # adapted, encoders made (as Keras, before saving)
    buffer = io.BytesIO()
    h5_weights.write(buffer, [(path, path.rsplit("/", 1)[-1] or space.name, arrays)
                              for path, arrays in _groups(space)])
    metadata = {"keras_version": KERAS_FORMAT_VERSION,
                "date_saved": datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S")}
    with archive.atomic_write(filepath) as file:
        with zipfile.ZipFile(file, "w", zipfile.ZIP_STORED) as zf:
            zf.writestr(archive.METADATA, json.dumps(metadata))
            zf.writestr(archive.CONFIG, json.dumps(_config(space)))
            zf.writestr(archive.WEIGHTS, buffer.getvalue())


def _keras_lookup_config(entry, where):
    """A Keras lookup config in kgraph's arguments (Keras's OOV slots are kgraph's)."""
    config = dict(entry["config"])
    config.pop("vocabulary_size", None)
    method, salt = config.pop("oov_method", "floormod"), config.pop("salt", None)
    if salt is not None or (method != "floormod" and entry["class_name"] == "IntegerLookup"):
        raise LoadError(f"{where}: {config.get('name')!r} uses oov_method={method!r}, "
                        f"salt={salt!r}; kgraph's lookups hash OOV tokens as Keras's "
                        "defaults only.")
    return {**entry, "config": config}


def _preprocessor_entries(config, where):
    """The file's config with Keras's lookup configs made kgraph's."""
    features = config.get("config", {}).get("features")
    if not isinstance(features, dict):
        validation.fail('config["config"]["features"]', "a dict of feature configs",
                        features)
    for name, feature in features.items():
        entry = feature.get("config", {}).get("preprocessor") if isinstance(
            feature, dict) else None
        if not isinstance(entry, dict):
            validation.fail(f'config["config"]["features"]["{name}"]', "a Feature config "
                            "with a preprocessor", feature)
        if entry.get("class_name") in ("StringLookup", "IntegerLookup"):
            feature["config"]["preprocessor"] = _keras_lookup_config(entry, where)
    return config


def _read_vocabularies(space, zf, where):
    """Vocabularies Keras keeps in ``assets/`` (kgraph keeps them in the config)."""
    for path, layer in _named(space.preprocessors, "preprocessors"):
        name = f"{archive.ASSETS}{path}/vocabulary.txt"
        if isinstance(layer, _LOOKUPS) and not layer.get_vocabulary(False) and \
                name in zf.members:
            text = zf.read(name, archive.MAX_CONFIG_BYTES).decode("utf-8")
            layer.set_vocabulary(text.split("\n") if text else [])


def _read_weights(space, data, where):
    """Each preprocessor's weights (Normalization statistics) from ``model.weights.h5``."""
    expected = {path: layer for path, layer in _named(space.preprocessors, "preprocessors")}
    with h5_weights.open_file(io.BytesIO(data), where) as file:
        found = h5_weights.scan(file, where)
        by_group: dict = {}
        for key, (dataset, dtype) in found.items():
            group, _, index = key.rpartition("/vars/")
            if group not in expected or not index.isdigit():
                raise LoadError(f"{where}: unexpected dataset {key!r}.")
            by_group.setdefault(group, {})[int(index)] = (dataset, dtype)
        for group, datasets in by_group.items():
            layer = expected[group]
            if not layer.built:
                layer.build((None, 1))  # a feature's values: one column
            weights = layer.get_weights()
            if sorted(datasets) != list(range(len(weights))):
                raise LoadError(f"{where}: {group!r} holds {len(datasets)} weights; "
                                f"{layer.name!r} has {len(weights)}.")
            arrays = []
            for i, current in enumerate(weights):
                dataset, dtype = datasets[i]
                if tuple(dataset.shape) != current.shape:
                    raise LoadError(f"{where}: {group}/vars/{i} has shape "
                                    f"{tuple(dataset.shape)}; {layer.name!r} expects "
                                    f"{current.shape}.")
                value = h5_weights.read_dataset(dataset, dataset.shape, dtype, where)
                arrays.append(np.asarray(value).astype(current.dtype))
            layer.set_weights(arrays)


def load(cls, filepath):
    """The ``cls`` (``FeatureSpace``) saved in ``filepath`` by kgraph or Keras 3."""
    where = os.fspath(filepath)
    with archive.KerasArchive(filepath) as zf:
        text = zf.read(archive.CONFIG, archive.MAX_CONFIG_BYTES).decode("utf-8")
        validation.check_json_depth(text)
        config = json.loads(text)
        if not isinstance(config, dict) or config.get("class_name") != "FeatureSpace":
            found = config.get("class_name") if isinstance(config, dict) else config
            raise LoadError(f"{where}: config.json does not describe a FeatureSpace "
                            f"(found {found!r:.80}).")
        validation.check_no_file_references(config)
        inner = _preprocessor_entries(config, where)["config"]
        space = cls.from_config(inner)
        _read_vocabularies(space, zf, where)
        weights = zf.members.get(archive.WEIGHTS)
        if weights is not None:
            _read_weights(space, zf.read(archive.WEIGHTS, weights.file_size), where)
    space._is_adapted = True
    space._compiled = None  # the loaded state, not the constructed one
    space.get_encoded_features()  # the encoders, as after adapt()
    return space
