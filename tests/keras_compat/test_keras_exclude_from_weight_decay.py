"""``optimizer.exclude_from_weight_decay(var_list=..., var_names=...)`` against Keras: the
weights excluded get no weight decay. Compared: the weights after the same fit from the
same weights (rules that decay the weights before the step, and those that read the
decayed weights: Lamb, Adafactor, FTRL, schedule-free AdamW, Muon), a stack of repeated
blocks (by name, or one block's kernel), and Keras's list API (``apply``)."""

import keras
import numpy as np
import pytest

import kgraph as kg

_rng = np.random.default_rng(2)
X = _rng.normal(size=(32, 3)).astype("float32")
Y = _rng.normal(size=(32, 2)).astype("float32")

CASES = [
    ("AdamW", {"weight_decay": 0.1}, {"var_names": ["bias"]}),
    ("Lion", {"weight_decay": 0.5}, {"var_list": ["a/kernel"]}),
    ("SGD", {"weight_decay": 0.2, "momentum": 0.9}, {"var_names": ["ker"],
                                                     "var_list": ["b/bias"]}),
    ("Lamb", {"weight_decay": 0.3}, {"var_names": ["kernel"]}),
    ("Adafactor", {"weight_decay": 0.3}, {"var_list": ["b/kernel"]}),
    ("Ftrl", {"weight_decay": 0.3, "learning_rate": 0.1}, {"var_names": ["bias"]}),
    ("ScheduleFreeAdamW", {"weight_decay": 0.3}, {"var_names": ["kernel"]}),
    ("Muon", {"weight_decay": 0.3, "adam_weight_decay": 0.2}, {"var_names": ["bias"],
                                                               "var_list": ["a/kernel"]}),
]


def _model(lib, blocks=0):
    x = lib.Input((3,))
    h = lib.layers.Dense(4, activation="tanh", name="a")(x)
    for i in range(blocks):  # identical blocks: one scan, their weights stacked in kgraph
        h = lib.layers.Dense(4, activation="tanh", name=f"block_{i}")(h)
    return lib.Model(x, lib.layers.Dense(2, name="b")(h))


def _excluded(model, exclude):
    by_path = {f"{w.path}": w for w in model.trainable_weights}
    return {"var_names": exclude.get("var_names"),
            "var_list": [by_path[p] for p in exclude.get("var_list", [])] or None}


def _fit_both(name, kwargs, exclude, blocks=0):
    theirs, ours = _model(keras, blocks), _model(kg, blocks)
    ours.set_weights(theirs.get_weights())
    for lib, model in ((keras, theirs), (kg, ours)):
        optimizer = getattr(lib.optimizers, name)(**{"learning_rate": 0.01, **kwargs})
        optimizer.exclude_from_weight_decay(**_excluded(model, exclude))
        model.compile(optimizer, "mse")
        model.fit(X, Y, epochs=3, batch_size=8, shuffle=False, verbose=0)
    return theirs, ours


@pytest.mark.parametrize("name, kwargs, exclude", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_excluded_weights_do_not_decay_as_in_keras(name, kwargs, exclude):
    theirs, ours = _fit_both(name, kwargs, exclude)
    for a, b, w in zip(ours.get_weights(), theirs.get_weights(), theirs.trainable_weights,
                       strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=w.path)


@pytest.mark.parametrize("exclude", [{"var_names": ["bias"]},
                                     {"var_list": ["block_1/kernel"], "var_names": ["bias"]}])
def test_repeated_blocks_excluded_as_in_keras(exclude):
    """Excluded by name, the blocks stay stacked in the train state (one answer for all);
    one block's kernel excluded, they train unstacked."""
    theirs, ours = _fit_both("AdamW", {"weight_decay": 0.5}, exclude, blocks=4)
    assert ours._training_setup.trainer.stack_blocks == ("var_list" not in exclude)
    for a, b, w in zip(ours.get_weights(), theirs.get_weights(), theirs.trainable_weights,
                       strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=w.path)


def test_kerass_list_api_leaves_excluded_weights_undecayed():
    values = [_rng.normal(size=(3, 4)).astype("float32"), np.ones(4, "float32")]
    grads = [[_rng.normal(size=v.shape).astype("float32") for v in values] for _ in range(3)]
    results = []
    for lib in (keras, kg):
        variables = [lib.Variable(values[0], name="kernel"), lib.Variable(values[1], name="bias")]
        optimizer = lib.optimizers.AdamW(learning_rate=0.1, weight_decay=0.5)
        optimizer.exclude_from_weight_decay(var_names=["bias"])
        for g in grads:
            optimizer.apply(g, variables)
        results.append([np.asarray(v.numpy()) for v in variables])
    for a, b in zip(results[1], results[0], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
