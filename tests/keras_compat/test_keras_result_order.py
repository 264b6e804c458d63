"""The order of what ``evaluate`` / ``test_on_batch`` / ``train_on_batch`` return against
Keras 3's: the list without ``return_dict`` (which unpacking assigns to names), the dict's
keys, and ``model.metrics_names`` before and after the first evaluation, for
multi-output models (list and dict outputs) and a single-output one under several
``compile`` configurations (``loss`` as one value, list or dict, ``metrics`` and
``weighted_metrics`` as list, list of lists or dict)."""

from __future__ import annotations

import numpy as np
import pytest

keras = pytest.importorskip("keras")

import kgraph as kg


def list_outputs(lib):
    x = lib.Input((3,), name="x")
    h = lib.layers.Dense(4, name="h")(x)
    return lib.Model(x, [lib.layers.Dense(2, name="zeta")(h),
                         lib.layers.Dense(1, name="alpha")(h),
                         lib.layers.Dense(2, name="mid")(h)])


def dict_outputs(lib):
    x = lib.Input((3,), name="x")
    h = lib.layers.Dense(4, name="h")(x)
    return lib.Model(x, {"zeta": lib.layers.Dense(2, name="zd")(h),
                         "alpha": lib.layers.Dense(1, name="ad")(h),
                         "mid": lib.layers.Dense(2, name="md")(h)})


def one_output(lib):
    x = lib.Input((3,), name="x")
    return lib.Model(x, lib.layers.Dense(2, name="out")(x))


CASES = [
    (list_outputs, dict(loss=["mse", "mae", "mse"], metrics=[["mae"], ["mae"], ["mae"]])),
    (list_outputs, dict(loss={"mid": "mse", "zeta": "mae", "alpha": "mse"},
                        metrics={"alpha": "mae", "zeta": "mae"})),
    (list_outputs, dict(loss={"mid": "mse", "zeta": "mae", "alpha": "mse"},
                        metrics={"mid": ["mae", "mse"], "zeta": "mae", "alpha": ["mse"]},
                        weighted_metrics={"zeta": ["mae"], "mid": ["mse"]})),
    (list_outputs, dict(loss=["mse", "mae", "mse"], metrics=[["mae"], ["mse", "mae"], ["mae"]],
                        loss_weights=[0.5, 2.0, 1.0])),
    (list_outputs, dict(loss=["mse", None, None], metrics=[["mae"], ["mse", "mae"], ["mae"]])),
    (list_outputs, dict(loss=["mse", "mae", "mse"], metrics=[])),
    (list_outputs, dict(loss=["mse", "mae", "mse"])),
    (dict_outputs, dict(loss={"mid": "mse", "zeta": "mae", "alpha": "mse"})),
    (dict_outputs, dict(loss={"mid": "mse", "zeta": "mae"},
                        metrics={"alpha": ["mae"], "mid": ["mse", "mae"]})),
    (dict_outputs, dict(loss={"mid": "mse", "zeta": "mae", "alpha": "mse"},
                        metrics={"mid": ["mse", "mae"], "alpha": ["mae"]},
                        weighted_metrics={"zeta": ["mae"], "mid": ["mse"]},
                        loss_weights={"alpha": 2.0, "zeta": 1.0, "mid": 0.5})),
    (dict_outputs, dict(loss={"mid": "mse"}, metrics={"alpha": ["mae"]})),
    (dict_outputs, dict(loss="mse", metrics={"alpha": ["mae"]})),
    (one_output, dict(loss="mse", metrics=["mae", "mae", "mse"], weighted_metrics=["mae", "mse"])),
    (one_output, dict(loss="mse", weighted_metrics=["mae"])),
    (one_output, dict(loss="mse")),
]


def data(build):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(8, 3)).astype("float32")
    targets = [rng.normal(size=(8, n)).astype("float32") for n in (2, 1, 2)]
    y = {one_output: targets[0], list_outputs: targets,
         dict_outputs: dict(zip(["zeta", "alpha", "mid"], targets))}[build]
    return x, y, rng.uniform(0.2, 1.0, size=(8,)).astype("float32")


def run(model, x, y, weights):
    """Everything whose order is compared, and the numbers, in one list."""
    names_at_compile = list(model.metrics_names)
    evaluated = model.evaluate(x, y, sample_weight=weights, batch_size=4, verbose=0)
    as_dict = model.evaluate(x, y, sample_weight=weights, batch_size=4, verbose=0,
                             return_dict=True)
    tested = model.test_on_batch(x, y, sample_weight=weights)
    tested_dict = model.test_on_batch(x, y, sample_weight=weights, return_dict=True)
    trained = model.train_on_batch(x, y, sample_weight=weights)
    return dict(names_at_compile=names_at_compile, names=list(model.metrics_names),
                dict_keys=list(as_dict), test_dict_keys=list(tested_dict),
                values=[np.atleast_1d(evaluated), list(as_dict.values()),
                        np.atleast_1d(tested), np.atleast_1d(trained)])


@pytest.mark.parametrize("build, settings", CASES,
                         ids=[f"{b.__name__}-{i}" for i, (b, _) in enumerate(CASES)])
def test_results_come_in_keras_order(build, settings):
    x, y, weights = data(build)
    theirs = build(keras)
    mine = build(kg)
    mine.set_weights(theirs.get_weights())
    for model in (theirs, mine):
        model.compile(optimizer="sgd", **settings)
    expected, got = run(theirs, x, y, weights), run(mine, x, y, weights)
    for key in ("names_at_compile", "names", "dict_keys", "test_dict_keys"):
        assert got[key] == expected[key], key
    for e, g in zip(expected["values"], got["values"]):
        np.testing.assert_allclose(np.asarray(g, float), np.asarray(e, float), rtol=1e-5,
                                   atol=1e-6)


def test_unpacking_assigns_each_value_its_keras_name():
    """``loss, *rest = model.evaluate(...)``: each position holds the log Keras puts there
    (losses of a dict loss on dict outputs in the dict's order, metrics sorted after)."""
    x, y, weights = data(dict_outputs)
    theirs, mine = dict_outputs(keras), dict_outputs(kg)
    mine.set_weights(theirs.get_weights())
    settings = dict(loss={"zeta": "mae", "alpha": "mse", "mid": "mse"},
                    metrics={"zeta": ["mse"], "mid": ["mae"]})
    for model in (theirs, mine):
        model.compile(optimizer="sgd", **settings)
    expected = theirs.evaluate(x, y, sample_weight=weights, verbose=0)
    got = mine.evaluate(x, y, sample_weight=weights, verbose=0)
    by_name = mine.evaluate(x, y, sample_weight=weights, verbose=0, return_dict=True)
    np.testing.assert_allclose(got, expected, rtol=1e-5)
    order = ["loss", "zeta_loss", "alpha_loss", "mid_loss", "mid_mae", "zeta_mse"]
    np.testing.assert_allclose(got, [by_name[name] for name in order], rtol=1e-6)
