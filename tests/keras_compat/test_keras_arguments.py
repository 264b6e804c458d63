"""Keras 3's constructor arguments: every keyword a Keras layer, loss, metric, optimizer or
callback takes is taken by kgraph's class of the same name (with Keras's default value),
or refused with an error that names it, never a ``TypeError`` for an unknown argument."""

from __future__ import annotations

import inspect

import keras
import numpy as np
import pytest

import kgraph as kg
from tests.support.keras_constructors import constructor_arguments

MODULES = ["layers", "losses", "metrics", "optimizers", "callbacks"]
def _constructor_cases():
    for module in MODULES:
        theirs, ours = getattr(keras, module), getattr(kg, module)
        for name in sorted(dir(theirs)):
            cls = getattr(theirs, name)
            if name.startswith("_") or not inspect.isclass(cls) or not hasattr(ours, name):
                continue
            try:
                parameters = inspect.signature(cls.__init__).parameters
            except (TypeError, ValueError):
                continue
            keywords = [p for p in parameters.values() if p.name != "self" and p.kind not in (
                p.VAR_KEYWORD, p.VAR_POSITIONAL) and p.default is not p.empty]
            if keywords:
                yield pytest.param(module, name, parameters, keywords, id=f"{module}.{name}")


@pytest.mark.parametrize("module, name, parameters, keywords", list(_constructor_cases()))
def test_every_keras_keyword_is_taken_with_its_default(module, name, parameters, keywords,
                                                       tmp_path, monkeypatch):
    """Each keyword, at Keras's default, constructs kgraph's class wherever it constructs
    Keras's (arguments Keras refuses too are not compared)."""
    monkeypatch.chdir(tmp_path)  # (callbacks that name files)
    ours_cls = getattr(getattr(kg, module), name)
    theirs_cls = getattr(getattr(keras, module), name)
    built = 0
    if name in NOT_COMPARED:
        return
    for p in keywords:
        try:
            theirs_cls(**{**constructor_arguments(keras, name, parameters), p.name: p.default})
        except ImportError:  # Keras's string preprocessing needs TensorFlow; kgraph's not
            pass
        except Exception:  # noqa: BLE001 - Keras refuses this combination itself
            continue
        ours_cls(**{**constructor_arguments(kg, name, parameters), p.name: p.default})
        built += 1
    assert built or name in KERAS_REFUSES_ALL, f"no keyword of {name} was compared"


# Classes whose every keyword, with the table's values, Keras itself refuses.
KERAS_REFUSES_ALL = {"FlaxLayer", "CategoryEncoding"}
# Not constructed: kgraph's ``Optimizer`` base class is not an optimizer by itself (its
# subclasses give the optax rule); Keras's base class is instantiable.
NOT_COMPARED = {"Optimizer"}


def test_input_takes_kerass_arguments_in_kerass_order():
    theirs = list(inspect.signature(keras.Input).parameters)
    ours = list(inspect.signature(kg.Input).parameters)
    assert ours == theirs
    source = kg.layers.InputLayer(batch_shape=(None, 3), name="source")
    tensor = source._inbound_nodes[0].outputs[0]
    assert kg.Input(tensor=tensor, name="again").shape == (None, 3)
    for flag in ("sparse", "ragged"):
        with pytest.raises(ValueError, match=f"`{flag}=True` is not supported"):
            kg.Input((3,), **{flag: True})
    with pytest.raises(ValueError, match="must be a KerasTensor"):
        kg.Input(tensor=np.ones((2, 3)))
    ints = kg.layers.InputLayer(batch_shape=(None, 3), dtype="int32", name="ints")
    wrapped = kg.Input(tensor=ints._inbound_nodes[0].outputs[0], name="wrapped")
    assert wrapped.dtype == "int32"  # the tensor's, as Keras
    for lib in (kg, keras):
        tensor = lib.layers.InputLayer(batch_shape=(None, 3), dtype="int32")._inbound_nodes[
            0].outputs[0]
        for argument, value in (("shape", (7,)), ("dtype", "float32"), ("batch_size", 4)):
            with pytest.raises(ValueError, match=f"incompatible `{argument}` argument"):
                lib.Input(tensor=tensor, **{argument: value})


def test_input_spec_optional_lets_none_through_as_keras():
    spec = kg.layers.InputSpec(ndim=2, optional=True)
    assert spec.get_config()["optional"] is True
    assert keras.layers.InputSpec(ndim=2, optional=True).get_config()["optional"] is True

    class Pair(kg.layers.Layer):
        def __init__(self):
            super().__init__(name="pair")
            self.input_spec = [kg.layers.InputSpec(ndim=2),
                               kg.layers.InputSpec(ndim=2, optional=True)]

        def call(self, inputs):
            x, extra = inputs
            return x if extra is None else x + extra

    x = np.ones((2, 3), "float32")
    np.testing.assert_array_equal(np.asarray(Pair()([x, None])), x)
    np.testing.assert_array_equal(np.asarray(Pair()([x, x])), 2 * x)
    with pytest.raises(ValueError, match="expected ndim=2"):
        Pair()([x, np.ones(3, "float32")])


def test_jax_layer_keeps_kerass_serialization_platforms_in_its_config():
    def call_fn(inputs):
        return inputs * 2

    ours = kg.layers.JaxLayer(call_fn, native_serialization_platforms=["cpu"], name="j")
    theirs = keras.layers.JaxLayer(call_fn, native_serialization_platforms=["cpu"], name="j")
    assert (ours.get_config()["native_serialization_platforms"]
            == theirs.get_config()["native_serialization_platforms"] == ["cpu"])


def test_a_gptq_einsum_argument_is_kept_in_the_config_as_keras():
    ours = kg.layers.EinsumDense("ab,bc->ac", 4, gptq_unpacked_column_size=4)
    theirs = keras.layers.EinsumDense("ab,bc->ac", 4, gptq_unpacked_column_size=4)
    assert (ours.get_config()["gptq_unpacked_column_size"]
            == theirs.get_config()["gptq_unpacked_column_size"] == 4)