"""``compile(loss=...)`` given as a structure matching the model's outputs (a loss on a
whole substructure receives it whole), as Keras's CompileLoss: the same loss values and
the same per-loss log names as Keras."""

import keras
import numpy as np
import pytest

import kgraph as kg

_X = np.random.default_rng(0).normal(size=(8, 3)).astype("float32")
_Y = [np.random.default_rng(i).uniform(size=(8, 1)).astype("float32") for i in (1, 2, 3)]


def _struct_loss(lib):
    def loss_fn(y_true, y_pred):  # every leaf of the structure it is given
        pairs = zip(lib.tree.flatten(y_true), lib.tree.flatten(y_pred))
        return sum(lib.losses.mean_absolute_error(t, p) for t, p in pairs)
    return loss_fn


def _dense(lib, name):
    return lib.layers.Dense(1, name=name, activation="sigmoid", kernel_initializer="ones")


def _evaluate(lib, make_outputs, loss, y, loss_weights=None):
    x = lib.Input(shape=(3,), name="x")
    model = lib.Model(x, make_outputs(lib, x))
    model.compile(optimizer="sgd", loss=loss(lib, model), loss_weights=loss_weights)
    return model.evaluate(_X, y, batch_size=4, verbose=0, return_dict=True)


def _list_like(kind):
    def make(lib, x):
        return kind([_dense(lib, "y1")(x), _dense(lib, "y2")(x)])
    return make


@pytest.mark.parametrize("kind, other", [(tuple, list), (list, tuple)])
@pytest.mark.parametrize("weights", [None, [0.5, [2.0, 0.25]]])
def test_a_loss_on_the_whole_outputs_and_one_per_output(kind, other, weights):
    def loss(lib, model):
        return other([_struct_loss(lib), kind([_struct_loss(lib), _struct_loss(lib)])])

    y = kind(_Y[:2])
    weights = None if weights is None else other([weights[0], kind(weights[1])])
    ours, theirs = (_evaluate(lib, _list_like(kind), loss, y, weights) for lib in (kg, keras))
    assert sorted(ours) == sorted(theirs) == ["loss", "y1_loss", "y1_y2_loss", "y2_loss"]
    for name in theirs:
        assert ours[name] == pytest.approx(theirs[name], rel=1e-5)


@pytest.mark.parametrize("kind", [tuple, list])
def test_a_loss_given_as_the_outputs_own_structure_sees_each_output_alone(kind):
    def loss(lib, model):  # (the whole-outputs loss is given y1 alone: its check fails)
        return kind([_struct_loss_of(lib, model.output),
                     kind([_struct_loss(lib), _struct_loss(lib)])])

    def _struct_loss_of(lib, structure):
        def loss_fn(y_true, y_pred):
            lib.tree.assert_same_structure(structure, y_pred)
            return lib.ops.mean(y_pred)
        return loss_fn

    for lib in (kg, keras):
        with pytest.raises(ValueError, match=f"[Ee]xpected.*{kind.__name__}"):
            _evaluate(lib, _list_like(kind), loss, kind(_Y[:2]))


def test_deeply_nested_dict_outputs_with_losses_on_substructures():
    def outputs(lib, x):
        y1, y2, y3 = _dense(lib, "y1")(x), _dense(lib, "y2")(x), _dense(lib, "y3")(x)
        return {"a": (y1, y2), "b": {"b1": y1, "b2": y2}, "c": {"c1": (y1, y2), "c2": y2},
                "d": y3}

    def loss(lib, model):
        each = _struct_loss(lib)
        return {"a": [each, (None, each)], "b": [each, {"b1": each}],
                "c": [each, {"c1": each}], "d": each}

    y1, y2, y3 = _Y
    y = {"a": (y1, y2), "b": {"b1": y1, "b2": y2}, "c": {"c1": (y1, y2), "c2": y2}, "d": y3}
    ours, theirs = (_evaluate(lib, outputs, loss, y) for lib in (kg, keras))
    assert sorted(ours) == sorted(theirs)
    assert "a/y2_loss" in ours and "c/c1_loss" in ours
    for name in theirs:
        assert ours[name] == pytest.approx(theirs[name], rel=1e-5)


def test_compute_loss_regrouping_the_predictions_places_the_losses_on_them():
    def history(lib):
        class Doubled(lib.Model):
            def __init__(self):
                inputs = lib.Input(shape=(3,), name="inputs")
                super().__init__(inputs, lib.layers.Dense(1, name="a")(inputs))

            def compute_loss(self, x, y, y_pred, sample_weight=None, **kwargs):
                return super().compute_loss(x=x, y=y, y_pred=[y_pred, y_pred],
                                            sample_weight=sample_weight, **kwargs)

        model = Doubled()
        model.compile(optimizer="sgd", loss=["mean_squared_error", "binary_crossentropy"])
        labels = (_Y[0], (_Y[1] > 0.5).astype("float32"))
        return model.fit(_X, labels, batch_size=2, epochs=1, verbose=0).history

    ours, theirs = history(kg), history(keras)
    assert sorted(ours) == sorted(theirs) == ["binary_crossentropy_loss", "loss",
                                              "mean_squared_error_loss"]


def test_assert_same_structure_names_the_missing_container_as_keras():
    for lib in (kg, keras):
        with pytest.raises(ValueError, match="[Ee]xpected.*tuple"):
            lib.tree.assert_same_structure((1, 2), 3)
        with pytest.raises(ValueError, match="[Ee]xpected.*list"):
            lib.tree.assert_same_structure([1, [2]], [1, 2])
        with pytest.raises(ValueError, match="don't have the same nested"):
            lib.tree.assert_same_structure(1, (1, 2))
