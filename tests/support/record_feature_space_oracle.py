"""Record Keras 3's ``keras.utils.FeatureSpace`` outputs for the FeatureSpace tests.

Keras's FeatureSpace runs on TensorFlow, so this script needs an environment with
TensorFlow and Keras 3 (recorded with tensorflow-cpu 2.21 and keras 3.15.1)::

    KERAS_BACKEND=tensorflow python tests/support/record_feature_space_oracle.py \
        tests/keras_compat/feature_space_oracle.json tests/keras_compat/feature_space.keras

It builds the feature spaces described by ``SPACES`` on ``TRAIN``, calls them on ``TRAIN``,
``TEST`` (unseen tokens) and ``SAMPLE`` (one unbatched record), and writes the outputs, the
adapted preprocessors' state, the configs and the ``.keras`` file's layout as JSON, and
keeps Keras's own ``.keras`` file of the ``"concat"`` space (the second path).

``--check-kgraph-files DIR`` loads kgraph's files of the same spaces with Keras instead
(see ``check_kgraph_files``).
"""

import io
import json
import os
import shutil
import sys
import tempfile
import zipfile

import numpy as np

TRAIN = {
    "f": [0.5, -1.25, 3.0, 2.0, 0.0, 1.5, -0.5, 4.25, 2.5, 1.0, -2.0, 0.75],
    "fn": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 30.0],
    "fr": [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0],
    "fd": [0.1, 0.9, 0.4, 0.35, 0.8, 0.2, 0.65, 0.05, 0.5, 0.95, 0.3, 0.7],
    "ic": [3, 1, 3, 7, 1, 3, 9, 7, 3, 1, 0, 3],
    "ic2": [5, 5, 6, 6, 6, 7, 8, 5, 6, 9, 10, 6],
    "sc": ["a", "b", "a", "c", "b", "a", "d", "a", "c", "b", "e", "a"],
    "sc2": ["x", "y", "y", "z", "x", "y", "w", "y", "v", "x", "y", "u"],
    "ih": [10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120],
    "sh": ["p", "q", "r", "s", "t", "u", "p", "q", "r", "s", "t", "u"],
}
TEST = {
    "f": [1.0, -3.0, 0.25], "fn": [0.0, 5.5, 12.0], "fr": [1.5, -2.0, 20.0],
    "fd": [0.0, 0.45, 2.0], "ic": [3, 4, -1], "ic2": [6, 11, 5], "sc": ["a", "zz", "d"],
    "sc2": ["y", "q", "w"], "ih": [10, 15, 99999], "sh": ["p", "never", ""],
}
SAMPLE = {name: values[1] for name, values in TEST.items()}
# name: (features as (kind, args), FeatureSpace kwargs, crosses)
SPACES = {
    "concat": ({"f": "float", "fn": "float_normalized",
                "fr": ("float_rescaled", {"scale": 2.0, "offset": -1.0}),
                "fd": "float_discretized",
                "ic": "integer_categorical",
                "ic2": ("integer_categorical", {"max_tokens": 3, "num_oov_indices": 2}),
                "sc": "string_categorical",
                "sc2": ("string_categorical", {"max_tokens": 4, "num_oov_indices": 2}),
                "ih": "integer_hashed", "sh": ("string_hashed", {"num_bins": 5})},
               {"output_mode": "concat", "hashing_dim": 8, "num_discretization_bins": 4,
                "crossing_dim": 16},
               [("sc", "ic"), ("cross", {"feature_names": ("fd", "sh"), "crossing_dim": 7})]),
    "dict": ({"fn": "float_normalized",
              "fd": ("float_discretized", {"num_bins": 3, "output_mode": "int"}),
              "ic": ("integer_categorical", {"output_mode": "int"}),
              "sc": ("string_categorical", {"output_mode": "int"}),
              "sh": ("string_hashed", {"num_bins": 6, "output_mode": "int"}),
              "ih": "integer_hashed"},
             {"output_mode": "dict"},
             [("cross", {"feature_names": ("sc", "ic"), "crossing_dim": 9,
                         "output_mode": "int"}), ("ih", "fd")]),
    "defaults": ({"fd": "float_discretized", "ic": "integer_categorical",
                  "sc": "string_categorical", "sh": "string_hashed"},
                 {}, [("sc", "sh")]),
}


def build(keras, spec):
    features, kwargs, crosses = spec
    space = keras.utils.FeatureSpace

    def make(name, value):
        if isinstance(value, str):
            return value
        kind, args = value
        return getattr(space, kind)(name=name, **args)

    return space(
        features={name: make(name, value) for name, value in features.items()},
        crosses=[space.cross(**c[1]) if c[0] == "cross" else c for c in crosses], **kwargs)


def to_json(value):
    if isinstance(value, dict):
        return {key: to_json(v) for key, v in value.items()}
    array = np.asarray(value)
    if array.dtype.kind in "SO":
        array = array.astype(str)
    return {"dtype": str(array.dtype), "shape": list(array.shape), "values": array.tolist()}


def state(keras, layer):
    layers = keras.layers
    if isinstance(layer, layers.Normalization):
        return {"mean": np.asarray(layer.mean).tolist(),
                "variance": np.asarray(layer.variance).tolist()}
    if isinstance(layer, layers.Discretization):
        return {"bin_boundaries": list(layer.bin_boundaries)}
    if isinstance(layer, (layers.StringLookup, layers.IntegerLookup)):
        return {"vocabulary": [v.decode() if isinstance(v, bytes) else v
                               for v in layer.get_vocabulary()]}
    return {}


def h5_layout(data):
    import h5py

    found = {}
    with h5py.File(io.BytesIO(data), "r") as file:
        file.visititems(lambda name, obj: found.__setitem__(
            name, np.asarray(obj).tolist() if hasattr(obj, "shape") else None))
    return found


def record(space_name, spec, keras, tmp, keep=None):
    feature_space = build(keras, spec)
    feature_space.adapt(TRAIN)
    single = {name: SAMPLE[name] for name in spec[0]}
    outputs = {
        "train": to_json(feature_space({k: TRAIN[k] for k in spec[0]})),
        "test": to_json(feature_space({k: TEST[k] for k in spec[0]})),
        "sample": to_json(feature_space(single)),
    }
    path = os.path.join(tmp, f"{space_name}.keras")
    feature_space.save(path)
    if keep:
        shutil.copyfile(path, keep)
    with zipfile.ZipFile(path) as archive:
        members = sorted(archive.namelist())
        config = json.loads(archive.read("config.json"))
        assets = {name: archive.read(name).decode() for name in members
                  if name.startswith("assets/")}
        weights = h5_layout(archive.read("model.weights.h5"))
    return {
        "outputs": outputs,
        "states": {name: state(keras, layer)
                   for name, layer in feature_space.preprocessors.items()},
        "encoded_shape": (list(feature_space.get_encoded_features().shape)
                          if spec[1].get("output_mode", "concat") == "concat" else
                          {k: list(v.shape) for k, v in
                           feature_space.get_encoded_features().items()}),
        "input_dtypes": {k: v.dtype for k, v in feature_space.get_inputs().items()},
        "get_config": json.loads(json.dumps(feature_space.get_config(), default=list)),
        "file": {"members": members, "config": config, "assets": assets, "weights": weights},
    }


def main(out_path, keras_file_path):
    import keras

    with tempfile.TemporaryDirectory() as tmp:
        result = {"keras_version": keras.__version__, "train": TRAIN, "test": TEST,
                  "sample": SAMPLE,
                  "spaces": {name: record(name, spec, keras, tmp,
                                          keras_file_path if name == "concat" else None)
                             for name, spec in SPACES.items()}}
    text = json.dumps(result, indent=1, sort_keys=True,
                      default=lambda v: v.item() if hasattr(v, "item") else list(v))
    with open(out_path, "w") as file:
        file.write(text + "\n")


def check_kgraph_files(folder):
    """Load kgraph's files ``<folder>/<space>.keras`` (written by
    ``FeatureSpace.save`` from ``build(kgraph, SPACES[space])`` adapted on ``TRAIN``) with
    Keras and print the largest difference from the recorded outputs on ``TEST``."""
    import keras

    with open(os.path.join(os.path.dirname(__file__), "..", "keras_compat",
                           "feature_space_oracle.json")) as file:
        recorded = json.load(file)["spaces"]
    for name, spec in SPACES.items():
        space = keras.saving.load_model(os.path.join(folder, f"{name}.keras"))
        out = space({k: TEST[k] for k in spec[0]})
        want = recorded[name]["outputs"]["test"]
        pairs = [(out, want)] if "values" in want else [(out[k], w) for k, w in want.items()]
        print(name, max(float(np.abs(np.asarray(o) - np.asarray(w["values"])).max())
                        for o, w in pairs))


if __name__ == "__main__":
    if sys.argv[1] == "--check-kgraph-files":
        check_kgraph_files(sys.argv[2])
    else:
        main(sys.argv[1], sys.argv[2])
