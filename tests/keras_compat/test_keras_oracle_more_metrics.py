"""The rest of keras.metrics: Keras's numbers over two weighted batches (stateful API),
the stateless API, configs, and use in compile/fit."""


import keras
import numpy as np
import pytest

import kgraph as kg

_r = np.random.default_rng(0)
_bin_t = _r.integers(0, 2, (2, 16, 1)).astype("float32")
_bin_p = _r.random((2, 16, 1)).astype("float32")
_cls_t = np.eye(4, dtype="float32")[_r.integers(0, 4, (2, 16))]
_cls_p = _r.random((2, 16, 4)).astype("float32")
_ids_t = _r.integers(0, 4, (2, 16))
_ids_p = _r.integers(0, 4, (2, 16))
_reg_t = _r.normal(size=(2, 16, 3)).astype("float32")
_reg_p = (_reg_t + 0.5 * _r.normal(size=(2, 16, 3))).astype("float32")
_w = _r.random((2, 16)).astype("float32")

CASES = [
    ("TruePositives", {}, _bin_t, _bin_p), ("FalsePositives", {"thresholds": [0.3, 0.7]},
                                            _bin_t, _bin_p),
    ("TrueNegatives", {}, _bin_t, _bin_p), ("FalseNegatives", {}, _bin_t, _bin_p),
    ("PrecisionAtRecall", {"recall": 0.6}, _bin_t, _bin_p),
    ("RecallAtPrecision", {"precision": 0.4}, _bin_t, _bin_p),
    ("SensitivityAtSpecificity", {"specificity": 0.5}, _bin_t, _bin_p),
    ("SpecificityAtSensitivity", {"sensitivity": 0.5, "num_thresholds": 50}, _bin_t, _bin_p),
    ("F1Score", {}, _cls_t, _cls_p), ("F1Score", {"average": "macro"}, _cls_t, _cls_p),
    ("FBetaScore", {"beta": 2.0, "average": "weighted"}, _cls_t, _cls_p),
    ("FBetaScore", {"average": "micro", "threshold": 0.5}, _cls_t, _cls_p),
    ("R2Score", {}, _reg_t, _reg_p),
    ("R2Score", {"class_aggregation": "variance_weighted_average", "num_regressors": 2},
     _reg_t, _reg_p),
    ("IoU", {"num_classes": 4, "target_class_ids": [0, 2]}, _ids_t, _ids_p),
    ("MeanIoU", {"num_classes": 4}, _ids_t, _ids_p),
    ("MeanIoU", {"num_classes": 4, "ignore_class": 1}, _ids_t, _ids_p),
    ("BinaryIoU", {"threshold": 0.4}, _bin_t, _bin_p),
    ("OneHotIoU", {"num_classes": 4, "target_class_ids": [1]}, _cls_t, _cls_p),
    ("OneHotMeanIoU", {"num_classes": 4}, _cls_t, _cls_p),
    ("Hinge", {}, _bin_t, _bin_p), ("KLDivergence", {}, _cls_t, _cls_p),
    ("BinaryCrossentropy", {}, _bin_t, _bin_p),
    ("CategoricalCrossentropy", {}, _cls_t, _cls_p), ("Poisson", {}, _reg_t ** 2, _reg_p ** 2),
    ("PearsonCorrelation", {}, _reg_t, _reg_p), ("ConcordanceCorrelation", {}, _reg_t, _reg_p),
]


@pytest.mark.parametrize("name, kwargs, y_true, y_pred", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_metric_matches_keras_over_weighted_batches(name, kwargs, y_true, y_pred):
    ours, theirs = getattr(kg.metrics, name)(**kwargs), getattr(keras.metrics, name)(**kwargs)
    # Keras's IoU confusion matrix truncates fractional weights; whole weights agree.
    weights = np.round(_w * 3) if "IoU" in name else _w
    for batch in range(2):
        ours.update_state(y_true[batch], y_pred[batch], sample_weight=weights[batch])
        theirs.update_state(y_true[batch], y_pred[batch], sample_weight=weights[batch])
    np.testing.assert_allclose(np.asarray(ours.result()), np.asarray(theirs.result()),
                               rtol=1e-5, atol=1e-6)
    state = ours.stateless_reset_state()
    state = ours.stateless_update_state(state, y_true[0], y_pred[0])
    theirs.reset_state()
    theirs.update_state(y_true[0], y_pred[0])
    np.testing.assert_allclose(np.asarray(ours.stateless_result(state)),
                               np.asarray(theirs.result()), rtol=1e-5, atol=1e-6)
    config = {k: v for k, v in theirs.get_config().items() if k != "dtype"}
    assert {k: v for k, v in ours.get_config().items() if k != "dtype"}.keys() <= set(
        config) | {"name"}


def test_metric_functions_match_keras():
    for name in ["binary_accuracy", "categorical_accuracy", "mean_squared_error", "hinge",
                 "kl_divergence", "poisson", "pearson_correlation", "concordance_correlation"]:
        a, b = (_cls_t[0], _cls_p[0])
        np.testing.assert_allclose(np.asarray(getattr(kg.metrics, name)(a, b)),
                                   np.asarray(getattr(keras.metrics, name)(a, b)), rtol=1e-5)


def test_shape_dependent_metrics_size_from_the_compiled_output_in_fit():
    x = kg.Input(shape=(5,))
    model = kg.Model(x, kg.layers.Dense(4, activation="softmax")(x))
    model.compile(optimizer="adam", loss="categorical_crossentropy",
                  metrics=[kg.metrics.F1Score(average="macro"), kg.metrics.R2Score(),
                           kg.metrics.TruePositives(), kg.metrics.MeanIoU(4, sparse_y_true=False,
                                                                          sparse_y_pred=False)])
    history = model.fit(_r.random((32, 5)).astype("float32"), _cls_t[0].repeat(2, 0),
                        epochs=1, verbose=0)
    assert {"f1_score", "r2_score", "true_positives", "mean_io_u"} <= set(history.history)


def test_correlation_metrics_by_name_in_fit_as_keras():
    x = kg.Input(shape=(3,))
    model = kg.Model(x, kg.layers.Dense(3)(x))
    model.compile(optimizer="sgd", loss="mse",
                  metrics=["pearson_correlation", "concordance_correlation"])
    history = model.fit(_reg_t[0], _reg_p[0], epochs=1, verbose=0)
    assert {"pearson_correlation", "concordance_correlation"} <= set(history.history)


def test_metrics_ignore_sample_weights_and_weighted_metrics_use_them_as_keras():
    x_data = _r.random((32, 5)).astype("float32")
    y_data = (_r.random((32, 1)) > 0.5).astype("float32")
    weights = _r.random(32).astype("float32")
    x = keras.Input(shape=(5,))
    keras_model = keras.Model(x, keras.layers.Dense(1, activation="sigmoid")(x))
    keras_model.compile(optimizer="sgd", loss="binary_crossentropy", metrics=["mae"],
                        weighted_metrics=["mae"])
    x = kg.Input(shape=(5,))
    our_model = kg.Model(x, kg.layers.Dense(1, activation="sigmoid")(x))
    our_model.compile(optimizer="sgd", loss="binary_crossentropy", metrics=["mae"],
                      weighted_metrics=["mae"])
    our_model.set_weights([np.asarray(w) for w in keras_model.get_weights()])
    ours = our_model.evaluate(x_data, y_data, sample_weight=weights, verbose=0,
                              return_dict=True)
    theirs = keras_model.evaluate(x_data, y_data, sample_weight=weights, verbose=0,
                                  return_dict=True)
    assert set(ours) == set(theirs) == {"loss", "mae", "weighted_mae"}
    for name in theirs:
        np.testing.assert_allclose(ours[name], theirs[name], rtol=1e-5)
    assert not np.isclose(ours["mae"], ours["weighted_mae"])


def _two_outputs(lib):
    x = lib.Input(shape=(4,))
    h = lib.layers.Dense(4)(x)
    cls = lib.layers.Dense(3, activation="softmax", name="cls")(h)
    reg = lib.layers.Dense(1, name="reg")(h)
    return lib.Model(x, {"cls": cls, "reg": reg})


def test_log_names_of_plain_weighted_and_repeated_metrics_are_kerass():
    data = _r.random((16, 4)).astype("float32")
    targets = {"cls": _r.integers(0, 3, 16), "reg": _r.random((16, 1)).astype("float32")}
    options = dict(optimizer="sgd", loss={"cls": "sparse_categorical_crossentropy",
                                          "reg": "mse"},
                   metrics={"cls": ["accuracy", "accuracy"], "reg": ["mae"]},
                   weighted_metrics={"cls": ["accuracy"], "reg": ["mae", "mse"]})
    names = []
    for lib in (keras, kg):
        model = _two_outputs(lib)
        model.compile(**options)
        logs = model.evaluate(data, targets, sample_weight=np.ones(16, np.float32),
                              verbose=0, return_dict=True)
        names.append(set(logs))
    assert names[0] == names[1]
    assert {"cls_weighted_accuracy", "cls_accuracy_1", "reg_weighted_mae", "reg_mse"} <= names[1]


def test_metrics_with_a_value_per_class_log_arrays_as_keras(tmp_path, capsys):
    data = _r.normal(size=(40, 4)).astype("float32")
    targets = np.eye(3, dtype="float32")[_r.integers(0, 3, 40)]
    logs = []
    for lib in (keras, kg):
        x = lib.Input(shape=(4,))
        model = lib.Model(x, lib.layers.Dense(3, activation="softmax")(x))
        model.compile(optimizer="sgd", loss="categorical_crossentropy",
                      metrics=[lib.metrics.F1Score(name="f1_score"),
                               lib.metrics.Precision(thresholds=[0.3, 0.6], name="precision")])
        if lib is kg:
            model.set_weights(weights)
            callbacks = [kg.callbacks.CSVLogger(str(tmp_path / "log.csv")),
                         kg.callbacks.TensorBoard(str(tmp_path / "board"))]
        else:
            weights, callbacks = model.get_weights(), []
        history = model.fit(data, targets, batch_size=16, epochs=2, shuffle=False, verbose=2,
                            validation_data=(data, targets), callbacks=callbacks)
        logs.append((history.history, model.evaluate(data, targets, verbose=0,
                                                     return_dict=True)))
    (ours, our_eval), (theirs, their_eval) = logs[1], logs[0]
    _assert_same_arrays(ours, theirs)
    _assert_same_arrays({k: [v] for k, v in our_eval.items()},
                        {k: [v] for k, v in their_eval.items()})
    assert np.shape(ours["val_f1_score"][-1]) == (3,) and np.shape(ours["precision"][0]) == (2,)
    assert "f1_score: " in capsys.readouterr().out  # the progress line prints their mean
    assert '"[' in (tmp_path / "log.csv").read_text()
    with pytest.raises(ValueError, match="'f1_score', whose value is an array of shape"):
        model.fit(data, targets, epochs=1, verbose=0,
                  callbacks=[kg.callbacks.EarlyStopping(monitor="f1_score", mode="max")])


def _assert_same_arrays(ours, theirs):
    assert set(ours) == set(theirs)
    for name in theirs:
        for a, b in zip(ours[name], theirs[name]):
            np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-6)
