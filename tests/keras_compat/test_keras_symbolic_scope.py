"""``keras.SymbolicScope``: open while a layer runs on symbolic inputs (its output shape is
being found), closed when it runs on arrays, as in Keras 3."""

import os

os.environ.setdefault("KERAS_BACKEND", "jax")

import keras
import numpy as np
import pytest

import kgraph as kg
from kgraph.base.symbolic_scope import in_symbolic_scope as kgraph_in_symbolic_scope
from kgraph.src.backend import in_symbolic_scope as src_in_symbolic_scope

keras_in_symbolic_scope = keras.src.backend.common.symbolic_scope.in_symbolic_scope


def _recording_layer(lib, probe):
    class Recorder(lib.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.seen = []

        def call(self, x):
            self.seen.append(probe())
            return x * 2.0

    return Recorder()


@pytest.mark.parametrize("lib,probe", [(keras, keras_in_symbolic_scope),
                                       (kg, kgraph_in_symbolic_scope)], ids=["keras", "kgraph"])
def test_the_scope_is_open_on_symbolic_inputs_only(lib, probe):
    layer = _recording_layer(lib, probe)
    layer(lib.Input(shape=(3,)))
    assert any(layer.seen) and all(layer.seen)
    layer.seen.clear()
    layer(np.ones((2, 3), "float32"))
    assert layer.seen == [False]


def test_scopes_nest_and_restore_as_keras():
    for lib, probe in ((keras, keras_in_symbolic_scope), (kg, src_in_symbolic_scope)):
        assert not probe()
        with lib.SymbolicScope() as outer:
            with lib.SymbolicScope():
                assert probe()
            assert probe() and outer is not None
        assert not probe()
