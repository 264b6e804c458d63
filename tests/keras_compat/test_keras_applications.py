"""``keras.applications`` builders against Keras's: the same layers (names, parameter
counts) for their arguments, the same outputs on Keras's weights (moved through a Keras
``.weights.h5`` file), the same preprocessing, and decode_predictions from the class index
in Keras's cache."""

import json
import os
import re

import keras
import numpy as np
import pytest

import kgraph as kg
from kgraph.ops.registry import Operation

_IMAGES = np.random.default_rng(0).uniform(0, 255, size=(2, 32, 32, 3)).astype("float32")
_ARGUMENTS = [dict(include_top=False, input_shape=(32, 32, 3)),
              dict(include_top=False, input_shape=(32, 32, 3), pooling="avg"),
              dict(include_top=False, input_shape=(48, 40, 1), pooling="max"),
              dict(include_top=True, input_shape=(32, 32, 3), classes=7,
                   classifier_activation=None)]


# layers a builder leaves unnamed: each library numbers them by its own counter
_NUMBERED = re.compile(
    r"(input_layer|(max|average)_pooling2d|zero_padding2d|global_(average|max)_pooling2d|"
    r"conv2d|batch_normalization|add|activation|concatenate|rescaling|normalization|"
    r"layer_normalization)(_\d+)?")


def _named_layers(model):
    return [layer.name for layer in model.layers if not _NUMBERED.fullmatch(layer.name)]


def _layer_count(model):
    """Layers, not operations (``x + y`` on symbolic tensors): Keras's ``model.layers``
    leaves operations out, kgraph's lists them."""
    return sum(not isinstance(layer, Operation) for layer in model.layers)


_BUILDS = [("VGG16", k) for k in _ARGUMENTS] + [
    ("VGG19", _ARGUMENTS[1]), ("ResNet50", _ARGUMENTS[1]), ("ResNet50V2", _ARGUMENTS[3]),
    ("MobileNetV2", dict(include_top=True, input_shape=(96, 96, 3), alpha=0.35, classes=7)),
    ("DenseNet121", _ARGUMENTS[3]),
    ("MobileNet", dict(include_top=True, input_shape=(128, 128, 3), alpha=0.25,
                       depth_multiplier=2, classes=7)),
    ("InceptionV3", dict(include_top=False, input_shape=(75, 80, 3), pooling="avg")),
    ("Xception", dict(include_top=False, input_shape=(71, 80, 3))),
    ("EfficientNetB0", dict(include_top=True, input_shape=(33, 40, 3), classes=4)),
    ("ConvNeXtTiny", dict(include_top=False, input_shape=(32, 32, 3), pooling="avg"))]


@pytest.mark.parametrize("builder,kwargs", _BUILDS, ids=lambda v: v if isinstance(v, str)
                         else ",".join(f"{a}={b}" for a, b in v.items()))
def test_a_builder_equals_keras(builder, kwargs, tmp_path):
    theirs = getattr(keras.applications, builder)(weights=None, **kwargs)
    path = str(tmp_path / "keras.weights.h5")
    theirs.save_weights(path)
    ours = getattr(kg.applications, builder)(weights=path, **kwargs)
    assert _named_layers(ours) == _named_layers(theirs)
    assert _layer_count(ours) == len(theirs.layers)
    assert ours.count_params() == theirs.count_params()
    assert ours.output_shape == theirs.output_shape
    images = np.random.default_rng(1).uniform(0, 255, size=(2, *kwargs["input_shape"]))
    np.testing.assert_allclose(np.asarray(ours(images)), np.asarray(theirs(images)),
                               rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("builder", ["EfficientNetB3"])  # width and depth scaled
def test_deeper_builders_have_kerass_layers_and_parameters(builder):
    kwargs = dict(weights=None, include_top=False, input_shape=(32, 32, 3), pooling="avg")
    ours = getattr(kg.applications, builder)(**kwargs)
    theirs = getattr(keras.applications, builder)(**kwargs)
    assert _named_layers(ours) == _named_layers(theirs)
    assert ours.count_params() == theirs.count_params() and ours.name == theirs.name


@pytest.mark.parametrize("module", ["vgg16", "vgg19", "resnet", "resnet50", "resnet_v2",
                                    "mobilenet", "mobilenet_v2", "densenet", "xception",
                                    "inception_v3", "efficientnet", "convnext"])
def test_preprocess_input_equals_keras(module):
    ours = getattr(kg.applications, module).preprocess_input(_IMAGES.copy())
    theirs = getattr(keras.applications, module).preprocess_input(_IMAGES.copy())
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-4)


@pytest.mark.parametrize("mode", ["tf", "torch", "caffe"])
@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_preprocess_modes_equal_keras_on_arrays_and_in_a_model(mode, data_format):
    images = _IMAGES.copy() if data_format == "channels_last" else \
        np.ascontiguousarray(_IMAGES.transpose(0, 3, 1, 2))
    theirs = keras.applications.imagenet_utils.preprocess_input(
        images.copy(), data_format=data_format, mode=mode)
    preprocess = kg.applications.imagenet_utils.preprocess_input
    np.testing.assert_allclose(preprocess(images.copy(), data_format=data_format, mode=mode),
                               theirs, rtol=1e-6, atol=1e-4)
    inputs = kg.Input(shape=images.shape[1:])  # as graph nodes, in a functional model
    model = kg.Model(inputs, preprocess(inputs, data_format=data_format, mode=mode))
    np.testing.assert_allclose(np.asarray(model(images)), theirs, rtol=1e-6, atol=1e-4)


def test_decode_predictions_reads_the_cached_class_index(tmp_path, monkeypatch):
    index = {str(i): [f"n{i:08d}", f"class_{i}"] for i in range(1000)}
    cache = tmp_path / "models"
    cache.mkdir()
    (cache / "imagenet_class_index.json").write_text(json.dumps(index))
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    monkeypatch.setattr(kg.applications.imagenet_utils, "_class_index", None)
    monkeypatch.setattr(kg.applications.imagenet_utils, "_CLASS_INDEX_HASH", None)
    preds = np.zeros((1, 1000), "float32")
    preds[0, [3, 7]] = [0.2, 0.7]
    top = kg.applications.vgg16.decode_predictions(preds, top=2)
    assert [(name, label) for name, label, _ in top[0]] == [("n00000007", "class_7"),
                                                            ("n00000003", "class_3")]
    with pytest.raises(ValueError, match="1000"):
        kg.applications.vgg16.decode_predictions(np.zeros((1, 10)))


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="classes must be 1000"):
        kg.applications.VGG16(weights="imagenet", classes=10)
    with pytest.raises(ValueError, match="weights must be"):
        kg.applications.VGG16(weights="no/such/file.h5")
    with pytest.raises(ValueError, match="at least 32x32"):
        kg.applications.VGG16(weights=None, include_top=False, input_shape=(16, 16, 3))


def test_convnext_stochastic_depth_drops_whole_samples_in_training_only():
    import jax

    from kgraph.applications.convnext import LayerScale, StochasticDepth
    x = np.ones((64, 2, 2, 3), "float32")
    depth = StochasticDepth(0.25)
    dropped = np.asarray(depth(x, training=True, key=jax.random.PRNGKey(0)))
    per_sample = dropped.reshape(64, -1)
    assert set(np.unique(per_sample.min(axis=1))) <= {0.0, np.float32(1) / np.float32(0.75)}
    assert (per_sample.min(axis=1) == per_sample.max(axis=1)).all()  # whole samples
    assert 0 < (per_sample[:, 0] == 0).sum() < 64
    np.testing.assert_array_equal(np.asarray(depth(x)), x)  # inference: the identity
    scale = LayerScale(0.5, 3)
    np.testing.assert_allclose(np.asarray(scale(x)), x * 0.5)
    assert scale.get_config()["projection_dim"] == 3
