"""``keras.legacy.saving``: Keras 2's ``{"class_name", "config"}`` format, written and read
as Keras 3 does, on the same objects in both."""

import keras
import pytest

import kgraph as kg


def _scenario(k):
    """A registered class holding a regularizer, a registered function and plain data, in
    library ``k`` (Keras or kgraph)."""
    def scaled_relu(x):
        return 2 * x

    scaled_relu = k.saving.register_keras_serializable("legacy_test")(scaled_relu)

    class Holder:
        def __init__(self, name, regularizer, fn, sizes):
            self.name, self.regularizer, self.fn, self.sizes = name, regularizer, fn, sizes

        def get_config(self):
            return {"name": self.name, "regularizer": self.regularizer, "fn": self.fn,
                    "sizes": self.sizes}

        @classmethod
        def from_config(cls, config):
            return cls(**config)

    Holder = k.saving.register_keras_serializable("legacy_test")(Holder)
    return Holder("h", k.regularizers.L2(0.5), scaled_relu, [1, 2]), Holder


def test_written_configs_equal_kerass_and_read_back():
    ours_obj, ours_cls = _scenario(kg)
    theirs_obj, _ = _scenario(keras)
    ours = kg.legacy.saving.serialize_keras_object(ours_obj)
    assert ours == keras.legacy.saving.serialize_keras_object(theirs_obj)
    assert ours["config"]["regularizer"]["__passive_serialization__"] is True
    back = kg.legacy.saving.deserialize_keras_object(
        ours, module_objects={"L2": kg.regularizers.L2})
    assert isinstance(back, ours_cls) and back.sizes == [1, 2] and back.fn(3) == 6
    assert isinstance(back.regularizer, kg.regularizers.L2) and back.regularizer.l2 == 0.5
    assert kg.utils.legacy.serialize_keras_object is kg.legacy.saving.serialize_keras_object


def test_kerass_configs_of_builtin_layers_are_read():
    config = keras.legacy.saving.serialize_keras_object(
        keras.layers.Dense(3, activation="relu", kernel_regularizer=keras.regularizers.L1(0.1),
                           name="d"))
    layer = kg.legacy.saving.deserialize_keras_object(
        config, module_objects={"Dense": kg.layers.Dense})
    assert isinstance(layer, kg.layers.Dense) and layer.units == 3 and layer.name == "d"
    assert layer.kernel_regularizer.l1 == pytest.approx(0.1)


def test_names_give_functions_or_fresh_instances_and_unknown_names_are_refused():
    read = kg.legacy.saving.deserialize_keras_object
    assert read("relu", module_objects={"relu": kg.activations.relu}) is kg.activations.relu
    zeros = read("Zeros", module_objects={"Zeros": kg.initializers.Zeros})
    assert isinstance(zeros, kg.initializers.Zeros)
    with kg.utils.custom_object_scope({"Mine": kg.initializers.Ones}):
        assert isinstance(read({"class_name": "Mine", "config": {}}), kg.initializers.Ones)
    with pytest.raises(ValueError, match="Unknown initializer: 'Nope'"):
        read({"class_name": "Nope", "config": {}}, printable_module_name="initializer")
    with pytest.raises(ValueError, match="Improper config format"):
        read({"config": {}})
    with pytest.raises(ValueError, match="doesn't implement"):
        kg.legacy.saving.serialize_keras_object(object())
