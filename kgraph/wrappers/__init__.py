"""scikit-learn estimators around kgraph models (``keras.wrappers``). Needs scikit-learn
(``pip install scikit-learn``, or the ``kgraph[sklearn]`` extra); ``import kgraph`` does not
import it.

>>> import numpy as np, kgraph as kg
>>> def mlp(X, y, width=4):
...     x = kg.Input(shape=(X.shape[1],))
...     h = kg.layers.Dense(width, activation="relu")(x)
...     model = kg.Model(x, kg.layers.Dense(y.shape[1], activation="softmax")(h))
...     model.compile(optimizer="adam", loss="categorical_crossentropy")
...     return model
>>> clf = kg.wrappers.SKLearnClassifier(mlp, model_kwargs={"width": 8},
...                                     fit_kwargs={"verbose": 0})
>>> X, y = np.random.default_rng(0).normal(size=(6, 3)), np.array([0, 1, 2] * 2)
>>> clf.fit(X, y).classes_.tolist(), clf.n_features_in_
([0, 1, 2], 3)
"""

from kgraph.wrappers.sklearn_wrapper import (SKLearnClassifier, SKLearnRegressor,
                                             SKLearnTransformer)

__all__ = ["SKLearnClassifier", "SKLearnRegressor", "SKLearnTransformer"]
