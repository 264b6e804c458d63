"""``kgraph.base.naming.to_snake_case`` is Keras's, and every name derived from a class uses it."""

import os

os.environ.setdefault("KERAS_BACKEND", "jax")

import pytest  # noqa: E402
from keras.src.utils.naming import to_snake_case as keras_to_snake_case  # noqa: E402

from kgraph import initializers  # noqa: E402
from kgraph.base.naming import to_snake_case  # noqa: E402
from runtime import losses, metrics  # noqa: E402


@pytest.mark.parametrize("name", ["BatchNormalization", "Conv2D", "TopKCategoricalAccuracy",
                                  "AUC", "GlorotUniform", "My-Layer", "HTTPRequest2D"])
def test_to_snake_case_is_keras(name):
    assert to_snake_case(name) == keras_to_snake_case(name)


def test_losses_metrics_and_initializers_name_classes_alike():
    assert losses.snake_case is to_snake_case
    assert losses.MeanSquaredError().name == "mean_squared_error"
    assert metrics.TopKCategoricalAccuracy().name == "top_k_categorical_accuracy"
    assert isinstance(initializers.get("glorot_uniform"), initializers.GlorotUniform)
    assert isinstance(initializers.get("variance_scaling"), initializers.VarianceScaling)
