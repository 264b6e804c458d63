"""``kgraph.wrappers`` fits, predicts, scores, clones, pickles and searches as
``keras.wrappers``: Keras 3 is the oracle (one model-building function for both libraries,
weights drawn from a fixed seed, the same data and fit settings), and a set of
scikit-learn's own estimator checks runs on kgraph's wrappers."""

import functools
import inspect
import pickle
import subprocess
import sys

import keras
import numpy as np
import optax
import pytest
import sklearn
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import estimator_checks_generator

import kgraph as kg
from kgraph import wrappers

_data = np.random.default_rng(0)
X = _data.normal(size=(24, 4))
Y_MULTI = np.arange(24) % 3  # every class in each cross-validation fold
Y_BINARY = np.array(["no", "yes"])[(X[:, 0] + 0.3 * _data.normal(size=24) > 0).astype(int)]
Y_REG = X @ np.array([0.5, -1.0, 0.25, 2.0]) + 0.1 * _data.normal(size=24)
FIT = {"epochs": 2, "batch_size": 8, "shuffle": False, "verbose": 0}
CLASSES = ("SKLearnClassifier", "SKLearnRegressor", "SKLearnTransformer")


def _mlp(lib, X, y, width=5, activation="softmax", loss="categorical_crossentropy"):
    """Written once for both libraries; the weights come from a fixed seed, not the library."""
    x = lib.Input(shape=(X.shape[1],))
    hidden = lib.layers.Dense(width, activation="relu")(x)
    model = lib.Model(x, lib.layers.Dense(y.shape[1], activation=activation)(hidden))
    model.compile(optimizer=lib.optimizers.SGD(0.1), loss=loss)
    draw = np.random.default_rng(width)
    model.set_weights([draw.normal(scale=0.5, size=np.shape(w)).astype("float32")
                       for w in model.get_weights()])
    return model


def keras_mlp(X, y, **kwargs):
    return _mlp(keras, X, y, **kwargs)


def kgraph_mlp(X, y, **kwargs):
    return _mlp(kg, X, y, **kwargs)


BUILD = {keras: keras_mlp, kg: kgraph_mlp}
WRAPPERS = {keras: keras.wrappers, kg: wrappers}
REGRESSION = {"activation": None, "loss": "mse"}


def _fit_both(name, y, model_kwargs=None, **fit):
    """The wrapper ``name`` of each library, fitted on ``X, y``: ``{library: estimator}``."""
    return {lib: getattr(WRAPPERS[lib], name)(BUILD[lib], model_kwargs=model_kwargs,
                                              fit_kwargs=FIT).fit(X, y, **fit)
            for lib in (keras, kg)}


def _close(ours, theirs):
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("y", [Y_MULTI, Y_BINARY], ids=["multiclass", "binary-strings"])
def test_classifier_encodes_fits_predicts_and_scores_as_keras(y):
    made = _fit_both("SKLearnClassifier", y)
    theirs, ours = made[keras], made[kg]
    np.testing.assert_array_equal(ours.classes_, theirs.classes_)
    assert ours.n_features_in_ == theirs.n_features_in_ == 4
    _close(ours.history_.history["loss"], theirs.history_.history["loss"])
    _close(ours.decision_function(X), theirs.decision_function(X))
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    assert ours.predict(X).dtype == theirs.predict(X).dtype
    assert ours.score(X, y) == theirs.score(X, y)
    assert ours.model_.output_shape == (None, len(theirs.classes_))  # one-hot targets
    assert not hasattr(ours, "predict_proba") and not hasattr(theirs, "predict_proba")


def test_regressor_fits_predicts_and_scores_as_keras():
    made = _fit_both("SKLearnRegressor", Y_REG, REGRESSION)
    _close(made[kg].history_.history["loss"], made[keras].history_.history["loss"])
    assert made[kg].predict(X).shape == made[keras].predict(X).shape == (24,)
    _close(made[kg].predict(X), made[keras].predict(X))
    _close(made[kg].score(X, Y_REG), made[keras].score(X, Y_REG))  # R²


def test_a_transformer_transforms_as_keras_as_a_pipeline_step():
    transformed, predictions = {}, {}
    for lib in (keras, kg):
        step = WRAPPERS[lib].SKLearnTransformer(BUILD[lib], model_kwargs=REGRESSION,
                                                fit_kwargs=FIT)
        pipe = make_pipeline(StandardScaler(), step, LinearRegression()).fit(X, Y_REG)
        transformed[lib], predictions[lib] = pipe[:-1].transform(X), pipe.predict(X)
    assert transformed[kg].shape == transformed[keras].shape == (24, 1)
    _close(transformed[kg], transformed[keras])
    _close(predictions[kg], predictions[keras])


def _constant_model(lib):
    """A compiled model whose initial weights come from its config (clones start alike)."""
    x = lib.Input(shape=(4,))
    hidden = lib.layers.Dense(3, activation="tanh",
                              kernel_initializer=lib.initializers.Constant(0.2))(x)
    model = lib.Model(x, lib.layers.Dense(1, kernel_initializer="ones")(hidden))
    model.compile(optimizer=lib.optimizers.SGD(0.05), loss="mse")
    return model


def test_a_model_instance_is_cloned_and_compiled_alike_as_in_keras():
    fitted = {}
    for lib in (keras, kg):
        model = _constant_model(lib)
        before = [np.asarray(w) for w in model.get_weights()]
        estimator = WRAPPERS[lib].SKLearnRegressor(model, fit_kwargs=FIT).fit(X, Y_REG)
        assert estimator.model_ is not model
        for weight, kept in zip(model.get_weights(), before):
            np.testing.assert_array_equal(np.asarray(weight), kept)  # the original untouched
        assert type(estimator.model_.optimizer).__name__ == "SGD"
        assert float(np.asarray(estimator.model_.optimizer.learning_rate)) == pytest.approx(0.05)
        fitted[lib] = estimator
    _close(fitted[kg].predict(X), fitted[keras].predict(X))
    model = _constant_model(kg)  # an optax optimizer (no Keras config): the same object
    model.compile(optimizer=optax.sgd(0.05), loss="mse")
    estimator = wrappers.SKLearnRegressor(model, fit_kwargs=FIT).fit(X, Y_REG)
    assert estimator.model_.optimizer is model.optimizer
    _close(estimator.predict(X), fitted[keras].predict(X))


def test_warm_start_keeps_training_the_same_model():
    """Two warm-started fits of one epoch each train as one Keras fit of two epochs (plain
    SGD, no shuffling), on the given model itself, without cloning it."""
    theirs = _constant_model(keras)
    theirs.fit(X, Y_REG, **FIT)
    model = _constant_model(kg)
    estimator = wrappers.SKLearnRegressor(model, warm_start=True, fit_kwargs=FIT)
    estimator.fit(X, Y_REG, epochs=1)
    estimator.fit(X, Y_REG, epochs=1)
    assert estimator.model_ is model and estimator.epoch_ == 1
    _close(estimator.predict(X), theirs.predict(X, verbose=0)[:, 0])

    built = wrappers.SKLearnRegressor(kgraph_mlp, warm_start=True, model_kwargs=REGRESSION,
                                      fit_kwargs=FIT).fit(X, Y_REG, epochs=1)
    first = built.model_
    assert built.fit(X, Y_REG, epochs=1).model_ is first


@pytest.mark.parametrize("name", CLASSES)
def test_signatures_params_and_clone_follow_keras(name):
    ours, theirs = getattr(wrappers, name), getattr(keras.wrappers, name)
    assert inspect.signature(ours.__init__) == inspect.signature(theirs.__init__)
    assert [c.__name__ for c in ours.__mro__[1:3]] == [c.__name__ for c in theirs.__mro__[1:3]]
    estimator = ours(kgraph_mlp, model_kwargs={"width": 3}, fit_kwargs={"epochs": 2})
    assert (sorted(estimator.get_params())
            == sorted(theirs(keras_mlp, model_kwargs={"width": 3}).get_params()))
    assert estimator.set_params(warm_start=True) is estimator and estimator.warm_start
    copied = clone(estimator)
    assert copied is not estimator and copied.model is kgraph_mlp
    assert copied.get_params() == estimator.get_params()  # fit_kwargs included
    assert copied.model_kwargs is not estimator.model_kwargs


def test_fit_arguments_override_fit_kwargs_without_changing_them():
    estimator = wrappers.SKLearnRegressor(kgraph_mlp, model_kwargs=REGRESSION,
                                          fit_kwargs=dict(FIT))
    assert estimator.epoch_ == 0
    first = estimator.fit(X, Y_REG, epochs=3).model_
    assert estimator.epoch_ == 3 and estimator.fit_kwargs == FIT
    assert estimator.fit(X, Y_REG).model_ is not first and estimator.epoch_ == 2  # afresh


def test_grid_search_over_a_pipeline_and_cross_validation_score_as_keras():
    results, scores = {}, {}
    for lib in (keras, kg):
        pipe = make_pipeline(StandardScaler(),
                             WRAPPERS[lib].SKLearnClassifier(BUILD[lib], fit_kwargs=FIT))
        halves = [(np.arange(12, 24), np.arange(12))]  # one split: two fits per library
        search = GridSearchCV(pipe, {"sklearnclassifier__model_kwargs": [{"width": 3},
                                                                          {"width": 6}]},
                              cv=halves, refit=False)
        # Keras's clone drops fit_kwargs: both get the fit settings through ``fit``
        search.fit(X, Y_MULTI, **{f"sklearnclassifier__{k}": v for k, v in FIT.items()})
        results[lib] = (search.cv_results_["mean_test_score"], search.best_params_)
        regressor = WRAPPERS[lib].SKLearnRegressor(BUILD[lib], model_kwargs=REGRESSION)
        scores[lib] = cross_val_score(regressor, X, Y_REG, cv=halves, params=FIT)
    np.testing.assert_array_equal(results[kg][0], results[keras][0])
    assert results[kg][1] == results[keras][1]
    _close(scores[kg], scores[keras])


def _error(lib, action):
    try:
        action(WRAPPERS[lib], BUILD[lib])
    except Exception as err:  # noqa: BLE001 - the error itself is what is compared
        return err
    raise AssertionError(f"{lib.__name__}: no error")


def _uncompiled(lib):
    def build(X, y):
        x = lib.Input(shape=(X.shape[1],))
        return lib.Model(x, lib.layers.Dense(y.shape[1])(x))
    return build


BAD = {
    "one class": lambda w, b: w.SKLearnClassifier(b, fit_kwargs=FIT).fit(X, np.zeros(24)),
    "continuous labels": lambda w, b: w.SKLearnClassifier(b, fit_kwargs=FIT).fit(X, Y_REG),
    "unknown target": lambda w, b: w.SKLearnRegressor(b, fit_kwargs=FIT).fit(
        X, np.array([{"a": 1}] * 24, dtype=object)),
    "not fitted": lambda w, b: w.SKLearnClassifier(b).predict(X),
    "2D labels": lambda w, b: w.SKLearnClassifier(b, fit_kwargs=FIT).fit(
        X, np.stack([Y_MULTI, Y_MULTI], axis=1)),
    "NaN inputs": lambda w, b: w.SKLearnRegressor(b, fit_kwargs=FIT).fit(
        np.where(X > 1, np.nan, X), Y_REG),
    "routing off": lambda w, b: w.SKLearnRegressor(b).set_fit_request(sample_weight=True),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_input_raises_keras_errors(case):
    ours, theirs = _error(kg, BAD[case]), _error(keras, BAD[case])
    assert type(ours) is type(theirs)
    assert str(ours) == str(theirs)


def test_wrong_models_and_wrong_feature_counts_are_refused():
    for lib in (keras, kg):
        with pytest.raises(RuntimeError, match="needs to be compiled"):
            WRAPPERS[lib].SKLearnRegressor(_uncompiled(lib), fit_kwargs=FIT).fit(X, Y_REG)
    with pytest.raises(RuntimeError, match="SKLearnRegressor: Given model needs to be compiled"):
        wrappers.SKLearnRegressor(_uncompiled(kg), fit_kwargs=FIT).fit(X, Y_REG)
    with pytest.raises(TypeError, match="SKLearnRegressor needs a kgraph Model .*; keras_mlp "
                                        "returned keras.src.models.functional.Functional"):
        wrappers.SKLearnRegressor(keras_mlp, model_kwargs=REGRESSION).fit(X, Y_REG)
    with pytest.raises(TypeError, match="model must be a compiled kgraph Model .* 'mlp'"):
        wrappers.SKLearnRegressor("mlp").fit(X, Y_REG)
    fitted = {lib: getattr(WRAPPERS[lib], "SKLearnRegressor")(
        BUILD[lib], model_kwargs=REGRESSION, fit_kwargs=FIT).fit(X, Y_REG) for lib in BUILD}
    for lib in (kg, keras):
        with pytest.raises(ValueError, match="X has 3 features, but SKLearnRegressor is "
                                             "expecting 4 features as input"):
            fitted[lib].predict(X[:, :3])
    with pytest.raises(NotFittedError):
        wrappers.SKLearnTransformer(kgraph_mlp).transform(X)


def test_a_fitted_estimator_pickles_with_its_model():
    estimator = wrappers.SKLearnClassifier(kgraph_mlp, fit_kwargs=FIT).fit(X, Y_BINARY)
    restored = pickle.loads(pickle.dumps(estimator))
    np.testing.assert_array_equal(restored.decision_function(X), estimator.decision_function(X))
    np.testing.assert_array_equal(restored.classes_, estimator.classes_)
    assert restored.history_.history == estimator.history_.history
    assert restored.model is kgraph_mlp and restored.fit_kwargs == FIT


def test_fit_requests_reach_metadata_routing():
    with sklearn.config_context(enable_metadata_routing=True):
        for lib in (keras, kg):
            estimator = WRAPPERS[lib].SKLearnRegressor(BUILD[lib])
            assert estimator.set_fit_request(sample_weight=True) is estimator
        assert estimator.get_metadata_routing().fit.requests == {"sample_weight": True}


def test_import_kgraph_does_not_import_sklearn_and_the_wrappers_say_how_to_get_it():
    code = ("import sys; import kgraph as kg; assert 'sklearn' not in sys.modules; "
            "sys.modules['sklearn'] = None; from kgraph.wrappers import SKLearnClassifier\n"
            "try:\n    SKLearnClassifier(model=None)\n"
            "except ImportError as err:\n    print(err)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert "SKLearnClassifier requires scikit-learn" in out.stdout, out.stderr
    assert "pip install scikit-learn" in out.stdout and "kgraph[sklearn]" in out.stdout


# scikit-learn's estimator checks: all that need no training, and a few that train (a tiny
# model, one epoch), as the whole set takes about a minute; pickling, NaN inputs and
# n_features_in_ are checked above. Reproducibility checks are left out, as Keras's tests
# expect them to fail.
_TRAINED_CHECKS = {
    "SKLearnClassifier": {"check_fit2d_predict1d", "check_classifiers_one_label"},
    "SKLearnRegressor": {"check_dont_overwrite_parameters"},
    "SKLearnTransformer": {"check_fit_check_is_fitted"},
}
_UNTRAINED_CHECKS = {
    "check_estimator_cloneable", "check_estimator_tags_renamed", "check_valid_tag_types",
    "check_estimator_repr", "check_no_attributes_set_in_init", "check_estimators_unfitted",
    "check_do_not_raise_errors_in_init_or_set_params", "check_mixin_order",
    "check_complex_data", "check_estimators_empty_data_messages",
    "check_estimator_sparse_tag", "check_estimator_sparse_array",
    "check_estimator_sparse_matrix", "check_classifiers_regression_target",
    "check_supervised_y_no_nan", "check_parameters_default_constructible",
    "check_get_params_invariance", "check_set_params", "check_fit1d",
    "check_requires_y_none", "check_transformers_unfitted"}


def tiny_model(X, y, loss, activation="softmax"):
    x = kg.Input(shape=(X.shape[1],))
    hidden = kg.layers.Dense(4, activation="relu")(x)
    model = kg.Model(x, kg.layers.Dense(y.shape[1], activation=activation)(hidden))
    model.compile(optimizer="rmsprop", loss=loss)
    return model


def _checks():
    one_epoch = {"epochs": 1, "verbose": 0}
    estimators = [
        wrappers.SKLearnClassifier(tiny_model, model_kwargs={"loss": "categorical_crossentropy"},
                                   fit_kwargs=one_epoch),
        wrappers.SKLearnRegressor(tiny_model, model_kwargs={"loss": "mse", "activation": None},
                                  fit_kwargs=one_epoch),
        wrappers.SKLearnTransformer(tiny_model, model_kwargs={"loss": "mse", "activation": None},
                                    fit_kwargs=one_epoch)]
    picked = []
    for estimator in estimators:
        kind = type(estimator).__name__
        for instance, check in estimator_checks_generator(estimator, legacy=True):
            name = (check.func if isinstance(check, functools.partial) else check).__name__
            if name in _UNTRAINED_CHECKS | _TRAINED_CHECKS[kind]:
                picked.append(pytest.param(instance, check, id=f"{kind}-{name}-{len(picked)}"))
    return picked


@pytest.mark.parametrize("estimator, check", _checks())
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)
