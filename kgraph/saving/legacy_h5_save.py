"""Writing Keras's legacy HDF5 model files (``model.save("model.h5")``), as Keras 3 still
writes them, with its warning that the format is legacy.

The file holds the attributes ``model_config`` (the model's config, as in a ``.keras``
file), ``training_config`` (``compile``'s choices, Keras 2's names), ``backend`` and
``keras_version``; the group ``model_weights`` lists its layers (``layer_names``, in
``model.layers`` order) and holds, per layer, its weights in ``trainable_weights +
non_trainable_weights`` order (``weight_names``); ``optimizer_weights`` holds the
optimizer's Keras variables. ``kgraph.saving.legacy_h5`` reads it back, as does Keras.
The file is written atomically.

>>> import os, tempfile, warnings, kgraph as kg
>>> x = kg.Input(shape=(3,))
>>> model = kg.Model(x, kg.layers.Dense(2)(x))
>>> path = os.path.join(tempfile.mkdtemp(), "model.h5")
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     model.save(path)
>>> kg.saving.load_model(path).count_params()
8
"""

from __future__ import annotations

import io
import json
import os
import warnings

import h5py
import numpy as np

from kgraph.optimizers import keras_variables
from kgraph.saving import archive, h5_weights, legacy_h5

__all__ = ["LEGACY_WARNING", "save_model"]

LEGACY_WARNING = (
    "You are saving your model as an HDF5 file via `model.save()` or "
    "`keras.saving.save_model(model)`. This file format is considered legacy. We recommend "
    "using instead the native Keras format, e.g. `model.save('my_model.keras')` or "
    "`keras.saving.save_model(model, 'my_model.keras')`.")


def _strings(names) -> np.ndarray:
    return np.array([name.encode("utf-8") for name in names], dtype="S")


def _weights(group, variables) -> None:
    names = [variable.path for variable in variables]
    if len(set(names)) != len(names):  # a weight shared under one path: keep them apart
        names = [f"{name}_{i}" for i, name in enumerate(names)]
    group.attrs["weight_names"] = _strings(names)
    for name, variable in zip(names, variables):
        h5_weights.write_dataset(group, name, variable.value)


def _training_config(config):
    """``compile``'s choices (a ``compile_config``) in a legacy file's words, or None for a
    model not compiled."""
    if config is None:
        return None
    config = dict(config)
    optimizer = config.pop("optimizer")
    if isinstance(optimizer, dict):
        config["optimizer_config"] = {"class_name": optimizer["class_name"],
                                      "config": optimizer["config"]}
    return config


def save_model(model, filepath, entry, version, overwrite=True, include_optimizer=True,
               warn=True) -> None:
    """Write ``model`` to the legacy ``.h5`` file ``filepath`` (with Keras's warning, unless
    ``warn=False``); ``entry`` is its config as a ``.keras`` file holds it, ``version`` the
    Keras version the file claims (``kgraph.saving.save_model`` passes both);
    ``include_optimizer=False`` leaves the optimizer's variables out."""
    if not overwrite and os.path.exists(filepath):
        raise FileExistsError(f"{filepath} exists and overwrite=False.")
    if warn:
        warnings.warn(LEGACY_WARNING, UserWarning, stacklevel=4)
    buffer = io.BytesIO()
    with h5py.File(buffer, "w") as file:
        file.attrs["backend"] = "jax"
        file.attrs["keras_version"] = version
        file.attrs["model_config"] = json.dumps(
            {"class_name": entry["class_name"], "config": entry["config"]})
        training = _training_config(entry.get("compile_config"))
        if training is not None:
            file.attrs["training_config"] = json.dumps(training)
        weights = file.create_group("model_weights")
        layers = list(model.layers)
        weights.attrs["layer_names"] = _strings([layer.name for layer in layers])
        weights.attrs["backend"] = "jax"
        weights.attrs["keras_version"] = version
        for layer in sorted(layers, key=lambda layer: layer.name):
            _weights(weights.create_group(layer.name), legacy_h5.legacy_weights(layer))
        _weights(weights.create_group("top_level_model_weights"), [])
        optimizer = keras_variables.model_variables(model) if include_optimizer else None
        if optimizer is not None:
            name, values = optimizer
            group = file.create_group("optimizer_weights")
            names = [f"{name}/variable_{i}" for i in range(len(values))]
            group.attrs["weight_names"] = _strings(names)
            for path, value in zip(names, values):
                h5_weights.write_dataset(group, path, value)
    with archive.atomic_write(filepath) as file:
        file.write(buffer.getvalue())
