"""Keras's conformance test of a layer class (``TestCase.run_layer_test``) on kgraph.

Given the constructor's arguments and an input (shapes or arrays), a layer class must:
round-trip its config and serialization; build from shapes with the expected numbers of
trainable and non-trainable weights, non-trainable variables and seed generators; called on
KerasTensors, give outputs of the expected shapes and dtypes (and mask shape); called on
arrays, give the expected values and number of losses; train for one step inside a model;
and under ``mixed_float16`` compute in its policy's dtype with float32 weights.

>>> from kgraph import layers
>>> from kgraph.src.testing.test_case import TestCase
>>> run_layer_test(TestCase(), layers.Dense, {"units": 3}, input_shape=(2, 4),
...                expected_output_shape=(2, 3), expected_num_trainable_weights=2)
"""

from __future__ import annotations

from kgraph import ops, random, tree
from kgraph.backend import is_float_dtype, standardize_dtype
from kgraph.base import tracking
from kgraph.graph.keras_tensor import KerasTensor
from kgraph.losses import Loss
from kgraph.models.model import Model

__all__ = ["create_eager_tensors", "create_keras_tensors", "get_seed_generators",
           "is_shape_tuple", "map_shape_dtype_structure", "run_layer_test"]

_EAGER_DTYPES = {"float16", "float32", "float64", "int8", "uint8", "int16", "uint16", "int32",
                 "uint32", "int64", "uint64"}


def is_shape_tuple(x) -> bool:
    return isinstance(x, (list, tuple)) and all(isinstance(e, (int, type(None))) for e in x)


def map_shape_dtype_structure(fn, shape, dtype):
    """``fn(shape, dtype)`` over a structure of shapes (a shape is a list or tuple of ints
    and ``None``) and the matching structure of dtypes."""
    if is_shape_tuple(shape):
        return fn(tuple(shape), dtype)
    if isinstance(shape, (list, tuple)):
        return type(shape)(map_shape_dtype_structure(fn, s, d) for s, d in zip(shape, dtype))
    if isinstance(shape, dict):
        return {k: map_shape_dtype_structure(fn, v, dtype[k]) for k, v in shape.items()}
    raise ValueError(f"Cannot map function to unknown objects {shape} and {dtype}")


def _by_argument(make, input_shape, dtype):
    """``make`` over shapes; a dict of ``<argument>_shape`` gives a dict by argument."""
    if isinstance(input_shape, dict):
        return {k.removesuffix("_shape"): make(v, dtype[k]) for k, v in input_shape.items()}
    return map_shape_dtype_structure(make, input_shape, dtype)


def create_keras_tensors(input_shape, dtype, sparse=False, ragged=False):
    """KerasTensors of ``input_shape`` and ``dtype`` (structures alike). ``sparse``: dense
    ones, kgraph's tensors being dense (a case expecting a sparse output fails at that
    check, ``assertSparse``)."""
    _check_dense(False, ragged)
    return _by_argument(lambda shape, dt: KerasTensor(shape, dtype=dt), input_shape, dtype)


def create_eager_tensors(input_shape, dtype, sparse=False, ragged=False):
    """Arrays of ``input_shape`` and ``dtype``: uniform in [0, 3), cast."""
    if set(tree.flatten(dtype)) - _EAGER_DTYPES:
        raise ValueError(f"dtype must be a standard float or int dtype. Received: dtype={dtype}")
    _check_dense(sparse, ragged)
    return _by_argument(
        lambda shape, dt: ops.cast(random.uniform(shape, dtype="float32") * 3, dtype=dt),
        input_shape, dtype)


def _check_dense(sparse, ragged):
    if sparse or ragged:
        kind = "Sparse" if sparse else "Ragged"
        raise ValueError(f"{kind} tensors are unsupported: kgraph's arrays are dense.")


def get_seed_generators(layer) -> list:
    """The ``SeedGenerator``s the layer and its sub-layers hold, each once."""
    found, seen = [], set()
    for sublayer in layer._flatten_layers(True, True):
        for value in sublayer._attribute_values():
            for generator in tracking.collect(value, random.SeedGenerator):
                if id(generator) not in seen:
                    seen.add(id(generator))
                    found.append(generator)
    return found


class _SumLoss(Loss):
    """The sum of the predictions: one op, whatever the output."""

    def __call__(self, y_true, y_pred, sample_weight=None):
        return ops.sum(y_pred)


class _Wrapper(Model):
    def __init__(self, layer):
        super().__init__()
        self.layer = layer

    def call(self, x, training=False):
        return self.layer(x, training=training)


def _call(layer, inputs, call_kwargs):
    if isinstance(inputs, dict):
        return layer(**inputs, **call_kwargs)
    return layer(inputs, **call_kwargs)


def _check_arguments(input_shape, input_data, expected_output_shape, expected_output,
                     supports_masking, expected_mask_shape):
    if input_shape is not None and input_data is not None:
        raise ValueError("input_shape and input_data cannot be passed at the same time.")
    if expected_output_shape is not None and expected_output is not None:
        raise ValueError("expected_output_shape and expected_output cannot be passed at the "
                         "same time.")
    if expected_output is not None and input_data is None:
        raise ValueError("In order to use expected_output, input_data must be provided.")
    if expected_mask_shape is not None and supports_masking is not True:
        raise ValueError("In order to use expected_mask_shape, supports_masking must be True.")


def _input_dtypes(case, input_shape, input_dtype):
    """The dtypes matching ``input_shape`` (float32 throughout by default)."""
    if input_dtype is None:
        return tree.map_shape_structure(lambda _: "float32", input_shape)
    if isinstance(input_shape, tuple) and is_shape_tuple(input_shape[0]):
        case.assertIsInstance(input_dtype, tuple)
    elif isinstance(input_shape, (dict, list)):
        case.assertIsInstance(input_dtype, type(input_shape))
    elif not isinstance(input_shape, tuple):
        raise ValueError("The type of input_shape is not supported")
    if not is_shape_tuple(input_shape):
        keys = set(input_shape) if isinstance(input_shape, dict) else len(input_shape)
        other = set(input_dtype) if isinstance(input_dtype, dict) else len(input_dtype)
        case.assertEqual(keys, other,
                         msg="The number of input shapes and dtypes does not match")
    return input_dtype


def run_layer_test(case, layer_cls, init_kwargs, input_shape=None, input_dtype=None,
                   input_sparse=False, input_ragged=False, input_data=None, call_kwargs=None,
                   expected_output_shape=None, expected_output_dtype=None,
                   expected_output_sparse=False, expected_output_ragged=False,
                   expected_output=None, expected_num_trainable_weights=None,
                   expected_num_non_trainable_weights=None,
                   expected_num_non_trainable_variables=None,
                   expected_num_seed_generators=None, expected_num_losses=None,
                   supports_masking=None, expected_mask_shape=None, custom_objects=None,
                   run_training_check=True, run_mixed_precision_check=True,
                   assert_built_after_instantiation=False, tpu_atol=None, tpu_rtol=None):
    """Keras's ``run_layer_test``, with its arguments; ``case`` is the ``TestCase``."""
    _check_arguments(input_shape, input_data, expected_output_shape, expected_output,
                     supports_masking, expected_mask_shape)
    init_kwargs, call_kwargs = init_kwargs or {}, call_kwargs or {}
    has_input = input_data is not None or input_shape is not None
    if input_shape is not None:
        input_dtype = _input_dtypes(case, input_shape, input_dtype)

    expected = {"trainable_weights": expected_num_trainable_weights,
                "non_trainable_weights": expected_num_non_trainable_weights,
                "non_trainable_variables": expected_num_non_trainable_variables,
                "seed_generators": expected_num_seed_generators}
    if has_input:  # counts not given are those of the layer called once
        if input_data is None:
            input_data = create_eager_tensors(input_shape, input_dtype, input_sparse,
                                              input_ragged)
        layer = layer_cls(**init_kwargs)
        _call(layer, input_data, call_kwargs)
        for what, count in _counts(layer).items():
            if expected[what] is None:
                expected[what] = count

    layer = layer_cls(**init_kwargs)
    case.run_class_serialization_test(layer, custom_objects)
    if supports_masking is not None:
        case.assertEqual(layer.supports_masking, supports_masking,
                         msg="Unexpected supports_masking value")
    if not has_input:
        return

    def check_built(layer):
        case.assertTrue(layer.built)
        for what, count in _counts(layer).items():
            if expected[what] is not None:
                case.assertEqual(count, expected[what], msg=f"Unexpected number of {what}")

    def check_outputs(layer, outputs, eager):
        _check_output_shapes(case, expected_output_shape, outputs)
        if expected_output_dtype is not None:
            found = tree.map_structure(lambda x: standardize_dtype(x.dtype), outputs)
            case.assertTrue(
                all(tree.flatten(tree.map_structure(lambda e, f: e == f, expected_output_dtype,
                                                    found))),
                msg=f"Expected output dtypes {expected_output_dtype} but received {found}")
        for x in tree.flatten(outputs):
            if expected_output_sparse:
                case.assertSparse(x)
            if expected_output_ragged:
                case.assertRagged(x)
        if eager and expected_output is not None:
            case.assertEqual(type(expected_output), type(outputs))
            for want, got in zip(tree.flatten(expected_output), tree.flatten(outputs)):
                case.assertAllClose(want, got, msg="Unexpected output value", tpu_atol=tpu_atol,
                                    tpu_rtol=tpu_rtol)
        if eager and expected_num_losses is not None:
            case.assertLen(layer.losses, expected_num_losses)

    # built from shapes
    build_shape = input_shape if input_shape is not None else tree.map_structure(
        ops.shape, input_data)
    layer = layer_cls(**init_kwargs)
    if isinstance(build_shape, dict):
        layer.build(**build_shape)
    else:
        layer.build(build_shape)
    check_built(layer)

    # called on KerasTensors
    if input_shape is None:
        symbolic = tree.map_structure(
            lambda x: create_keras_tensors(ops.shape(x), x.dtype, input_sparse, input_ragged),
            input_data)
    else:
        symbolic = create_keras_tensors(input_shape, input_dtype, input_sparse, input_ragged)
    layer = layer_cls(**init_kwargs)
    outputs = _call(layer, symbolic, call_kwargs)
    check_built(layer)
    check_outputs(layer, outputs, eager=False)
    if expected_mask_shape is not None:
        case.assertEqual(expected_mask_shape, layer.compute_mask(symbolic).shape)

    if assert_built_after_instantiation:
        _check_built_when_made(case, layer_cls, init_kwargs)

    # called on arrays, then trained one step
    layer = layer_cls(**init_kwargs)
    output_data = _call(layer, input_data, call_kwargs)
    check_outputs(layer, output_data, eager=True)
    if run_training_check:
        model = _Wrapper(layer)
        model.compile(optimizer="sgd", loss=_SumLoss(), jit_compile="auto")

        def batches():
            while True:
                yield input_data, output_data
        model.fit(batches(), steps_per_epoch=1, verbose=0)

    if run_mixed_precision_check:
        _check_mixed_precision(case, layer_cls, init_kwargs, input_data, symbolic, call_kwargs)


def _counts(layer) -> dict:
    return {"trainable_weights": len(layer.trainable_weights),
            "non_trainable_weights": len(layer.non_trainable_weights),
            "non_trainable_variables": len(layer.non_trainable_variables),
            "seed_generators": len(get_seed_generators(layer))}


def _check_output_shapes(case, expected_output_shape, outputs):
    if expected_output_shape is None:
        return

    def matches(expected, x):
        return len(x.shape) == len(expected) and all(
            e is None or e == d for e, d in zip(expected, x.shape))
    found = tree.map_structure_up_to(outputs, matches, expected_output_shape, outputs)
    case.assertTrue(all(tree.flatten(found)),
                    msg=f"Expected output shapes {expected_output_shape} but received "
                        f"{tree.map_structure(lambda x: x.shape, outputs)}")


def _check_built_when_made(case, layer_cls, init_kwargs):
    """A stateless layer is built when made, unless a subclass overrides ``build``."""
    layer = layer_cls(**init_kwargs)
    case.assertTrue(layer.built, msg=f"{type(layer)} is stateless, so it should be built "
                                     "after instantiation.")

    class ModifiedBuildLayer(layer_cls):
        def build(self, *args, **kwargs):
            pass

    layer = ModifiedBuildLayer(**init_kwargs)
    case.assertFalse(layer.built, msg=f"The `build` of {type(layer)} is overriden, so it "
                                      "should not be built after instantiation.")


def _check_mixed_precision(case, layer_cls, init_kwargs, input_data, symbolic, call_kwargs):
    """Under ``mixed_float16``: outputs of the dtypes ``compute_output_spec`` says, and
    float32 weights."""
    layer = layer_cls(**{**init_kwargs, "dtype": "mixed_float16"})
    specs = tree.map_structure(
        lambda s: KerasTensor(s.shape, dtype=layer.compute_dtype
                              if layer.autocast and is_float_dtype(s.dtype) else s.dtype),
        symbolic)
    outputs = _call(layer, input_data, call_kwargs)
    if isinstance(input_data, dict):
        output_specs = layer.compute_output_spec(**specs)
    else:
        output_specs = layer.compute_output_spec(specs)
    for tensor, spec in zip(tree.flatten(outputs), tree.flatten(output_specs)):
        dtype = standardize_dtype(tensor.dtype)
        case.assertEqual(dtype, standardize_dtype(spec.dtype),
                         f"expected output dtype {spec.dtype}, got {dtype}")
    for weight in layer.weights:
        if is_float_dtype(weight.dtype):
            case.assertEqual(standardize_dtype(weight.dtype), "float32")

