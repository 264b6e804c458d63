"""scikit-learn estimators around kgraph models (``keras.wrappers``): ``SKLearnClassifier``,
``SKLearnRegressor`` and ``SKLearnTransformer`` fit, predict, score, clone and search
parameters as scikit-learn estimators do, in pipelines and grid searches.

``model`` is a compiled kgraph ``Model`` (cloned, and compiled alike, for each fit) or a
callable ``model(X=X, y=y, **model_kwargs)`` that returns one. ``y`` reaches the model as a
2D array: a classifier's labels one-hot encoded, a regressor's 1D target as one column.

>>> import numpy as np, kgraph as kg
>>> def linear(X, y):
...     x = kg.Input(shape=(X.shape[1],))
...     model = kg.Model(x, kg.layers.Dense(y.shape[1], kernel_initializer="zeros")(x))
...     model.compile(optimizer="sgd", loss="mse")
...     return model
>>> X = np.arange(8.0).reshape(4, 2)
>>> SKLearnRegressor(linear, fit_kwargs={"verbose": 0}).fit(X, X[:, 0]).n_features_in_
2
"""

from __future__ import annotations

import copy
import warnings

import numpy as np

from kgraph.models.cloning import clone_model
from kgraph.models.model import Model
from kgraph.saving.compile_config import compile_config, compile_from_config
from kgraph.wrappers import _pickling, _sklearn
from kgraph.wrappers._sklearn import (BaseEstimator, ClassifierMixin, RegressorMixin,
                                      TargetReshaper, TransformerMixin)

__all__ = ["SKLBase", "SKLearnClassifier", "SKLearnRegressor", "SKLearnTransformer"]

_NOT_COMPILED = ("Given model needs to be compiled, and have a loss and an optimizer: call "
                 "model.compile(optimizer=..., loss=...) before handing it over (or in the "
                 "function that builds it).")


def _compile_settings(model) -> dict:
    """What ``model.compile`` was given (empty if it was not compiled)."""
    return getattr(getattr(model, "_training_setup", None), "config", None) or {}


def _check_model(model, owner: str, source) -> None:
    """``model`` (made by ``source``) is a kgraph Model compiled with a loss and an
    optimizer."""
    if not isinstance(model, Model):
        made_by = getattr(source, "__qualname__", None) or repr(source)
        raise TypeError(f"{owner} needs a kgraph Model (or a callable returning one); "
                        f"{made_by} returned {type(model).__module__}."
                        f"{type(model).__name__}: {model!r}")
    settings = _compile_settings(model)
    if settings.get("optimizer") is None or settings.get("loss") is None:
        raise RuntimeError(f"{owner}: {_NOT_COMPILED}")


def _compiled_clone(model):
    """``clone_model(model)`` (fresh weights), compiled as ``model`` is (as Keras's
    ``clone_model`` does for a compiled model): from its compile config, or with the same
    optimizer, losses and metrics when the config cannot describe them (optax objects)."""
    clone = clone_model(model)
    settings = _compile_settings(model)
    if not settings:
        return clone
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # compile_config's note about saving files
        config = compile_config(model)
    if config is not None:
        compile_from_config(clone, config)
    else:
        clone.compile(optimizer=settings["optimizer"], loss=settings["loss"],
                      metrics=settings["metrics"] or None,
                      loss_weights=settings["loss_weights"],
                      weighted_metrics=settings["weighted_metrics"] or None)
    return clone


class SKLBase(BaseEstimator):
    """What the three wrappers share: building, fitting and predicting with the model.

    Args (as Keras 3):
      model: a compiled kgraph ``Model``, cloned (fresh weights, same compile settings)
        before each fit unless ``warm_start``; or a callable ``model(X=X, y=y,
        **model_kwargs)`` that returns a compiled kgraph Model.
      warm_start: keep training the fitted model (or the given model itself, uncloned) on
        the next ``fit`` instead of starting afresh.
      model_kwargs: keyword arguments for ``model`` when it is a callable.
      fit_kwargs: keyword arguments for ``model.fit`` (``epochs``, ``batch_size``, ...);
        those given to ``fit`` itself take precedence.

    Attributes: ``model_`` (the fitted model), ``history_`` (what ``model.fit`` returned),
    ``n_features_in_``.

    >>> import numpy as np, kgraph as kg
    >>> x = kg.Input(shape=(2,))
    >>> net = kg.Model(x, kg.layers.Dense(1)(x))
    >>> net.compile(optimizer="sgd", loss="mse")
    >>> sorted(SKLearnRegressor(net).get_params())
    ['fit_kwargs', 'model', 'model_kwargs', 'warm_start']
    """

    def __init__(self, model, warm_start=False, model_kwargs=None, fit_kwargs=None):
        _sklearn.require_sklearn(type(self).__name__)
        self.model = model
        self.warm_start = warm_start
        self.model_kwargs = model_kwargs
        self.fit_kwargs = fit_kwargs

    def _more_tags(self):  # the tags of scikit-learn before 1.6
        return {"non_deterministic": True}

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = True
        return tags

    def __sklearn_clone__(self):
        """An unfitted copy with the same parameters (``sklearn.base.clone``); a model
        instance is shared, not deep-copied: each fit clones it anyway."""
        clone = _sklearn.module("sklearn.base").clone
        params = {name: value if name == "model" else clone(value, safe=False)
                  for name, value in self.get_params(deep=False).items()}
        copied = type(self)(**params)
        if hasattr(self, "_metadata_request"):
            copied._metadata_request = copy.deepcopy(self._metadata_request)
        return copied

    def __getstate__(self):  # models pickle as the bytes of their .keras files
        return _pickling.picklable_state(super().__getstate__())

    def __setstate__(self, state):
        super().__setstate__(_pickling.restored_state(state))

    @property
    def epoch_(self) -> int:
        """How many epochs the last ``fit`` ran (0 before any)."""
        history = getattr(self, "history_", None)
        return len(history.epoch) if history is not None else 0

    def set_fit_request(self, **kwargs):
        """Ask scikit-learn's metadata routing to pass these ``fit`` arguments
        (``param=True``, ``False``, ``None`` or an alias); needs
        ``sklearn.set_config(enable_metadata_routing=True)``."""
        if not _sklearn.routing_enabled():
            raise RuntimeError("This method is only available when metadata routing is "
                               "enabled. You can enable it using "
                               "sklearn.set_config(enable_metadata_routing=True).")
        requests = self._get_metadata_request()
        for param, alias in kwargs.items():
            requests.fit.add_request(param=param, alias=alias)
        self._metadata_request = requests
        return self

    def _get_model(self, X, y):
        if self.warm_start and hasattr(self, "model_"):
            return self.model_
        if isinstance(self.model, Model):
            return self.model if self.warm_start else _compiled_clone(self.model)
        if not callable(self.model):
            raise TypeError(f"{type(self).__name__}'s model must be a compiled kgraph Model "
                            "or a callable model(X, y, **model_kwargs) returning one; "
                            f"received {type(self.model).__name__}: {self.model!r}")
        return self.model(X=X, y=y, **(self.model_kwargs or {}))

    def fit(self, X, y, **kwargs):
        """Validate ``X`` and ``y``, build (or reuse) the model and train it.

        Args:
          X: array-like of shape ``(n_samples, n_features)``.
          y: array-like of shape ``(n_samples,)`` or ``(n_samples, n_outputs)``.
          **kwargs: arguments for ``model.fit``, over ``fit_kwargs``.
        """
        X, y = _sklearn.validate_data(self, X, y)
        y = self._process_target(y, reset=True)
        model = self._get_model(X, y)
        _check_model(model, type(self).__name__, self.model)
        self.history_ = model.fit(X, y, **{**(self.fit_kwargs or {}), **kwargs})
        self.model_ = model
        return self

    def predict(self, X):
        """The model's predictions for ``X``, in the form of the ``y`` fit was given."""
        _sklearn.check_is_fitted(self)
        X = _sklearn.validate_data(self, X, reset=False)
        return self._reverse_process_target(self.model_.predict(X))

    def _process_target(self, y, reset=False):
        """A 2D target for the model (the encoder is fitted when ``reset``)."""
        _sklearn.type_of_target(y)  # an unknown kind of target is an error here
        if reset:
            self._target_encoder = TargetReshaper().fit(y)
        return self._target_encoder.transform(y)

    def _reverse_process_target(self, y):
        return self._target_encoder.inverse_transform(y)


class SKLearnClassifier(ClassifierMixin, SKLBase):
    """A scikit-learn classifier around a kgraph model (``keras.wrappers.SKLearnClassifier``).

    Labels (binary or multiclass, of any kind) reach the model one-hot encoded, so its
    output has one unit per class; ``predict`` returns the label of the largest output,
    ``decision_function`` the raw outputs, ``score`` the accuracy. ``classes_`` holds the
    sorted labels. Arguments as ``SKLBase``.

    >>> import numpy as np, kgraph as kg
    >>> def softmax(X, y):
    ...     x = kg.Input(shape=(X.shape[1],))
    ...     out = kg.layers.Dense(y.shape[1], activation="softmax")(x)
    ...     model = kg.Model(x, out)
    ...     model.compile(optimizer="adam", loss="categorical_crossentropy")
    ...     return model
    >>> X, y = np.eye(3), np.array(["a", "b", "c"])
    >>> clf = SKLearnClassifier(softmax, fit_kwargs={"verbose": 0}).fit(X, y)
    >>> clf.classes_.tolist(), clf.model_.output_shape  # predict(X) returns labels
    (['a', 'b', 'c'], (None, 3))
    """

    def decision_function(self, X):
        """The model's raw outputs for ``X`` (one column per class)."""
        _sklearn.check_is_fitted(self)
        X = _sklearn.validate_data(self, X, reset=False)
        return self.model_.predict(X)

    def _process_target(self, y, reset=False):
        kind = _sklearn.type_of_target(y)
        if kind not in ("binary", "multiclass"):
            raise ValueError("Only binary and multiclass target types are supported."
                             f" Target type: {kind}")
        if reset:
            pipeline = _sklearn.module("sklearn.pipeline")
            encoder = _sklearn.module("sklearn.preprocessing").OneHotEncoder
            self._target_encoder = pipeline.make_pipeline(
                TargetReshaper(), encoder(sparse_output=False)).fit(y)
            self.classes_ = np.unique(y)
            if len(self.classes_) == 1:
                raise ValueError("Classifier can't train when only one class is present.")
        return self._target_encoder.transform(y)

    def _more_tags(self):
        return {"poor_score": True}

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.poor_score = True
        return tags


class SKLearnRegressor(RegressorMixin, SKLBase):
    """A scikit-learn regressor around a kgraph model (``keras.wrappers.SKLearnRegressor``).

    A 1D target reaches the model as one column and ``predict`` returns it 1D again;
    ``score`` is R². Arguments as ``SKLBase``.

    >>> import numpy as np, kgraph as kg
    >>> def linear(X, y):
    ...     x = kg.Input(shape=(X.shape[1],))
    ...     model = kg.Model(x, kg.layers.Dense(1, kernel_initializer="ones")(x))
    ...     model.compile(optimizer="sgd", loss="mse")
    ...     return model
    >>> X = np.ones((4, 2))
    >>> reg = SKLearnRegressor(linear, fit_kwargs={"epochs": 1, "verbose": 0})
    >>> reg.fit(X, X.sum(axis=1)).history_.history["loss"]  # ones fit y = x0 + x1
    [0.0]
    """

    def _more_tags(self):
        return {"poor_score": True}

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.regressor_tags.poor_score = True
        return tags


class SKLearnTransformer(TransformerMixin, SKLBase):
    """A scikit-learn transformer around a kgraph model (``keras.wrappers.SKLearnTransformer``):
    ``fit(X, y)`` trains the model, ``transform(X)`` returns its outputs (an embedding, a
    reconstruction, ...), ``fit_transform`` does both. Arguments as ``SKLBase``.

    >>> import numpy as np, kgraph as kg
    >>> def encoder(X, y):
    ...     x = kg.Input(shape=(X.shape[1],))
    ...     model = kg.Model(x, kg.layers.Dense(y.shape[1])(x))
    ...     model.compile(optimizer="sgd", loss="mse")
    ...     return model
    >>> X = np.ones((4, 3))
    >>> trs = SKLearnTransformer(encoder, fit_kwargs={"verbose": 0})
    >>> trs.fit(X, np.zeros(4)).model_.output_shape  # transform(X) has 1 column
    (None, 1)
    """

    def transform(self, X):
        """The model's outputs for ``X``, shape ``(n_samples, n_outputs)``."""
        _sklearn.check_is_fitted(self)
        X = _sklearn.validate_data(self, X, reset=False)
        return self.model_.predict(X)

    def _more_tags(self):
        return {"preserves_dtype": []}

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = []
        return tags
