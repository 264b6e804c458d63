"""Adaptive pooling layers: Keras's numbers for shrinking and growing sizes, configs."""


import keras
import numpy as np
import pytest

import kgraph as kg

CASES = [
    ("AdaptiveAveragePooling1D", (2, 11, 3), 4, "channels_last"),
    ("AdaptiveMaxPooling1D", (2, 3, 11), 5, "channels_first"),
    ("AdaptiveAveragePooling2D", (2, 7, 9, 3), (3, 4), "channels_last"),
    ("AdaptiveMaxPooling2D", (2, 7, 9, 3), 4, "channels_last"),
    ("AdaptiveAveragePooling2D", (1, 3, 4, 4), (6, 5), "channels_first"),
    ("AdaptiveMaxPooling3D", (1, 5, 6, 7, 2), (2, 3, 4), "channels_last"),
    ("AdaptiveAveragePooling3D", (1, 5, 6, 7, 2), 3, "channels_last"),
]


@pytest.mark.parametrize("name, shape, size, data_format", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_adaptive_pooling_matches_keras(name, shape, size, data_format):
    x = np.random.default_rng(0).normal(size=shape).astype("float32")
    ours = getattr(kg.layers, name)(size, data_format=data_format)
    theirs = getattr(keras.layers, name)(size, data_format=data_format)
    np.testing.assert_allclose(np.asarray(ours(x)), np.asarray(theirs(x)), rtol=1e-6,
                               atol=1e-6)
    symbolic = ours(kg.Input(shape=shape[1:]))
    assert symbolic.shape[1:] == np.asarray(theirs(x)).shape[1:]
    assert type(ours).from_config(ours.get_config()).get_config() == ours.get_config()
