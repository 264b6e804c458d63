"""``keras.name_scope``: the paths of variables made inside, as Keras's."""

import keras
import pytest

import kgraph as kg


def _paths(lib):
    paths = []
    with lib.name_scope("outer"):
        paths.append(lib.Variable(1.0, name="a").path)
        with lib.name_scope("inner"):
            paths.append(lib.Variable(1.0, name="b").path)
        with lib.name_scope("other", override_parent="root/base"):
            paths.append(lib.Variable(1.0, name="c").path)
        caller = object()
        with lib.name_scope("again", caller=caller):
            with lib.name_scope("again", caller=caller):  # the same caller: not re-entered
                paths.append(lib.Variable(1.0, name="d").path)
    paths.append(lib.Variable(1.0, name="e").path)
    return paths


def test_variable_paths_are_kerass():
    assert _paths(kg) == _paths(keras)
    with pytest.raises(ValueError, match="cannot contain character"):
        kg.name_scope("a/b")
