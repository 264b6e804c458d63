"""NpzIOStore (Keras's ``saving_lib.NpzIOStore``): arrays written and read back, and a
member whose header declares far more data than it stores refused before it is read."""

import io
import zipfile

import numpy as np
import pytest

from kgraph.src.saving.saving_lib import NpzIOStore


def test_reads_a_normal_array_and_an_archive_member(tmp_path):
    path = tmp_path / "store.npz"
    a = np.arange(6, dtype="float32").reshape(2, 3)
    np.savez(path, w=a)
    store = NpzIOStore(str(path), mode="r")
    assert store.get("w") == a.tolist() and store.get("missing") == {}
    assert store.has_path("w")
    store.close()
    with zipfile.ZipFile(tmp_path / "a.zip", "w") as archive:
        writer = NpzIOStore("model.weights.npz", archive=archive, mode="w")
        writer.contents["w"] = a
        writer.close()
    with zipfile.ZipFile(tmp_path / "a.zip") as archive:
        assert NpzIOStore("model.weights.npz", archive=archive).get("w") == a.tolist()


def test_refuses_a_member_declaring_data_it_does_not_store(tmp_path):
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f8", "fortran_order": False, "shape": (2**50,)})
    path = tmp_path / "bomb.npz"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("w.npy", header.getvalue())
    with pytest.raises(ValueError, match="Refusing to load npz weight 'w'"):
        NpzIOStore(str(path), mode="r").get("w")
