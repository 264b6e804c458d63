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
    r"layer_normalization|re_lu|dropout|flatten|cropping2d|multiply|custom_scale_layer)"
    r"(_\d+)?")


def _named_layers(model):
    return [layer.name for layer in model.layers if not _NUMBERED.fullmatch(layer.name)]


def _layer_count(model):
    """Layers, not operations (``x + y`` on symbolic tensors, which neither library's
    ``model.layers`` lists)."""
    assert not any(isinstance(layer, Operation) for layer in model.layers)
    return len(model.layers)


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
    # predict: one compiled program each (an eager call compiles every op's shapes apart)
    np.testing.assert_allclose(ours.predict(images, verbose=0),
                               theirs.predict(images, verbose=0), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("builder", ["EfficientNetB3"])  # width and depth scaled
def test_deeper_builders_have_kerass_layers_and_parameters(builder):
    kwargs = dict(weights=None, include_top=False, input_shape=(32, 32, 3), pooling="avg")
    ours = getattr(kg.applications, builder)(**kwargs)
    theirs = getattr(keras.applications, builder)(**kwargs)
    assert _named_layers(ours) == _named_layers(theirs)
    assert ours.count_params() == theirs.count_params() and ours.name == theirs.name


@pytest.mark.parametrize("module", ["vgg16", "vgg19", "resnet", "resnet50", "resnet_v2",
                                    "mobilenet", "mobilenet_v2", "densenet", "xception",
                                    "inception_v3", "efficientnet", "convnext",
                                    "mobilenet_v3", "efficientnet_v2", "inception_resnet_v2",
                                    "nasnet"])
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


# MobileNetV3, EfficientNetV2, InceptionResNetV2 and NASNet: the smallest variant of each
# family against Keras (Keras's builds are the slow part: MobileNetV3Small's is kept for the
# imagenet weights' test)
_NEWER_BUILDS = {
    "MobileNetV3Small": dict(input_shape=(32, 32, 3), classifier_activation=None),
    "EfficientNetV2B0": dict(include_top=True, input_shape=(33, 40, 3), classes=4,
                             classifier_activation=None),
    "InceptionResNetV2": dict(include_top=False, input_shape=(75, 75, 3), pooling="avg"),
    "NASNetMobile": dict(include_top=False, input_shape=(32, 36, 3), pooling="max")}
_keras_builds = {}


def _keras_build(builder):
    """Keras's ``builder`` with random weights and batch statistics away from their
    initial values (else the outputs of these deep networks shrink to ~1e-10), and its
    outputs on one image."""
    if builder in _keras_builds:
        return _keras_builds[builder]
    kwargs = _NEWER_BUILDS[builder]
    network = getattr(keras.applications, builder)(weights=None, **kwargs)
    rng = np.random.default_rng(0)
    for variable in network.weights:
        if "moving" in variable.path:
            variable.assign(rng.uniform(0.5, 1.5, variable.shape).astype(variable.dtype))
    images = rng.uniform(0, 255, size=(1, *kwargs["input_shape"])).astype("float32")
    built = network, images, network.predict(images, verbose=0)
    if builder == "MobileNetV3Small":
        _keras_builds[builder] = built
    return built


def _assert_outputs_equal(got, want):
    scale = float(np.abs(want).max())
    assert scale > 1e-3
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-4, atol=1e-4 * scale)


@pytest.mark.parametrize("builder", sorted(_NEWER_BUILDS))
def test_a_newer_builder_equals_keras_on_a_kerass_weights_file(builder, tmp_path):
    theirs, images, want = _keras_build(builder)
    path = str(tmp_path / "keras.weights.h5")
    theirs.save_weights(path)
    ours = getattr(kg.applications, builder)(weights=path, **_NEWER_BUILDS[builder])
    assert _named_layers(ours) == _named_layers(theirs)
    assert _layer_count(ours) == len(theirs.layers)
    assert ours.count_params() == theirs.count_params()
    assert (ours.output_shape, ours.name) == (theirs.output_shape, theirs.name)
    _assert_outputs_equal(ours.predict(images, verbose=0), want)


def test_imagenet_weights_are_kerass_legacy_file(tmp_path, monkeypatch):
    """``weights="imagenet"`` asks Keras's cache for Keras's file (name, URL, md5) and
    loads it by layer order; a stand-in written by Keras in that format replaces the
    download."""
    import h5py
    from keras.src.legacy.saving import legacy_h5_format

    theirs, images, want = _keras_build("MobileNetV3Small")
    legacy = str(tmp_path / "weights.h5")
    with h5py.File(legacy, "w") as file:
        legacy_h5_format.save_weights_to_hdf5_group(file, theirs)
    requested = []

    def get_file(name, origin, cache_subdir, file_hash):
        requested.append((name, origin, cache_subdir, file_hash))
        if "nasnet" in name:
            raise LookupError("not downloaded")
        return legacy

    monkeypatch.setattr(kg.applications.builder, "get_file", get_file)
    with pytest.warns(UserWarning, match="224x224"):
        ours = kg.applications.MobileNetV3Small(weights="imagenet", **_NEWER_BUILDS[
            "MobileNetV3Small"])
    name = "weights_mobilenet_v3_small_224_1.0_float.h5"
    assert requested == [(name, kg.applications.builder.WEIGHTS_ORIGIN + "mobilenet_v3/" + name,
                          "models", "8768d4c2e7dee89b9d02b2d03d65d862")]
    _assert_outputs_equal(ours.predict(images, verbose=0), want)
    requested.clear()  # NASNet's files are published under other names than cached
    with pytest.raises(LookupError):
        kg.applications.NASNetMobile(weights="imagenet", include_top=False)
    assert requested == [("nasnet_mobile_no_top.h5", kg.applications.builder.WEIGHTS_ORIGIN +
                          "nasnet/NASNet-mobile-no-top.h5", "models",
                          "1ed92395b5b598bdda52abe5c0dbfd63")]


# (count_params(), len(model.layers)) of Keras 3.15's builders with weights=None and these
# arguments, noted once from Keras (building them all in Keras takes minutes)
_KERAS_SIZES = [
    ("MobileNetV3Small", dict(), (2554968, 164)),
    ("MobileNetV3Small", dict(alpha=0.75), (2051552, 164)),
    ("MobileNetV3Small", dict(minimalistic=True), (2056848, 110)),
    ("MobileNetV3Large", dict(), (5507432, 194)),
    ("MobileNetV3Large", dict(alpha=0.75), (4012616, 194)),
    ("MobileNetV3Large", dict(minimalistic=True), (3948688, 146)),
    ("MobileNetV3Large", dict(alpha=1.3, include_top=False), (4997984, 186)),
    ("EfficientNetV2B0", dict(), (7200312, 273)),
    ("EfficientNetV2B1", dict(), (8212124, 337)),
    ("EfficientNetV2B2", dict(), (10178374, 352)),
    ("EfficientNetV2B3", dict(), (14467622, 412)),
    ("EfficientNetV2B3", dict(include_top=False), (12930622, 409)),
    ("EfficientNetV2S", dict(), (21612360, 516)),
    ("EfficientNetV2M", dict(), (54431388, 743)),
    ("EfficientNetV2L", dict(), (119027848, 1031)),
    ("InceptionResNetV2", dict(), (55873736, 782)),
    ("NASNetMobile", dict(), (5326716, 771)),
    ("NASNetLarge", dict(), (88949818, 1041)),
    ("NASNetLarge", dict(include_top=False), (84887922, 1012))]


def test_every_newer_variant_has_kerass_parameters_and_layers():
    for builder, kwargs, size in _KERAS_SIZES:
        model = getattr(kg.applications, builder)(weights=None, **kwargs)
        assert (model.count_params(), _layer_count(model)) == size, (builder, kwargs)


def _refused_by_both(builder, match, **kwargs):
    with pytest.raises(ValueError):
        getattr(keras.applications, builder)(**kwargs)
    with pytest.raises(ValueError, match=match):
        getattr(kg.applications, builder)(**kwargs)


@pytest.mark.parametrize("builder", sorted(_NEWER_BUILDS))
def test_newer_builders_refuse_bad_weights_as_keras(builder):
    _refused_by_both(builder, f"{builder}: weights must be", weights="no/such/file.h5")
    _refused_by_both(builder, f"{builder}: .*classes must be 1000", weights="imagenet",
                     classes=10)


def test_newer_builders_refuse_bad_arguments_as_keras():
    _refused_by_both("MobileNetV3Small", "alpha must be 0.75 or 1.0; received alpha=0.5",
                     weights="imagenet", alpha=0.5)
    _refused_by_both("MobileNetV3Large", "alpha must be 1.0 when minimalistic",
                     weights="imagenet", alpha=0.75, minimalistic=True)
    _refused_by_both("MobileNetV3Small", "at least 32x32", weights=None,
                     input_shape=(16, 40, 3))
    _refused_by_both("EfficientNetV2S", r"must be \(384, 384, 3\)", weights="imagenet",
                     input_shape=(224, 224, 3))
    _refused_by_both("InceptionResNetV2", "at least 75x75", weights=None, include_top=False,
                     input_shape=(64, 64, 3))
    _refused_by_both("NASNetLarge", "NASNetLarge: .*must be static", weights="imagenet",
                     include_top=False, input_shape=(None, None, 3))
    formats = keras.config.image_data_format(), kg.config.image_data_format()
    keras.config.set_image_data_format("channels_first")
    kg.config.set_image_data_format("channels_first")
    try:
        _refused_by_both("NASNetMobile", "NASNetMobile supports only the channels_last",
                         weights=None)
    finally:
        keras.config.set_image_data_format(formats[0])
        kg.config.set_image_data_format(formats[1])


def test_efficientnet_v2_preprocessing_and_custom_names():
    """B0 to B3 normalize with the ImageNet statistics, S, M and L scale to -1..1, as
    Keras's (whose choice also depends on the model's name: a custom name breaks it,
    here it does not)."""
    model = kg.applications.EfficientNetV2B1(weights=None, include_top=False, name="custom")
    assert model.name == "custom"
    assert [type(layer).__name__ for layer in model.layers[1:3]] == ["Rescaling",
                                                                     "Normalization"]
    model = kg.applications.EfficientNetV2S(weights=None, include_top=False,
                                            include_preprocessing=False)
    assert type(model.layers[1]).__name__ == "Conv2D"
    rescaling = kg.applications.EfficientNetV2S(weights=None, include_top=False).layers[1]
    assert (rescaling.scale, rescaling.offset) == (1.0 / 128.0, -1)


def test_efficientnet_without_weights_predicts_as_keras():
    """Keras's EfficientNet without weights normalizes with mean 0 and variance 1: it
    predicts (and its normalization's weights are those) before any training."""
    ours = kg.applications.EfficientNetB0(weights=None, include_top=False,
                                          input_shape=(32, 32, 3))
    theirs = keras.applications.EfficientNetB0(weights=None, include_top=False,
                                               input_shape=(32, 32, 3))
    norm = [layer for layer in ours.layers if type(layer).__name__ == "Normalization"][0]
    keras_norm = [layer for layer in theirs.layers
                  if type(layer).__name__ == "Normalization"][0]
    for got, want in zip(norm.get_weights(), keras_norm.get_weights()):
        np.testing.assert_array_equal(got, want)
    assert ours.predict(_IMAGES, verbose=0).shape == (2, 1, 1, 1280)
