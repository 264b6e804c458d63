"""``KerasFileEditor``: inspect, edit and resave the weights of a ``.keras`` or
``.weights.h5`` file (Keras 3's ``keras.saving.KerasFileEditor``).

The file is read as untrusted data with the checks of ``h5_weights.scan`` (hard links only,
plain numeric contiguous datasets) and ``archive.KerasArchive``; nothing in it is executed.
Its weights become a nested dict, ``weights_dict``: one entry per object (``"layers"`` ->
``"dense"`` -> ...), whose own weights are the entries ``"0"``, ``"1"``... (numpy arrays),
beside its sub-objects. Edits change that dict; ``save`` writes it back as a
``.weights.h5`` file, atomically.

>>> import os, tempfile, numpy as np, kgraph as kg
>>> folder = tempfile.mkdtemp()
>>> x = kg.Input(shape=(3,))
>>> model = kg.Model(x, kg.layers.Dense(2, name="d")(x))
>>> model.save_weights(os.path.join(folder, "m.weights.h5"))
>>> editor = KerasFileEditor(os.path.join(folder, "m.weights.h5"))  # doctest: +ELLIPSIS
Keras model file '...m.weights.h5'
>>> editor.add_weights("dense", {"2": np.zeros(2, "float32")})
>>> editor.compare(model)["status"]  # doctest: +ELLIPSIS
Running comparison
...
'error'
>>> editor.delete_weight("layers/dense", "2")
>>> editor.compare(model)  # doctest: +ELLIPSIS
Running comparison
...
{'status': 'success', 'error_count': 0, 'match_count': 2}
>>> editor.save(os.path.join(folder, "edited.weights.h5"))
>>> model.load_weights(os.path.join(folder, "edited.weights.h5"))
"""

from __future__ import annotations

import io
import json
import os

import h5py
import numpy as np

from kgraph.optimizers import keras_variables
from kgraph.saving import archive, h5_weights, keras_layout
from kgraph.saving.errors import LoadError

__all__ = ["KerasFileEditor"]


def _check_weights(weights, where):
    if not isinstance(weights, dict):
        raise ValueError(f"{where}: argument `weights` should be a dict mapping weight names "
                         "(usually '0', '1', ...) to NumPy arrays. Received: "
                         f"type(weights)={type(weights)}")


def _leaf_path(parts):
    return "/".join(parts)


class KerasFileEditor:
    """Inspect, edit and resave the weights of ``filepath`` (``.keras`` or ``.weights.h5``).

    Attributes: ``filepath``; ``config`` and ``metadata`` (the ``.keras`` file's JSON, else
    None); ``weights_dict`` (the nested weights, see the module docstring);
    ``object_metadata`` (``{object path: {"name": ...}}``, from the file's ``vars`` groups).
    """

    def __init__(self, filepath):
        self.filepath = os.fspath(filepath)
        self.metadata = None
        self.config = None
        self.model = None
        where = self.filepath
        if where.endswith(".keras"):
            with archive.KerasArchive(where) as zf:
                self.config = self._json(zf, archive.CONFIG, archive.MAX_CONFIG_BYTES)
                if archive.METADATA in zf.members:
                    self.metadata = self._json(zf, archive.METADATA,
                                               archive.MAX_METADATA_BYTES)
                if archive.WEIGHTS not in zf.members:
                    raise LoadError(f"{where}: missing member {archive.WEIGHTS!r}; expected "
                                    "the weights of a Keras 3 .keras file.")
                data = zf.read(archive.WEIGHTS, zf.members[archive.WEIGHTS].file_size)
            source, size = io.BytesIO(data), len(data)
        elif where.endswith(".weights.h5"):
            source, size = where, os.path.getsize(where)
        else:
            raise ValueError("Invalid filename: expected a `.keras` or `.weights.h5` "
                             f"extension. Received: filepath={where}")
        self.weights_dict, self.object_metadata = self._read(source, size, where)
        print(f"Keras model file '{self.filepath}'")
        if self.metadata is not None:
            print(f"Saved with Keras {self.metadata.get('keras_version')} - date: "
                  f"{self.metadata.get('date_saved')}")

    @staticmethod
    def _json(zf, member, cap):
        try:
            value = json.loads(zf.read(member, cap))
        except (UnicodeDecodeError, json.JSONDecodeError) as err:
            raise LoadError(f"{zf.where}: member {member!r} is not valid JSON ({err}).") from None
        if not isinstance(value, dict):
            raise LoadError(f"{zf.where}: member {member!r} should hold a JSON object, "
                            f"received {type(value).__name__}.")
        return value

    @staticmethod
    def _read(source, size, where):
        """``(weights_dict, object_metadata)`` of the HDF5 weights in ``source``. A dataset
        ``a/b/vars/0`` becomes ``weights["a"]["b"]["0"]``; the data read is bounded by the
        file's size (each dataset's bytes must be stored in the file)."""
        weights, metadata, total = {}, {}, 0
        with h5_weights.open_file(source, where) as file:
            datasets = h5_weights.scan(file, where, group_attr=lambda key: True)
            for path in sorted(datasets):
                dataset, dtype = datasets[path]
                parts = path.split("/")
                if len(parts) < 2 or parts[-2] != "vars":
                    raise LoadError(f"{where}: unexpected dataset {path!r}; expected weights "
                                    "stored as '<object path>/vars/<index>'.")
                total += h5_weights.nbytes(dataset.shape, dtype)
                if total > size:
                    raise LoadError(f"{where}: dataset {path!r} declares more data than the "
                                    f"file holds ({total} bytes so far, file of {size}).")
                node = weights
                for part in parts[:-2]:
                    node = node.setdefault(part, {})
                    if not isinstance(node, dict):
                        raise LoadError(f"{where}: {path!r} nests an object under a weight.")
                node[parts[-1]] = h5_weights.read_dataset(dataset, tuple(dataset.shape), dtype,
                                                          where)
                name = file[path].parent.attrs.get("name")
                if isinstance(name, bytes):
                    name = name.decode("utf-8", "replace")
                if isinstance(name, str):
                    metadata[_leaf_path(parts[:-2])] = {"name": name}
        return weights, metadata

    # -- inspection --------------------------------------------------------------------

    def summary(self):
        """Print the weight structure of the opened file."""
        print("Weights structure")
        self._print_tree(self.weights_dict, "  ", True, "")

    def _print_tree(self, tree, prefix, is_first, path):
        for index, (key, value) in enumerate(tree.items()):
            inner = f"{path}/{key}" if path else key
            is_last = index == len(tree) - 1
            connector = "> " if is_first else ("└─ " if is_last else "├─ ")
            is_first = False
            if isinstance(value, dict):
                label = f"{prefix}{connector}{key}"
                if "name" in self.object_metadata.get(inner, {}):
                    label += f" ('{self.object_metadata[inner]['name']}')"
                print(label)
                self._print_tree(value, prefix + ("    " if is_last else "│   "), False, inner)
            else:
                print(f"{prefix}{connector}{key}: shape={value.shape}, dtype={value.dtype}")

    def compare(self, reference_model):
        """Compare the file's weights with ``reference_model``'s (what it would save),
        print every mismatch, and return ``{"status": "success" or "error",
        "error_count": ..., "match_count": ...}``."""
        print("Running comparison")
        reference = _weight_spec(reference_model)
        checked: set = set()
        errors, matches = _compare(self.weights_dict, reference, "", "saved file",
                                   "reference model", checked)
        more, _ = _compare(reference, self.weights_dict, "", "reference model", "saved file",
                           checked)
        errors += more
        print("─────────────────────")
        plural = "" if errors == 1 else "s"
        if errors == 0:
            print("Comparison successful: saved file is compatible with the reference model")
            print(f"    Found {matches} matching weight{'' if matches == 1 else 's'}")
            status = "success"
        else:
            print(f"Found {errors} error{plural}: saved file is not compatible with the "
                  "reference model")
            status = "error"
        return {"status": status, "error_count": errors, "match_count": matches}

    # -- edits -------------------------------------------------------------------------

    def _parent(self, parts, missing):
        """The dict holding the last of the path ``parts``; ``missing(part)`` says what is
        wrong when an object on the way is absent."""
        node = self.weights_dict
        for part in parts[:-1]:
            if not isinstance(node.get(part), dict):
                raise ValueError(f"{self.filepath}: {missing(part)}.")
            node = node[part]
        return node

    def _containers(self, object_name, what):
        """The dicts holding ``object_name`` (a path: exactly one; a name: every dict that
        has it as a key, which must be exactly one)."""
        if "/" in object_name:
            parts = object_name.split("/")
            node = self._parent(parts, lambda part: f"path '{object_name}' not found in model "
                                                    f"(no object '{part}'; {what})")
            if parts[-1] not in node:
                raise ValueError(f"{self.filepath}: path '{object_name}' not found in model "
                                 f"({what}); found there: {list(node)}.")
            return node, parts[-1]
        found = []

        def visit(node):
            for value in node.values():
                if isinstance(value, dict):
                    visit(value)
            if object_name in node:
                found.append(node)

        visit(self.weights_dict)
        if len(found) > 1:
            raise ValueError(f"{self.filepath}: name '{object_name}' occurs {len(found)} times "
                             f"in the model ({what}); expected once: pass a complete path.")
        if not found:
            raise ValueError(f"{self.filepath}: source name '{object_name}' does not appear "
                             f"in the model ({what}). Use `editor.summary()` to list all "
                             "objects.")
        return found[0], object_name

    def _object(self, object_name, what):
        node, key = self._containers(object_name, what)
        if not isinstance(node[key], dict):
            raise ValueError(f"{self.filepath}: '{object_name}' is a weight, expected an "
                             f"object ({what}).")
        return node[key]

    def rename_object(self, object_name, new_name):
        """Rename an object (a name such as ``"dense_2"`` or a path ``"layers/dense_2"``)."""
        if "/" in new_name:
            raise ValueError(f"{self.filepath}: argument `target_name` should be a leaf name, "
                             f"not a full path name. Received: target_name='{new_name}'")
        node, key = self._containers(object_name, f"renaming it to '{new_name}'")
        if new_name in node and new_name != key:
            raise ValueError(f"{self.filepath}: cannot rename '{object_name}' to "
                             f"'{new_name}': an object of that name exists beside it.")
        node[new_name] = node.pop(key)

    def delete_object(self, object_name):
        """Remove an object (a name or a path) and everything under it."""
        node, key = self._containers(object_name, "deleting it")
        del node[key]

    def add_object(self, object_path, weights):
        """Add the object ``object_path`` (a full path, e.g. ``"layers/dense_2"``) with
        ``weights`` (``{"0": array, "1": array, ...}``)."""
        _check_weights(weights, self.filepath)
        parts = object_path.split("/")
        node = self._parent(parts, lambda _: f"path '{'/'.join(parts[:-1])}' not found in "
                                             f"model (adding '{object_path}')")
        node[parts[-1]] = {str(k): np.asarray(v) for k, v in weights.items()}

    def delete_weight(self, object_name, weight_name):
        """Remove the weight ``weight_name`` (e.g. ``"0"``) of an object (name or path)."""
        obj = self._object(object_name, f"deleting weight '{weight_name}'")
        if weight_name not in obj or isinstance(obj[weight_name], dict):
            raise ValueError(f"{self.filepath}: weight {weight_name} not found in object "
                             f"{object_name}. Weights found: "
                             f"{[k for k, v in obj.items() if not isinstance(v, dict)]}")
        del obj[weight_name]

    def add_weights(self, object_name, weights):
        """Add ``weights`` (``{"2": array, ...}``) to an existing object (name or path)."""
        _check_weights(weights, self.filepath)
        obj = self._object(object_name, f"adding weights {list(weights)}")
        obj.update({str(k): np.asarray(v) for k, v in weights.items()})

    # -- writing -----------------------------------------------------------------------

    def save(self, filepath):
        """Write the edited weights to ``filepath`` (a ``.weights.h5`` file), atomically."""
        filepath = os.fspath(filepath)
        if not filepath.endswith(".weights.h5"):
            raise ValueError("Invalid `filepath` argument: expected a `.weights.h5` "
                             f"extension. Received: filepath={filepath}")
        buffer = io.BytesIO()
        with h5py.File(buffer, "w") as file:
            self._write(file, self.weights_dict, "")
        with archive.atomic_write(filepath) as out:
            out.write(buffer.getvalue())

    def _write(self, file, tree, path):
        own = {k: v for k, v in tree.items() if not isinstance(v, dict)}
        if own:
            group = file.create_group(f"{path}/vars" if path else "vars")
            name = self.object_metadata.get(path, {}).get("name")
            if name is not None:
                group.attrs["name"] = name
            for key, value in own.items():
                h5_weights.write_dataset(group, key, value)
        for key, value in tree.items():
            if isinstance(value, dict) and value:
                self._write(file, value, f"{path}/{key}" if path else key)

    def resave_weights(self, filepath):
        """``save(filepath)``."""
        self.save(filepath)


def _weight_spec(model) -> dict:
    """What ``model`` would write, as ``weights_dict`` is laid out (arrays' shapes only)."""
    spec: dict = {}
    for group in keras_layout.weight_groups(model):
        store: dict = {}
        group.layer.save_own_variables(store)
        if not store:
            continue
        node = spec
        for part in filter(None, group.path.split("/")):
            node = node.setdefault(part, {})
        node.update({key: np.shape(store[key]) for key in sorted(store)})
    optimizer = keras_variables.model_variables(model)
    if optimizer is not None and optimizer[1]:
        spec["optimizer"] = {str(i): np.shape(v) for i, v in enumerate(optimizer[1])}
    return spec


def _shape(value):
    return value if isinstance(value, tuple) else tuple(np.shape(value))


def _compare(target, reference, path, target_name, ref_name, checked):
    """``(errors, matches)`` of ``target`` against ``reference``, printing each mismatch
    not printed before (``checked``)."""
    errors = matches = 0
    for key, ref in reference.items():
        inner = f"{path}/{key}"
        if inner in checked:
            continue
        if key not in target:
            errors += 1
            checked.add(inner)
            kind = "Object" if isinstance(ref, dict) else "Weight"
            print(f"...{kind} {inner} present in {ref_name}, missing from {target_name}")
            if isinstance(ref, dict):
                print(f"    In {ref_name}, {inner} contains the following keys: {list(ref)}")
        elif isinstance(ref, dict) != isinstance(target[key], dict):
            errors += 1
            checked.add(inner)
            kinds = {True: "an object", False: "a weight"}
            print(f"...{inner} is {kinds[isinstance(ref, dict)]} in {ref_name}, "
                  f"{kinds[isinstance(target[key], dict)]} in {target_name}")
        elif isinstance(ref, dict):
            more_errors, more_matches = _compare(target[key], ref, inner, target_name,
                                                 ref_name, checked)
            errors += more_errors
            matches += more_matches
        elif _shape(target[key]) != _shape(ref):
            errors += 1
            checked.add(inner)
            print(f"...Weight shape mismatch for {inner}\n    In {ref_name}: "
                  f"shape={_shape(ref)}\n    In {target_name}: shape={_shape(target[key])}")
        else:
            matches += 1
    return errors, matches
