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

os.environ.setdefault("KERAS_BACKEND", "jax")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import kgraph as kg  # noqa: E402
from kgraph.datasets import _download  # noqa: E402


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
