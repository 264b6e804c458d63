"""``compile`` / ``fit`` keep their state in one runtime object, ``model._training_setup``."""

import numpy as np

import kgraph as kg
from kgraph import layers
from runtime.training_setup import TrainingSetup

_RUNTIME_ATTRIBUTES = {"_compiled", "_trainer", "_opt_state", "_train_key", "_predictor",
                       "_seed", "_fits", "_steps_per_execution"}


def _data(rows=32):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(rows, 3)).astype(np.float32)
    return x, x.sum(axis=1, keepdims=True)


def test_compile_and_fit_write_one_attribute():
    x, y = _data()
    model = kg.Sequential([kg.Input(shape=(3,)), layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse", seed=3, steps_per_execution=2)
    model.fit(x, y, batch_size=8, epochs=1, verbose=0)
    assert not _RUNTIME_ATTRIBUTES & set(vars(model))
    setup = model._training_setup
    assert isinstance(setup, TrainingSetup)
    assert (setup.seed, setup.steps_per_execution, setup.fits) == (3, 2, 1)
    assert model._trainer is setup.trainer and model._opt_state is setup.opt_state


def test_sequential_carries_the_setup_and_it_drops_what_the_old_graph_made():
    x, y = _data()
    model = kg.Sequential([kg.Input(shape=(3,)), layers.Dense(1, name="a")])
    model.compile(optimizer="adam", loss="mse")
    model.fit(x, y, batch_size=8, epochs=1, verbose=0)
    setup, trainer = model._training_setup, model._trainer
    assert setup.opt_state is not None
    model.add(layers.Dense(1, name="b"))
    assert model._training_setup is setup  # carried across the rebuild
    assert setup.trainer_for(model) is not trainer  # made again for the new graph
    assert setup.opt_state is None and setup.fits == 1
    model.fit(x, y, batch_size=8, epochs=1, verbose=0)
    moments = setup.opt_state.inner_state[0][0][1]  # adam's first moments (count, m, v, ...)
    assert set(moments) == {"a", "b"}  # made for the new graph


def test_predict_without_compile_reuses_its_inference_trainer():
    x, _ = _data(8)
    model = kg.Sequential([kg.Input(shape=(3,)), layers.Dense(2)])
    first = model.predict(x, verbose=0)
    setup = model._training_setup
    predictor = setup.predictor_for(model)
    assert model.predict(x, verbose=0).shape == first.shape == (8, 2)
    assert setup.predictor_for(model) is predictor and model._trainer is None
    model.add(layers.Dense(4))
    assert setup.predictor_for(model) is not predictor
    assert model.predict(x, verbose=0).shape == (8, 4)
