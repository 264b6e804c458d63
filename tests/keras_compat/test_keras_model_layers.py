"""``model.layers`` lists layers only, as Keras's: ``ops`` nodes on symbolic tensors are
in ``model.operations``, so index-based access and freezing pick Keras's layers."""

import keras
import pytest

import kgraph as kg


def _model(lib):
    x = lib.Input((4,), name="x")
    h = lib.layers.Dense(3, name="first")(x)
    h = lib.ops.relu(h + 1.0)
    h = lib.layers.Dense(3, name="second")(h)
    h = lib.activations.gelu(h) * 2.0
    return lib.Model(x, lib.layers.Dense(1, name="third")(h))


def test_layers_and_operations_are_kerass():
    ours, theirs = _model(kg), _model(keras)
    assert [layer.name for layer in ours.layers] == [layer.name for layer in theirs.layers]
    assert len(ours.operations) == len(theirs.operations)
    for i in range(len(theirs.layers)):
        assert ours.get_layer(index=i).name == theirs.get_layer(index=i).name


@pytest.mark.parametrize("frozen", [1, 2, 3])
def test_freezing_the_first_layers_freezes_kerass(frozen):
    counts = []
    for model in (_model(kg), _model(keras)):
        for layer in model.layers[:frozen]:
            layer.trainable = False
        counts.append(sum(int(w.numpy().size) for w in model.trainable_weights))
    assert counts[0] == counts[1]
