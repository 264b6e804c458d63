"""``kgraph.base.naming.to_snake_case`` is Keras's, and every name derived from a class uses it."""


import pytest
from keras.src.utils.naming import to_snake_case as keras_to_snake_case

import kgraph as kg
from kgraph import initializers
from kgraph.base.naming import to_snake_case
from kgraph.losses import losses
from kgraph.metrics import metrics


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


def test_a_layer_renamed_for_a_later_model_stays_unique_where_it_was_named_before():
    """A layer shared across models keeps one name; when a later model must rename it,
    the new name is free in every model it belongs to, so each one's config rebuilds."""
    x = kg.Input((2,))
    first, second = kg.layers.Dense(2), kg.layers.Dense(2)
    outer = kg.Model(x, second(first(x)))  # dense, dense_1
    y = kg.Input((2,))
    other, shared = kg.layers.Dense(2), kg.layers.Dense(2)
    inner = kg.Model(y, shared(other(y)))  # dense, dense_1
    z = kg.Input((2,))
    both = kg.Model(z, shared(second(z)))  # two layers named dense_1: one is renamed
    for model in (outer, inner, both):
        names = [layer.name for layer in model.layers]
        assert len(names) == len(set(names)), names
        rebuilt = kg.Functional.from_config(model.get_config())
        assert [layer.name for layer in rebuilt.layers] == names
