"""``kgraph.saving.KerasFileEditor`` against ``keras.saving.KerasFileEditor``: the same edits
on files written by Keras and by kgraph give files both load, with the same weights, and
the same ``summary`` objects and ``compare`` verdicts and messages."""

import re

import h5py
import keras
import numpy as np
import pytest

import kgraph as kg
from kgraph.saving.errors import LoadError


def _models():
    """The same two-Dense model in Keras and in kgraph, with equal weights."""
    kx = keras.Input(shape=(3,))
    theirs = keras.Model(kx, keras.layers.Dense(2)(keras.layers.Dense(4)(kx)))
    gx = kg.Input(shape=(3,))
    ours = kg.Model(gx, kg.layers.Dense(2)(kg.layers.Dense(4)(gx)))
    ours.set_weights(theirs.get_weights())
    return theirs, ours


def _tree(node):
    return {k: _tree(v) if isinstance(v, dict) else (v.shape, str(v.dtype), v.tolist())
            for k, v in node.items()}


def _text(out):
    """Printed text with rich's wrapping, the object names and the counts taken out (Keras
    counts nested matches more than once)."""
    out = re.sub(r" \('[^']*'\)", "", out)
    out = re.sub(r"Found \d+ (matching weight|error)s?", "Found N", out)
    return " ".join(out.split())


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("editor")
    theirs, ours = _models()
    paths = {}
    for writer, model in (("keras", theirs), ("kgraph", ours)):
        paths[writer, "h5"] = str(folder / f"{writer}.weights.h5")
        paths[writer, "keras"] = str(folder / f"{writer}.keras")
        model.save_weights(paths[writer, "h5"])
        model.save(paths[writer, "keras"])
    return paths


def _run(k, model, path, out_path, new, capsys):
    """Open ``path`` with ``k``'s editor, edit, compare, save; the printed text of each step."""
    texts = []
    editor = k.saving.KerasFileEditor(path)
    texts.append(capsys.readouterr().out)
    editor.summary()
    texts.append(capsys.readouterr().out)
    editor.delete_object("layers/dense_1")
    texts.append((editor.compare(model)["status"], capsys.readouterr().out))
    editor.add_object("layers/dense_1", weights={"0": new[0], "1": new[1]})
    editor.add_weights("dense", {"2": np.zeros(5, "float32")})
    texts.append((editor.compare(model)["status"], capsys.readouterr().out))
    editor.delete_weight("layers/dense", "2")
    editor.rename_object("dense", "renamed")
    texts.append((editor.compare(model)["status"], capsys.readouterr().out))
    editor.rename_object("layers/renamed", "dense")
    result = editor.compare(model)
    texts.append((result["status"], capsys.readouterr().out))
    editor.save(out_path)
    return editor, texts, result


@pytest.mark.parametrize("kind", ["h5", "keras"])
@pytest.mark.parametrize("writer", ["keras", "kgraph"])
def test_same_edits_same_files_and_messages(files, writer, kind, tmp_path, capsys):
    theirs, ours = _models()
    new = [np.full((4, 2), 0.5, "float32"), np.arange(2, dtype="float32")]
    path = files[writer, kind]
    k_editor, k_texts, k_result = _run(keras, theirs, path, str(tmp_path / "k.weights.h5"),
                                       new, capsys)
    g_editor, g_texts, g_result = _run(kg, ours, path, str(tmp_path / "g.weights.h5"), new,
                                       capsys)
    assert _tree(g_editor.weights_dict) == _tree(k_editor.weights_dict)
    assert g_editor.config == k_editor.config and g_editor.metadata == k_editor.metadata
    assert _text(g_texts[0]) == _text(k_texts[0])
    assert _text(g_texts[1]) == _text(k_texts[1])  # the summary's objects and weights
    for (g_status, g_out), (k_status, k_out) in zip(g_texts[2:], k_texts[2:]):
        assert g_status == k_status
        assert _text(g_out) == _text(k_out)
    assert [t[0] for t in g_texts[2:]] == ["error", "error", "error", "success"]
    assert g_result == {"status": "success", "error_count": 0, "match_count": 4}
    assert set(k_result) == set(g_result)
    # both results load in both libraries, with the same weights
    dense = g_editor.weights_dict["layers"]["dense"]
    expected = [dense["0"], dense["1"]] + new
    for out in ("k.weights.h5", "g.weights.h5"):
        theirs.load_weights(str(tmp_path / out))
        ours.load_weights(str(tmp_path / out))
        for w_k, w_g, w_e in zip(theirs.get_weights(), ours.get_weights(), expected):
            np.testing.assert_array_equal(w_k, w_e)
            np.testing.assert_array_equal(w_g, w_e)


def test_errors_name_the_file_and_the_object(files, capsys):
    path = files["kgraph", "h5"]
    editor = kg.saving.KerasFileEditor(path)
    with pytest.raises(ValueError, match=re.escape(path) + ".*'nope' does not appear"):
        editor.delete_object("nope")
    with pytest.raises(ValueError, match=re.escape(path) + ".*weight 7 not found in object "
                       r"dense\. Weights found: \['0', '1'\]"):
        editor.delete_weight("dense", "7")
    with pytest.raises(ValueError, match="should be a dict.*Received: type"):
        editor.add_weights("dense", [np.zeros(1)])
    with pytest.raises(ValueError, match="leaf name"):
        editor.rename_object("dense", "a/b")
    with pytest.raises(ValueError, match=r"expected a `\.weights\.h5` extension"):
        editor.save(path[:-len(".weights.h5")] + ".keras")
    with pytest.raises(ValueError, match=r"expected a `\.keras` or `\.weights\.h5`"):
        kg.saving.KerasFileEditor(path + ".txt")


def test_refuses_links(tmp_path, capsys):
    path = str(tmp_path / "linked.weights.h5")
    with h5py.File(path, "w") as f:
        f.create_dataset("layers/dense/vars/0", data=np.zeros(2))
        f["layers/dense/vars/1"] = h5py.ExternalLink("/etc/passwd", "/x")
    with pytest.raises(LoadError, match=re.escape(path) + ".*ExternalLink"):
        kg.saving.KerasFileEditor(path)
