"""A functional model's outputs come back in Keras's structure: ``Model(x, [y])`` called on
arrays gives ``y`` itself (Keras's ``unpack_singleton``), and ``predict`` too; called on
KerasTensors it gives the list, as Keras's output spec does."""

import keras
import numpy as np
import pytest

import kgraph as kg


@pytest.mark.parametrize("wrap", [list, tuple, None])
def test_one_output_in_a_list_comes_back_alone_as_keras(wrap):
    found = {}
    for lib in (keras, kg):
        x = lib.Input((3,))
        y = lib.layers.Dense(2)(x)
        model = lib.Model(x, wrap([y]) if wrap is not None else y)
        data = np.ones((4, 3), "float32")
        called, predicted = model(data), model.predict(data, verbose=0)
        symbolic = model(lib.Input((3,)))
        found[lib] = (type(np.asarray(called)).__name__, np.shape(called), np.shape(predicted),
                      isinstance(symbolic, (list, tuple)), len(model.outputs))
    assert found[kg] == found[keras]


def test_two_outputs_stay_a_list_as_keras():
    found = {}
    for lib in (keras, kg):
        x = lib.Input((3,))
        model = lib.Model(x, [lib.layers.Dense(2)(x), lib.layers.Dense(1)(x)])
        out = model(np.ones((4, 3), "float32"))
        found[lib] = (type(out).__name__, [np.shape(o) for o in out])
    assert found[kg] == found[keras]
