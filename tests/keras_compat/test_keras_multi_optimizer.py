"""MultiOptimizer and OptimizerMap: each weight trained by the optimizer its path chooses,
with Keras's numbers in fit, Keras's lookup rules and configs."""

import keras
import numpy as np
import pytest

import kgraph as kg

_rng = np.random.default_rng(3)
X = _rng.normal(size=(32, 3)).astype("float32")
Y = _rng.normal(size=(32, 2)).astype("float32")


def _model(lib):
    x = lib.Input((3,))
    h = lib.layers.Dense(4, activation="tanh", name="encoder")(x)
    return lib.Model(x, lib.layers.Dense(2, name="head")(h))


def _chooser(lib, kind):
    if kind == "map":
        return lib.optimizers.OptimizerMap(lib.optimizers.SGD(0.1),
                                           {"encoder/.*": lib.optimizers.Adam(0.01)})
    adam, sgd = lib.optimizers.Adam(0.01), lib.optimizers.SGD(0.1, momentum=0.5)
    return lambda weight: adam if weight.path.endswith("kernel") else sgd


@pytest.mark.parametrize("kind", ["map", "function"])
def test_fit_trains_each_weight_with_its_optimizer_as_keras(kind):
    ours, theirs, single = _model(kg), _model(keras), _model(kg)
    start = theirs.get_weights()
    ours.set_weights(start)
    single.set_weights(start)
    single.compile(kg.optimizers.SGD(0.1), "mse")  # one optimizer for every weight
    single.fit(X, Y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    for model, lib in ((ours, kg), (theirs, keras)):
        model.compile(lib.optimizers.MultiOptimizer(_chooser(lib, kind)), "mse")
        model.fit(X, Y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    for a, b in zip(ours.get_weights(), theirs.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert not np.allclose(ours.get_weights()[0], single.get_weights()[0], atol=1e-3)
    optimizer = ours.optimizer
    assert len(optimizer.optimizers) == 2 and int(optimizer.iterations) == 8
    with pytest.raises(AttributeError, match="sub-optimizers"):
        optimizer.learning_rate  # noqa: B018 - as Keras: each sub-optimizer has its own


def test_the_list_api_chooses_by_variable_path():
    theirs_model, ours_model = _model(keras), _model(kg)
    ours_model.set_weights(theirs_model.get_weights())
    theirs = keras.optimizers.MultiOptimizer(_chooser(keras, "map"))
    ours = kg.optimizers.MultiOptimizer(_chooser(kg, "map"))
    grads = [_rng.normal(size=w.shape).astype("float32") for w in ours_model.get_weights()]
    for _ in range(3):
        theirs.apply(grads, theirs_model.trainable_variables)
        ours.apply(grads, ours_model.trainable_variables)
    for a, b in zip(ours_model.get_weights(), theirs_model.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_the_map_looks_up_as_kerass():
    adam, sgd, rms = kg.optimizers.Adam(), kg.optimizers.SGD(), kg.optimizers.RMSprop()
    chooser = kg.optimizers.OptimizerMap(default_optimizer=rms)
    chooser["encoder/layer_0/dense"] = adam
    chooser["encoder/.*"] = sgd
    chooser["decoder"] = adam
    assert chooser["encoder/layer_0/dense"] is adam
    assert chooser["encoder/layer_0/attention/query"] is sgd
    assert chooser["decoder/layer_0/dense"] is rms and len(chooser) == 3
    with pytest.raises(ValueError, match="already exists"):
        chooser["decoder"] = sgd
    chooser[".*/dense"] = sgd
    with pytest.raises(ValueError, match="Multiple optimizers"):
        chooser["encoder/layer_1/dense"]  # noqa: B018
    with pytest.raises(TypeError, match="default_optimizer"):
        kg.optimizers.OptimizerMap("adam")
    with pytest.raises(ValueError, match="optimizer cannot be MultiOptimizer"):
        chooser["x"] = kg.optimizers.MultiOptimizer(chooser)
    with pytest.raises(ValueError, match="optimizer cannot be LossScaleOptimizer"):
        chooser["y"] = kg.optimizers.LossScaleOptimizer(kg.optimizers.SGD())


def test_a_compiled_model_file_keeps_the_multi_optimizer(tmp_path):
    model = _model(kg)
    model.compile(kg.optimizers.MultiOptimizer(_chooser(kg, "map")), "mse")
    model.fit(X, Y, batch_size=8, epochs=1, verbose=0)
    with pytest.warns(UserWarning, match="sub-optimizers' states"):
        model.save(tmp_path / "m.keras")
    loaded = kg.load_model(tmp_path / "m.keras")
    assert isinstance(loaded.optimizer, kg.optimizers.MultiOptimizer)
    assert loaded.optimizer.get_config() == model.optimizer.get_config()


def test_kerass_config_loads_and_ours_round_trips():
    theirs = keras.optimizers.MultiOptimizer(keras.optimizers.OptimizerMap(
        keras.optimizers.SGD(0.1), {"encoder/.*": keras.optimizers.Adam(0.01)}), name="multi")
    ours = kg.optimizers.deserialize(keras.optimizers.serialize(theirs))
    assert isinstance(ours, kg.optimizers.MultiOptimizer) and ours.name == "multi"
    assert [type(o).__name__ for o in ours.optimizers] == ["Adam", "SGD"]
    assert ours._optimizer_map["encoder/dense"].get_config()["learning_rate"] == \
        pytest.approx(0.01)
    again = kg.optimizers.deserialize(kg.optimizers.serialize(ours))
    assert again.get_config() == ours.get_config()
    assert set(ours.get_config()) == set(theirs.get_config())
