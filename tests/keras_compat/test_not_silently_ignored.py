"""Arguments, rules and file members are used or refused, never accepted and dropped:
the cases an audit of the public API found, each as Keras 3 treats it where it can."""

from __future__ import annotations

import sys

import keras
import numpy as np
import pytest

import kgraph as kg

X = np.ones((8, 4), np.float32)


def _two_outputs():
    x = kg.Input((4,))
    model = kg.Model(x, {"a": kg.layers.Dense(1, name="a")(x),
                         "b": kg.layers.Dense(1, name="b")(x)})
    model.compile("sgd", "mse")
    return model


def test_dict_targets_and_weights_naming_no_output_are_errors_as_keras():
    model, y = _two_outputs(), {"a": X[:, :1], "b": X[:, :1]}
    with pytest.raises(ValueError, match=r"y has key\(s\) \['c'\] that name no output"):
        model.fit(X, {**y, "c": X[:, :1]}, verbose=0)
    with pytest.raises(ValueError, match=r"sample_weight has key\(s\) \['bb'\]"):
        model.fit(X, y, sample_weight={"a": np.ones(8), "bb": np.ones(8)}, verbose=0)


def test_input_keys_a_model_does_not_use_are_said_as_keras():
    a = kg.Input((4,), name="a")
    model = kg.Model({"a": a}, kg.layers.Dense(1)(a))
    with pytest.warns(UserWarning, match=r"does not use input key\(s\) \['extra'\]"):
        model({"a": X, "extra": X})


def test_autocast_false_and_add_weight_positional_dtype_are_kerass():
    layer = kg.layers.Dense(2, dtype="mixed_bfloat16", autocast=False)
    assert layer(X).dtype == np.float32  # Keras: inputs and weights keep float32
    theirs = keras.layers.Dense(2, dtype="mixed_bfloat16", autocast=False)
    assert np.dtype(theirs(X).dtype) == np.float32

    class Counter(kg.layers.Layer):
        def build(self, shape):
            self.count = self.add_weight((), None, "int32", trainable=False)  # Keras's order

    counter = Counter()
    counter.build((None, 4))
    assert counter.weights[0].dtype == np.int32 and not counter.weights[0].trainable
    # Keras 3 takes at most (shape, initializer, dtype) positionally, and says so
    with pytest.raises(TypeError, match=r'Layer "counter": add_weight\(\) takes at most 3 '
                                        r"positional arguments but 4 were given"):
        counter.add_weight((), None, "int32", False)
    written = kg.layers.Layer().add_weight((2,), overwrite_with_gradient=True)
    assert written.overwrite_with_gradient and written.trainable  # (as Keras's float8)


def test_float16_compiles_with_loss_scaling_as_keras():
    x = kg.Input((4,))
    model = kg.Model(x, kg.layers.Dense(1, dtype="mixed_float16")(x))
    model.compile("sgd", "mse")
    assert isinstance(model.optimizer, kg.optimizers.LossScaleOptimizer)
    model.compile("sgd", "mse", auto_scale_loss=False)
    assert not isinstance(model.optimizer, kg.optimizers.LossScaleOptimizer)


def test_clone_model_refuses_what_it_would_not_use_as_keras():
    class Sub(kg.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.dense = kg.layers.Dense(2)

        def call(self, x):
            return self.dense(x)

    model = Sub()
    model(X)
    with pytest.raises(ValueError, match="clone_function apply to functional"):
        kg.models.clone_model(model, clone_function=lambda layer: layer)
    sequential = kg.Sequential([kg.Input((4,)), kg.layers.Dense(2)])
    with pytest.raises(ValueError, match="has one input; received 2"):
        kg.models.clone_model(sequential, input_tensors=[kg.Input((4,)), kg.Input((4,))])


def test_options_kgraph_cannot_honour_are_errors_or_warnings():
    # TensorBoard's write_images is honoured now (test_keras_tensorboard_files.py); profiling
    # needs Python 3.12+, as Keras's on JAX: before it, profile_batch is said to be ignored
    if sys.version_info < (3, 12):
        with pytest.warns(UserWarning, match=r"requires python >= 3\.12; profile_batch=2 is "
                                             r"ignored"):
            kg.callbacks.TensorBoard("logs", profile_batch=2)
    images = np.ones((1, 4, 4, 1), np.float32)
    with pytest.raises(ValueError, match="only fill_mode='constant'"):
        kg.ops.image.resize(images, (2, 2), fill_mode="reflect")
    with pytest.warns(UserWarning, match="used only by the first layer of a Sequential"):
        kg.Sequential([kg.layers.Dense(3, input_shape=(4,)),
                       kg.layers.Dense(2, input_shape=(9,))])
    config = {"class_name": "Dense", "config": {"units": 2, "name": "mapped", "dtype": {
        "class_name": "DTypePolicyMap", "config": {
            "default_policy": "mixed_bfloat16", "policy_map": {"mapped/kernel": "float32"}}}}}
    with pytest.warns(UserWarning, match="DTypePolicyMap's per-path policies"):
        layer = kg.saving.deserialize_keras_object(config)
    assert layer.dtype_policy.name == "mixed_bfloat16"


def test_a_scheduled_learning_rate_is_not_settable_as_keras():
    x = kg.Input((4,))
    model = kg.Model(x, kg.layers.Dense(1)(x))
    model.compile(kg.optimizers.SGD(kg.optimizers.schedules.ExponentialDecay(0.1, 10, 0.9)),
                  "mse")
    with pytest.raises(TypeError, match="learning rate is not settable"):
        model.fit(X, X[:, :1], verbose=0, callbacks=[
            kg.callbacks.LearningRateScheduler(lambda epoch, rate: rate * 0.5)])
