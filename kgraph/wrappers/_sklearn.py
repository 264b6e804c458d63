"""scikit-learn for ``kgraph.wrappers``: imported with the wrappers (``import kgraph`` never
imports it). Without scikit-learn the wrapper classes still exist, on stand-in bases, and
making one raises an ImportError that says how to install it.

>>> TargetReshaper().fit(np.zeros(3)).transform(np.zeros(3)).shape
(3, 1)
"""

from __future__ import annotations

import importlib

import numpy as np


def _optional(name):
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


sklearn = _optional("sklearn")
_base = _optional("sklearn.base") if sklearn is not None else None

if _base is not None:
    BaseEstimator, ClassifierMixin = _base.BaseEstimator, _base.ClassifierMixin
    RegressorMixin, TransformerMixin = _base.RegressorMixin, _base.TransformerMixin
else:  # stand-ins, so that the module imports; the wrappers refuse to be made
    class BaseEstimator:
        """Stand-in for ``sklearn.base.BaseEstimator`` (scikit-learn is not installed)."""

    class ClassifierMixin:
        """Stand-in for ``sklearn.base.ClassifierMixin``."""

    class RegressorMixin:
        """Stand-in for ``sklearn.base.RegressorMixin``."""

    class TransformerMixin:
        """Stand-in for ``sklearn.base.TransformerMixin``."""


def require_sklearn(owner: str) -> None:
    """Raise the ImportError that explains how to get scikit-learn, if it is missing."""
    if sklearn is None:
        raise ImportError(f"{owner} requires scikit-learn, which is not installed. Install it "
                          "with `pip install scikit-learn` (or `pip install kgraph[sklearn]`).")


def module(name: str):
    """A scikit-learn submodule, e.g. ``module("sklearn.preprocessing")``."""
    return importlib.import_module(name)


def check_is_fitted(estimator) -> None:
    module("sklearn.utils.validation").check_is_fitted(estimator)


def validate_data(estimator, *args, **kwargs):
    """scikit-learn's input validation (``validate_data`` from 1.6, the estimator's own
    ``_validate_data`` before): arrays checked, ``n_features_in_`` set or compared."""
    validation = module("sklearn.utils.validation")
    if hasattr(validation, "validate_data"):
        return validation.validate_data(estimator, *args, **kwargs)
    return estimator._validate_data(*args, **kwargs)


def type_of_target(y) -> str:
    """scikit-learn's kind of target (``"binary"``, ``"continuous"``, ...); an unknown kind
    is an error."""
    kind = module("sklearn.utils.multiclass").type_of_target(y)
    if kind == "unknown":
        raise ValueError(f"Unknown label type for data: {y!r}")
    return kind


def routing_enabled() -> bool:
    """Whether scikit-learn's metadata routing is switched on (``sklearn.set_config``)."""
    return bool(sklearn is not None
                and sklearn.get_config().get("enable_metadata_routing", False))


class TargetReshaper(TransformerMixin, BaseEstimator):
    """Targets as 2D arrays for the model (a 1D ``y`` becomes one column) and back.

    >>> reshaper = TargetReshaper().fit(np.arange(3))
    >>> reshaper.inverse_transform(reshaper.transform(np.arange(3))).shape
    (3,)
    """

    def fit(self, y):
        self.ndim_ = y.ndim
        return self

    def transform(self, y):
        return y.reshape(-1, 1) if y.ndim == 1 else y

    def inverse_transform(self, y):
        check_is_fitted(self)
        if self.ndim_ == 1 and y.ndim == 2:
            return np.squeeze(y, axis=1)
        return y
