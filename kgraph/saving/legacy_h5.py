"""Keras's legacy HDF5 files: ``.h5`` models (``model_config`` + ``model_weights``) and
``.h5`` weights files, the format of the pretrained ``keras.applications`` weights.

The weights group lists its layers in the attribute ``layer_names``, each layer group its
weights in ``weight_names`` (paths such as ``dense/kernel:0``); weights are matched by
order, as Keras does: the model's layers that have weights (in ``model.layers`` order,
``keras_layout.depth_ordered_layers``) against the named groups that have weights, and in
each layer ``trainable_weights + non_trainable_weights``. As for ``.keras`` files the file
is data: its whole structure is checked first (``h5_weights.scan``: hard links only, plain
contiguous numeric datasets), every count, shape and kind of number (a float16 weight
loads into a float32 model, cast, as Keras) is compared with the model's before any weight
is read, and every dataset must be used (the optimizer's aside).
"""

from __future__ import annotations

import json
import re
import warnings

import h5py
import numpy as np

from kgraph.saving import compile_config, h5_weights, keras_dialect, keras_layout, validation
from kgraph.saving.errors import LoadError
from kgraph.saving.layer_config import deserialize_layer

__all__ = ["MAX_ATTRIBUTE_ITEMS", "is_legacy", "legacy_weights", "load_model", "load_weights"]


_ATTRS = re.compile(r"(layer_names|weight_names)\d*|backend|keras_version|model_config|"
                    r"training_config|name")
MAX_ATTRIBUTE_ITEMS = 1_000_000  # names of layers or weights in one attribute


def _attribute(group, name, where):
    """An attribute's value, refusing more than ``MAX_ATTRIBUTE_ITEMS`` before reading it
    (its strings are bounded by the file's own size)."""
    items = h5py.h5a.open(group.id, name.encode()).get_space().get_simple_extent_npoints()
    if items > MAX_ATTRIBUTE_ITEMS:
        raise LoadError(f"{where}: attribute {name!r} of {group.name!r} holds {items} items, "
                        f"more than {MAX_ATTRIBUTE_ITEMS}.")
    return group.attrs[name]


def _strings(group, name, where) -> list:
    """A list-of-strings attribute (Keras splits long ones into ``name0``, ``name1``...)."""
    if name in group.attrs:
        keys = [name]
    else:
        keys = []
        while f"{name}{len(keys)}" in group.attrs:
            keys.append(f"{name}{len(keys)}")
    values = []
    for key in keys:
        value = np.asarray(_attribute(group, key, where))
        if value.size == 0:
            continue
        if value.ndim != 1 or value.dtype.kind not in "OSU":
            raise LoadError(f"{where}: attribute {key!r} of {group.name!r} must be a list of "
                            f"strings, found {value.dtype} of shape {value.shape}.")
        for item in value.tolist():
            item = item.decode("utf-8") if isinstance(item, bytes) else item
            if not isinstance(item, str):
                raise LoadError(f"{where}: attribute {key!r} of {group.name!r} holds "
                                f"{type(item).__name__}, not a string.")
            values.append(item)
    return values


def legacy_weights(layer) -> list:
    """``layer``'s weights in a legacy file's order: the trainable ones, then the others."""
    return list(layer.trainable_weights) + list(layer.non_trainable_weights)


def _plan(file, model, where):
    """``[(layer, [(variable, dataset, dtype)])]``: every weight of ``model`` and the
    dataset it comes from, all checked before any data is read."""
    datasets = h5_weights.scan(file, where, _ATTRS.fullmatch,
                               budget=8 * len(model.weights) + 10_000)
    root = "model_weights" if "model_weights" in file else ""
    group = file[root] if root else file
    prefix = f"{root}/" if root else ""
    layers = [layer for layer in keras_layout.depth_ordered_layers(model)
              if legacy_weights(layer)]
    names = []
    for name in _strings(group, "layer_names", where):
        layer_group = group.get(name)
        if layer_group is None or not hasattr(layer_group, "keys"):
            raise LoadError(f"{where}: layer_names lists {name!r}, which is not a group.")
        weight_names = _strings(layer_group, "weight_names", where)
        if weight_names:
            names.append((name, weight_names))
    if len(names) != len(layers):
        raise LoadError(f"{where}: the file holds weights for {len(names)} layers, the model "
                        f"has {len(layers)} layers with weights.")
    top = group.get("top_level_model_weights")
    if top is not None and _strings(top, "weight_names", where):
        raise LoadError(f"{where}: the file holds top-level model weights, which kgraph models "
                        "do not have.")
    plan, used = [], set()
    for (name, weight_names), layer in zip(names, layers):
        variables = legacy_weights(layer)
        if len(weight_names) != len(variables):
            raise LoadError(f"{where}: layer {name!r} holds {len(weight_names)} weights in the "
                            f"file; layer {layer.name!r} of the model has {len(variables)}.")
        entries = []
        for weight_name, variable in zip(weight_names, variables):
            path = f"{prefix}{name}/{weight_name}"
            if path not in datasets:
                raise LoadError(f"{where}: weight {path!r} is listed but not stored.")
            dataset, dtype = datasets[path]
            if tuple(dataset.shape) != variable.shape or not h5_weights.loads_into(
                    dtype, variable.dtype):
                raise LoadError(f"{where}: weight {path!r} is {dtype.name} of shape "
                                f"{tuple(dataset.shape)}; the model's {variable.path!r} is "
                                f"{variable.dtype.name} of shape {variable.shape}.")
            used.add(path)
            entries.append((variable, dataset, dtype))
        plan.append((layer, entries))
    unused = sorted(p for p in datasets if p not in used and "optimizer_weights" not in p)
    if unused:
        raise LoadError(f"{where}: {len(unused)} dataset(s) match no weight of the model, "
                        f"first {unused[0]!r}.")
    return plan


def is_legacy(path) -> bool:
    """Whether the HDF5 file at ``path`` is in the legacy layout (``layer_names``)."""
    with h5_weights.open_file(path, str(path)) as file:
        group = file.get("model_weights", file)
        return any(_ATTRS.fullmatch(key) and key.startswith("layer_names")
                   for key in getattr(group, "attrs", {}).keys())


def load_weights(model, path) -> None:
    """Load a legacy ``.h5`` weights (or model) file into ``model``, matching by order."""
    where = str(path)
    with h5_weights.open_file(path, where) as file:
        plan = _plan(file, model, where)
        values = [(layer, {id(variable): h5_weights.read_as(dataset, variable.shape, dtype,
                                                             variable.dtype, where)
                           for variable, dataset, dtype in entries})
                  for layer, entries in plan]
    for layer, by_id in values:  # set_weights: layers restore derived state (statistics)
        layer.set_weights([by_id[id(v)] for v in layer.weights])


def load_model(path, custom_objects=None, safe_mode=True, compile=True):  # noqa: A002
    """The model of a legacy ``.h5`` model file (its ``model_config``), with its weights,
    compiled with its ``training_config`` when ``compile`` (optimizer, losses, metrics; the
    optimizer's saved state is not read, with a warning)."""
    where = str(path)
    with h5_weights.open_file(path, where) as file:
        if "model_config" not in file.attrs:
            raise LoadError(f"{where}: no model_config attribute; this is a weights file "
                            "(use model.load_weights) or not a Keras model file.")
        text = _attribute(file, "model_config", where)
        training = (_attribute(file, "training_config", where)
                    if compile and "training_config" in file.attrs else None)
        optimizer_state = "optimizer_weights" in file
    text = text.decode("utf-8") if isinstance(text, bytes) else str(text)
    validation.check_json_depth(text)
    try:
        config = json.loads(text)
    except ValueError as err:
        raise LoadError(f"{where}: model_config is not valid JSON ({err}).") from None
    if not isinstance(config, dict):
        raise LoadError(f"{where}: model_config must hold an object.")
    validation.check_no_file_references(config)
    model = deserialize_layer(keras_dialect.from_keras(config), custom_objects=custom_objects,
                              safe_mode=safe_mode)
    load_weights(model, path)
    if training is not None:
        _compile_from_training_config(model, training, custom_objects, where)
        if optimizer_state:
            warnings.warn(f"{where}: the legacy file's optimizer state (optimizer_weights) is "
                          "not read; training continues with a fresh optimizer state.",
                          stacklevel=3)
    return model


def _compile_from_training_config(model, text, custom_objects, where) -> None:
    """Compile ``model`` with a legacy file's ``training_config`` (Keras 2's names for what
    a ``.keras`` file's ``compile_config`` holds)."""
    text = text.decode("utf-8") if isinstance(text, bytes) else str(text)
    validation.check_json_depth(text)
    try:
        training = json.loads(text)
    except ValueError as err:
        warnings.warn(f"{where}: training_config is not valid JSON ({err}); the model is not "
                      "compiled.", stacklevel=4)
        return
    if not isinstance(training, dict):
        warnings.warn(f"{where}: training_config is not an object; the model is not "
                      "compiled.", stacklevel=4)
        return
    validation.check_no_file_references(training)
    compile_config.compile_from_config(model, {
        "optimizer": training.get("optimizer_config", "rmsprop"),
        "loss": training.get("loss"), "metrics": training.get("metrics"),
        "weighted_metrics": training.get("weighted_metrics"),
        "loss_weights": training.get("loss_weights")}, custom_objects)
