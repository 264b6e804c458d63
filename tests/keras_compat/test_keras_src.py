"""The Keras internals libraries import (``keras.src.*`` under ``kgraph.compat.install()``),
each against Keras's own as the oracle; and the general ``deserialize_keras_object``."""

from __future__ import annotations

import io

import jax
import jax.numpy as jnp
import keras
import numpy as np
import pytest

import kgraph as kg
import kgraph.compat
from kgraph.saving.errors import LoadError
from kgraph.src.backend import get_keras_mask, set_keras_mask
from kgraph.src.saving import saving_lib, serialization_lib
from kgraph.src.trainers.data_adapters import data_adapter_utils
from kgraph.src.utils import backend_utils


def test_keras_src_imports_resolve_to_kgraph_under_install():
    with kgraph.compat.install():
        from keras.src.backend import get_keras_mask as imported
        from keras.src.distribution import distribution_lib
        from keras.src.losses.losses import LossFunctionWrapper
        import keras as aliased

        assert imported is get_keras_mask
        assert LossFunctionWrapper is kg.losses.LossFunctionWrapper
        assert distribution_lib.DeviceMesh is kg.distribution.DeviceMesh
        assert aliased.src.saving.saving_lib.H5IOStore is saving_lib.H5IOStore


def test_masks_attach_to_arrays_and_to_tensors_without_attributes():
    array = jnp.ones((2, 3))
    set_keras_mask(array, jnp.array([True, False]))
    assert get_keras_mask(array).tolist() == [True, False]
    set_keras_mask(array, None)
    assert get_keras_mask(array) is None

    seen = []

    def traced(x):  # a tracer takes no attributes: the mask lives beside it
        set_keras_mask(x, x > 0)
        seen.append(get_keras_mask(x) is not None)
        return x

    jax.jit(traced)(jnp.ones(2))
    assert seen == [True]
    assert get_keras_mask(kg.Input(shape=(2,))) is None


def test_h5iostore_files_read_by_keras_and_back():
    from keras.src.saving.saving_lib import H5IOStore as KerasStore

    ours = io.BytesIO()
    store = saving_lib.H5IOStore(ours, mode="w")
    store.make("lora")["rank"] = 4
    store.make("lora/0")["kernel"] = np.arange(6, dtype="float32").reshape(2, 3)
    store.close()
    theirs = KerasStore(ours, mode="r")
    assert int(theirs.get("lora")["rank"][()]) == 4
    np.testing.assert_array_equal(theirs.get("lora/0")["kernel"],
                                  np.arange(6, dtype="float32").reshape(2, 3))

    written = io.BytesIO()
    keras_store = KerasStore(written, mode="w")
    keras_store.make("block")["bias"] = np.ones(3, "float32")
    keras_store.close()
    read = saving_lib.H5IOStore(written, mode="r").get("block")
    assert read.keys() == ["bias"] and "bias" in read and len(read) == 1
    np.testing.assert_array_equal(read["bias"], np.ones(3, "float32"))
    with pytest.raises(KeyError, match="no array 'kernel'"):
        read["kernel"]


def test_h5iostore_refuses_a_linked_file_before_reading(tmp_path):
    import h5py

    path = tmp_path / "links.h5"
    with h5py.File(path, "w") as file:
        file.create_group("lora/vars")
        file["lora/vars/rank"] = np.array(2)
        file["lora/vars/elsewhere"] = h5py.ExternalLink("other.h5", "/data")
    with pytest.raises(LoadError, match="links to other objects or files are refused"):
        saving_lib.H5IOStore(str(path), mode="r")


def test_in_safe_mode_is_the_running_deserializations():
    seen = []

    @kg.saving.register_keras_serializable(package="kgraph_test_src")
    class Recorder(kg.layers.Layer):
        @classmethod
        def from_config(cls, config):
            seen.append(serialization_lib.in_safe_mode())
            return cls(**config)

    config = kg.saving.serialize_keras_object(Recorder(name="recorder"))
    assert serialization_lib.in_safe_mode() is None
    kg.saving.deserialize_keras_object(config)
    kg.saving.deserialize_keras_object(config, safe_mode=False)
    assert seen == [True, False]
    assert serialization_lib.in_safe_mode() is None


def test_class_weights_become_keras_sample_weights():
    from keras.src.trainers.data_adapters.data_adapter_utils import \
        class_weight_to_sample_weights as keras_fn

    weights = {0: 0.5, 2: 3.0}
    for y in (np.array([0, 1, 2, 2]), np.array([[0.0], [2.0], [1.0]]),
              np.eye(3)[[2, 0, 1]]):
        np.testing.assert_allclose(
            data_adapter_utils.class_weight_to_sample_weights(y, weights),
            keras_fn(y, weights))


def test_grain_pipeline_is_detected_inside_grain_only():
    grain = pytest.importorskip("grain")
    assert backend_utils.in_grain_data_pipeline() is False
    dataset = grain.MapDataset.range(2).map(lambda i: backend_utils.in_grain_data_pipeline())
    assert list(dataset) == [True, True]


def test_dtype_policy_map_matches_keras():
    ours = kg.dtype_policies.DTypePolicyMap("mixed_bfloat16",
                                            {"dense": "float16", "block_[0-9]+/attn": "bfloat16"})
    theirs = keras.dtype_policies.DTypePolicyMap("mixed_bfloat16")
    theirs["dense"] = "float16"
    theirs["block_[0-9]+/attn"] = "bfloat16"
    for path in ("dense", "block_3/attn/query", "other"):
        assert ours[path].name == theirs[path].name, path
    assert (ours.compute_dtype.name, ours.variable_dtype.name) == (theirs.compute_dtype,
                                                                   theirs.variable_dtype)
    assert kg.dtype_policies.serialize(ours)["config"]["policy_map"].keys() == \
        keras.dtype_policies.serialize(theirs)["config"]["policy_map"].keys()
    assert kg.dtype_policies.get(keras.dtype_policies.serialize(theirs)) == ours
    with pytest.raises(ValueError, match="DTypePolicyMap key 'dense' is set already"):
        ours["dense"] = "float32"


def test_deserialize_keras_object_reads_what_keras_serializes():
    for obj in (keras.losses.Huber(delta=2.0), keras.optimizers.Adam(0.01),
                keras.metrics.MeanSquaredError(), keras.initializers.GlorotUniform(seed=3),
                keras.regularizers.L2(0.25), keras.constraints.MaxNorm(2.0),
                keras.optimizers.schedules.ExponentialDecay(0.1, 10, 0.5),
                (1, 2.5, "a"), [None, {"k": 3}], np.arange(3, dtype="int32")):
        config = keras.saving.serialize_keras_object(obj)
        restored = kg.saving.deserialize_keras_object(config)
        if hasattr(obj, "get_config"):
            assert type(restored).__name__ == type(obj).__name__
            theirs, mine = obj.get_config(), restored.get_config()
            shared = [k for k in theirs if k in mine]
            assert shared, type(obj).__name__
            assert {k: theirs[k] for k in shared} == {k: mine[k] for k in shared}
        else:
            np.testing.assert_equal(restored, keras.saving.deserialize_keras_object(config))
    assert kg.saving.deserialize_keras_object(
        keras.saving.serialize_keras_object(keras.activations.gelu)) is kg.activations.gelu


def test_kgraph_objects_round_trip_in_keras_form():
    for obj in (kg.optimizers.Adam(0.1), kg.initializers.GlorotUniform(seed=3),
                kg.regularizers.L2(0.25), kg.constraints.MaxNorm(2.0),
                kg.losses.Huber(2.0), kg.metrics.AUC(num_thresholds=50),
                kg.optimizers.schedules.ExponentialDecay(0.1, 10, 0.5)):
        config = kg.saving.serialize_keras_object(obj)
        assert config["module"].startswith("keras.") and config["class_name"] == \
            type(obj).__name__
        restored = kg.saving.deserialize_keras_object(config)
        assert type(restored) is type(obj) and restored.get_config() == obj.get_config()
        # and Keras reads the same config
        assert type(keras.saving.deserialize_keras_object(config)).__name__ == \
            type(obj).__name__
    policy = kg.dtype_policies.DTypePolicy("mixed_bfloat16")
    assert kg.saving.deserialize_keras_object(kg.saving.serialize_keras_object(policy)) == policy


def test_deserialize_keras_object_with_module_objects_as_keras():
    class Greedy:
        def __init__(self, temperature=1.0):
            self.temperature = temperature

        def get_config(self):
            return {"temperature": self.temperature}

        @classmethod
        def from_config(cls, config):
            return cls(**config)

    table = {"greedy": Greedy}
    made = kg.saving.deserialize_keras_object("greedy", module_objects=table,
                                              printable_module_name="samplers")
    assert isinstance(made, Greedy) and made.temperature == 1.0
    assert kg.saving.deserialize_keras_object("unknown", module_objects=table) == "unknown"


def test_functional_model_of_a_registered_subclass_keeps_its_registered_name():
    @kg.saving.register_keras_serializable(package="kgraph_test_src")
    class Tower(kg.Model):
        def __init__(self, units=2, **kwargs):
            x = kg.Input(shape=(3,))
            super().__init__(x, kg.layers.Dense(units)(x), **kwargs)
            self.units = units

        def get_config(self):
            return {"units": self.units, "name": self.name}

    tower = Tower()
    assert isinstance(tower, kg.Functional)
    config = kg.saving.serialize_keras_object(tower)
    assert config["registered_name"] == "kgraph_test_src>Tower"
    assert type(kg.saving.deserialize_keras_object(config)).__name__ == "Tower"


def test_convert_tf_tensor_and_in_tf_graph_match_keras():
    from keras.src.utils import backend_utils as keras_utils

    for value, dtype in ((np.array([[1, 2]]), None), ([1.5, 2.0], None),
                         (np.array([3.0]), "float16")):
        ours = backend_utils.convert_tf_tensor(value, dtype=dtype)
        theirs = keras_utils.convert_tf_tensor(value, dtype=dtype)
        assert str(ours.dtype) == str(theirs.dtype)
        np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))
    assert backend_utils.in_tf_graph() is keras_utils.in_tf_graph() is False
    tf = pytest.importorskip("tensorflow")
    inside = tf.function(lambda: (backend_utils.in_tf_graph(), keras_utils.in_tf_graph()))
    assert inside.python_function() == (False, False)
    seen = []
    tf.function(lambda: seen.append((backend_utils.in_tf_graph(), keras_utils.in_tf_graph())))()
    assert seen == [(True, True)]
