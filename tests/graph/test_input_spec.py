"""InputSpec: Keras's messages, checked on eager and symbolic calls alike."""

import jax.numpy as jnp
import numpy as np
import pytest

import kgraph as kg
from kgraph import layers

SEED_003_MESSAGE = ('Input 0 of layer "dense" is incompatible with the layer: expected axis -1 '
                    "of input shape to have value 5, but received input with shape (10, 4)")


class Spec(kg.Layer):
    """An identity layer with a given input_spec."""

    def __init__(self, spec, **kwargs):
        super().__init__(**kwargs)
        self.input_spec = spec

    def call(self, inputs):
        return inputs


def test_seed_003_message_eager():
    layer = layers.Dense(3)
    layer(np.random.rand(10, 5))
    with pytest.raises(ValueError) as info:
        layer(np.random.rand(10, 4))
    assert str(info.value) == SEED_003_MESSAGE


def test_seed_003_message_symbolic():
    layer = layers.Dense(3)
    layer(kg.Input(shape=(5,), batch_size=10))
    with pytest.raises(ValueError) as info:
        layer(kg.Input(shape=(4,), batch_size=10))
    assert str(info.value) == SEED_003_MESSAGE
    with pytest.raises(ValueError, match=r"received input with shape \(None, 4\)$"):
        layer(kg.Input(shape=(4,)))


def _both_ways(layer, shape, dtype="float32"):
    """Call ``layer`` eagerly on zeros of ``shape``, then symbolically; yield each error."""
    errors = []
    for make in (lambda: jnp.zeros(shape, dtype),
                 lambda: kg.Input(shape=shape[1:], batch_size=shape[0], dtype=dtype)):
        with pytest.raises(ValueError) as info:
            layer(make())
        errors.append(str(info.value))
    return errors


@pytest.mark.parametrize("spec, shape, dtype, message", [
    (kg.InputSpec(ndim=3), (2, 4), "float32",
     'Input 0 of layer "spec" is incompatible with the layer: expected ndim=3, found ndim=2. '
     "Full shape received: (2, 4)"),
    (kg.InputSpec(min_ndim=3), (2, 4), "float32",
     'Input 0 of layer "spec" is incompatible with the layer: expected min_ndim=3, found '
     "ndim=2. Full shape received: (2, 4)"),
    (kg.InputSpec(max_ndim=2), (2, 4, 1), "float32",
     'Input 0 of layer "spec" is incompatible with the layer: expected max_ndim=2, found '
     "ndim=3. Full shape received: (2, 4, 1)"),
    (kg.InputSpec(dtype="int32"), (2, 4), "float32",
     'Input 0 of layer "spec" is incompatible with the layer: expected dtype=int32, found '
     "dtype=float32"),
    (kg.InputSpec(shape=(None, 5)), (2, 4), "float32",
     'Input 0 of layer "spec" is incompatible with the layer: expected shape=(None, 5), found '
     "shape=(2, 4)"),
    (kg.InputSpec(axes={2: 4}), (2, 4), "float32",
     'Input 0 of layer "spec" is incompatible with the layer: expected axis 2 of input shape '
     "to exist, but received input with shape (2, 4)"),
], ids=["ndim", "min_ndim", "max_ndim", "dtype", "shape", "missing_axis"])
def test_spec_violations(spec, shape, dtype, message):
    assert _both_ways(Spec(spec), shape, dtype) == [message, message]


@pytest.mark.parametrize("spec, shape, dtype", [
    (kg.InputSpec(ndim=2), (2, 4), "float32"),
    (kg.InputSpec(min_ndim=2, max_ndim=3), (2, 4, 1), "float32"),
    (kg.InputSpec(dtype="int32"), (2, 4), "int32"),
    (kg.InputSpec(shape=(None, 4)), (2, 4), "float32"),
    (kg.InputSpec(min_ndim=2, axes={-1: 4, 1: 4}), (2, 4), "float32"),
])
def test_spec_satisfied(spec, shape, dtype):
    layer = Spec(spec)
    assert layer(jnp.zeros(shape, dtype)).shape == shape
    y = layer(kg.Input(shape=shape[1:], dtype=dtype))
    assert y.shape == (None,) + shape[1:]


def test_number_of_inputs():
    layer = Spec([kg.InputSpec(ndim=2), kg.InputSpec(ndim=2)], name="pair")
    a, b = kg.Input(shape=(3,)), kg.Input(shape=(3,))
    assert len(layer([a, b])) == 2
    with pytest.raises(ValueError, match=r'Layer "pair" expects 2 input\(s\), but it received '
                                         r"1 input tensors"):
        layer([a])
    with pytest.raises(ValueError, match=r"expects 2 input\(s\), but it received 3"):
        layer([jnp.zeros((1, 3))] * 3)


def test_second_input_index_in_message():
    layer = Spec([None, kg.InputSpec(ndim=3)], name="pair")  # None: anything goes
    with pytest.raises(ValueError, match='^Input 1 of layer "pair" is incompatible'):
        layer([kg.Input(shape=(3,)), kg.Input(shape=(3,))])


def test_dense_requires_rank_two():
    with pytest.raises(ValueError, match=r'layer "dense" is incompatible with the layer: expected '
                                         r"min_ndim=2, found ndim=1. Full shape received: \(3,\)"):
        layers.Dense(2)(jnp.ones(3))


def test_model_checks_its_input_shapes():
    x = kg.Input(shape=(3,))
    model = kg.Model(x, layers.Dense(2)(x), name="net")
    with pytest.raises(ValueError, match=r'Input 0 of layer "net" is incompatible with the layer: '
                                         r"expected shape=\(None, 3\), found shape=\(2, 4\)"):
        model(jnp.ones((2, 4)))
    with pytest.raises(ValueError, match='layer "net" is incompatible'):
        model(kg.Input(shape=(4,)))


def test_another_batch_size_than_the_inputs_is_named():
    spec = kg.InputSpec(shape=(4, 3))
    with pytest.raises(ValueError, match=r"expected shape=\(4, 3\), found shape=\(1, 3\) "
                                         r"\(another batch size\)"):
        kg.base.input_spec.assert_input_compatibility(spec, [jnp.ones((1, 3))], "net")


def test_model_with_a_fixed_batch_input_takes_other_batch_sizes_as_keras():
    """Keras's Functional checks its inputs' shapes but not their batch size."""
    x = kg.Input(shape=(3,), batch_size=4)
    model = kg.Model(x, layers.Dense(2)(x), name="net")
    assert model(jnp.ones((1, 3))).shape == (1, 2)
    assert model.input_spec[0].shape == (None, 3)


def test_invalid_spec_construction():
    with pytest.raises(ValueError, match="greater than the rank"):
        kg.InputSpec(ndim=2, axes={2: 3})
    spec = kg.InputSpec(shape=(None, 3), dtype="float32")
    assert spec.ndim == 2
    assert spec.get_config()["shape"] == (None, 3)
    assert "ndim=2" in repr(spec)


def test_fixed_axis_spec_accepts_an_unknown_size_during_shape_inference():
    class FixedWidth(kg.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.input_spec = kg.InputSpec(axes={1: 10})

        def call(self, inputs):
            return inputs * 2.0

    x = kg.Input(shape=(None, 3))  # axis 1 unknown: the spec can't reject it yet
    y = FixedWidth(name="fixed")(x)
    assert y.shape == (None, None, 3)
    with pytest.raises(ValueError, match='layer "fixed".*axis 1 of input shape to have value 10'):
        FixedWidth(name="fixed")(np.ones((2, 7, 3), np.float32))
