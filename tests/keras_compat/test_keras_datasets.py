"""get_file and the dataset loaders, against a local HTTP server on 127.0.0.1 serving small
files in the real formats; Keras's own loaders read the same files as the oracle."""

import gzip
import hashlib
import http.server
import io
import os
import tarfile
import threading
import zipfile

import numpy as np
import pytest

import kgraph as kg
from kgraph.datasets import _download


@pytest.fixture
def server(tmp_path, monkeypatch):
    """A folder served over HTTP; yields (folder, base URL). The cache goes to tmp."""
    root = tmp_path / "served"
    root.mkdir()
    handler = lambda *a, **k: http.server.SimpleHTTPRequestHandler(  # noqa: E731
        *a, directory=str(root), **k)
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.RequestHandlerClass.log_message = lambda *a: None
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "keras_home"))
    try:
        yield root, f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()


def _sha256(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_get_file_caches_checks_hashes_and_redownloads(server):
    root, base = server
    (root / "a.txt").write_text("first")
    path = kg.utils.get_file(origin=base + "a.txt", file_hash=_sha256(root / "a.txt"))
    assert open(path).read() == "first"
    assert path.startswith(os.environ["KERAS_HOME"]) and "datasets" in path
    (root / "a.txt").write_text("second")
    assert open(kg.utils.get_file(origin=base + "a.txt")).read() == "first"  # cached
    assert open(kg.utils.get_file(origin=base + "a.txt",
                                  file_hash=_sha256(root / "a.txt"))).read() == "second"
    with pytest.raises(ValueError, match="file hash does not match"):
        kg.utils.get_file("b.txt", origin=base + "a.txt", file_hash="0" * 64)
    assert not os.path.exists(os.path.join(os.path.dirname(path), "b.txt"))
    assert not [n for n in os.listdir(os.path.dirname(path)) if n.startswith(".download")]
    with pytest.raises(Exception, match="URL fetch failure"):
        kg.utils.get_file(origin=base + "missing.txt")


def test_get_file_extracts_and_refuses_escaping_members(server):
    root, base = server
    with tarfile.open(root / "good.tar.gz", "w:gz") as archive:
        data = b"inside"
        info = tarfile.TarInfo("folder/file.txt")
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    folder = kg.utils.get_file("good.tar.gz", origin=base + "good.tar.gz", extract=True)
    assert folder.endswith("good_extracted")
    assert open(os.path.join(folder, "folder", "file.txt")).read() == "inside"
    with zipfile.ZipFile(root / "bad.zip", "w") as archive:
        archive.writestr("../escaped.txt", "x")
    with pytest.raises(ValueError, match="outside"):
        kg.utils.get_file("bad.zip", origin=base + "bad.zip", extract=True)
    assert not os.path.exists(os.path.join(os.environ["KERAS_HOME"], "escaped.txt"))


def _serve_like_keras(root, monkeypatch, base):
    monkeypatch.setattr(_download, "ORIGIN", base)
    rng = np.random.default_rng(0)
    np.savez(root / "mnist.npz", x_train=rng.integers(0, 255, (6, 28, 28), np.uint8),
             y_train=np.arange(6, dtype=np.uint8), x_test=np.zeros((2, 28, 28), np.uint8),
             y_test=np.arange(2, dtype=np.uint8))
    np.savez(root / "boston_housing.npz", x=rng.normal(size=(20, 13)), y=rng.normal(size=20))
    np.savez(root / "california_housing.npz", x=rng.normal(size=(700, 8)),
             y=rng.normal(size=700))
    for name in ("mnist.npz", "boston_housing.npz", "california_housing.npz"):
        monkeypatch.setitem(_download.HASHES, name, _sha256(root / name))
    for name, offset, shape in [("train-labels-idx1-ubyte.gz", 8, (5,)),
                                ("train-images-idx3-ubyte.gz", 16, (5, 28, 28)),
                                ("t10k-labels-idx1-ubyte.gz", 8, (3,)),
                                ("t10k-images-idx3-ubyte.gz", 16, (3, 28, 28))]:
        payload = bytes(offset) + rng.integers(0, 255, shape, np.uint8).tobytes()
        (root / name).write_bytes(gzip.compress(payload))


@pytest.mark.parametrize("name, kwargs", [
    ("mnist", {}), ("fashion_mnist", {}), ("boston_housing", {"test_split": 0.3, "seed": 7}),
    ("california_housing", {"version": "small"})])
def test_loaders_return_what_kerass_loaders_return(server, monkeypatch, name, kwargs):
    import importlib

    root, base = server
    _serve_like_keras(root, monkeypatch, base)
    ours = getattr(kg.datasets, name).load_data(**kwargs)
    keras_module = importlib.import_module(f"keras.src.datasets.{name}")
    monkeypatch.setattr(keras_module, "get_file",
                        lambda fname, origin, **_: str(root / os.path.basename(origin)))
    theirs = keras_module.load_data(**kwargs)
    for a, b in zip([v for pair in ours for v in pair], [v for pair in theirs for v in pair]):
        np.testing.assert_array_equal(a, b)
    assert [v.shape for pair in ours for v in pair] == [v.shape for pair in theirs for v in pair]
    assert [v.dtype for pair in ours for v in pair] == [v.dtype for pair in theirs for v in pair]


def _cifar_archive(root, inner, files, label_key, count=4):
    import pickle

    rng = np.random.default_rng(1)
    with tarfile.open(root / "archive.tar.gz", "w:gz") as archive:
        for name in files:
            batch = {b"data": rng.integers(0, 255, (count, 3072), np.uint8),
                     label_key.encode(): rng.integers(0, 10, count).tolist()}
            payload = pickle.dumps(batch, protocol=4)
            info = tarfile.TarInfo(f"{inner}/{name}")
            info.size = len(payload)
            archive.addfile(info, io.BytesIO(payload))
    return root / "archive.tar.gz"


@pytest.mark.parametrize("name, inner, files, key", [
    ("cifar10", "cifar-10-batches-py",
     [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"], "labels"),
    ("cifar100", "cifar-100-python", ["train", "test"], "fine_labels")])
def test_cifar_loaders_read_kerass_batches_without_unpickling_code(server, monkeypatch, name,
                                                                   inner, files, key):
    from keras.src.datasets import cifar as keras_cifar
    from kgraph.datasets import cifar

    root, base = server
    archive = _cifar_archive(root, inner, files, key)
    monkeypatch.setitem(cifar.ORIGINS, name, base + "archive.tar.gz")
    monkeypatch.setitem(cifar.HASHES, name, _sha256(archive))
    (x_train, y_train), (x_test, y_test) = getattr(kg.datasets, name).load_data()
    extracted = [d for d in os.listdir(os.path.join(os.environ["KERAS_HOME"], "datasets"))
                 if d.endswith("-target")][0]
    batch_dir = os.path.join(os.environ["KERAS_HOME"], "datasets", extracted, inner)
    data, labels = keras_cifar.load_batch(os.path.join(batch_dir, files[-1]), label_key=key)
    np.testing.assert_array_equal(x_test, data.transpose(0, 2, 3, 1))
    np.testing.assert_array_equal(y_test[:, 0], labels)
    assert x_train.shape == ((len(files) - 1) * 4, 32, 32, 3) and y_train.dtype == np.uint8


def _sequence_npz(path, **arrays):
    np.savez(path, **{k: np.array(v, dtype=object) if isinstance(v, list) else v
                      for k, v in arrays.items()})


@pytest.mark.parametrize("name, kwargs", [
    ("imdb", {}), ("imdb", {"num_words": 6, "skip_top": 1, "maxlen": 5}),
    ("reuters", {"test_split": 0.25}), ("reuters", {"oov_char": None, "num_words": 5})])
def test_sequence_loaders_match_kerass(server, monkeypatch, name, kwargs):
    import importlib

    root, base = server
    monkeypatch.setattr(_download, "ORIGIN", base)
    rng = np.random.default_rng(2)
    seqs = lambda n: [rng.integers(1, 9, rng.integers(1, 7)).tolist() for _ in range(n)]  # noqa
    if name == "imdb":
        _sequence_npz(root / "imdb.npz", x_train=seqs(8), y_train=rng.integers(0, 2, 8),
                      x_test=seqs(6), y_test=rng.integers(0, 2, 6))
    else:
        _sequence_npz(root / "reuters.npz", x=seqs(12), y=rng.integers(0, 46, 12))
    monkeypatch.setitem(_download.HASHES, f"{name}.npz", _sha256(root / f"{name}.npz"))
    ours = getattr(kg.datasets, name).load_data(**kwargs)
    keras_module = importlib.import_module(f"keras.src.datasets.{name}")
    monkeypatch.setattr(keras_module, "get_file",
                        lambda fname, origin, **_: str(root / os.path.basename(origin)))
    theirs = keras_module.load_data(**kwargs)
    for a, b in zip([v for pair in ours for v in pair], [v for pair in theirs for v in pair]):
        assert [list(x) for x in a] == [list(x) for x in b] if a.dtype == object else \
            np.array_equal(a, b)


def test_pickled_files_cannot_run_code(tmp_path):
    import pickle

    from kgraph.datasets import safe_pickle

    class Exploit:
        def __reduce__(self):
            return (os.system, ("echo owned",))

    np.save(tmp_path / "x.npy", np.array([Exploit()], dtype=object), allow_pickle=True)
    with zipfile.ZipFile(tmp_path / "bad.npz", "w") as archive:
        archive.write(tmp_path / "x.npy", "x.npy")
    with pytest.raises(pickle.UnpicklingError, match="Refusing to load posix.system"):
        safe_pickle.load_npz(tmp_path / "bad.npz")


def test_reuters_topic_names_are_kerass():
    import keras

    assert kg.datasets.reuters.get_label_names() == keras.datasets.reuters.get_label_names()
