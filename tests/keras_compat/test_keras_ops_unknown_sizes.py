"""Keras as the oracle for ops on KerasTensors of unknown sizes (``einsum`` with an
ellipsis, ``broadcast_to``, ``size``), Keras's shape errors of ``KerasTensor``,
``convert_to_tensor``'s flags, ops on other libraries' arrays, ``Node``'s input nodes, and
an ``Operation`` with a quantization mode."""

import numpy as np
import pytest

keras = pytest.importorskip("keras")

from keras.src.ops.node import Node as KerasNode  # noqa: E402

import kgraph as kg  # noqa: E402
from kgraph import ops  # noqa: E402
from kgraph.graph.node import Node  # noqa: E402


def _specs(out):
    if isinstance(out, (list, tuple)):
        return [_specs(o) for o in out]
    return (tuple(out.shape), str(out.dtype))


SYMBOLIC = {
    "einsum_ellipsis_out": lambda m, T: m.ops.einsum("...,...j->...j", T((None, 3, 4)),
                                                     T((None, 4, 5))),
    "einsum_ellipsis_labels": lambda m, T: m.ops.einsum("i...,...j->i...j", T((None, 3, 4)),
                                                        T((None, 4, 5))),
    "einsum_implicit": lambda m, T: m.ops.einsum("i...,...j", T((None, 3, 4)),
                                                 T((None, 4, 5))),
    "einsum_three": lambda m, T: m.ops.einsum("i...,...j,...k", T((None, 3, 4)),
                                              T((None, 4, 5)), T((1, 1, 1, 9))),
    "einsum_trailing_ellipsis": lambda m, T: m.ops.einsum("mij,ijk,...", T((None, 3, 4)),
                                                          T((None, 4, 5)), T((1, 1, 1, 9))),
    "einsum_trace": lambda m, T: m.ops.einsum("ii", T((None, 3))),
    "einsum_scalar": lambda m, T: m.ops.einsum(",ij", 5, T((None, 3))),
    "broadcast_to_unknown": lambda m, T: m.ops.broadcast_to(T((None, 3)), (2, 3, 3)),
    "size_unknown": lambda m, T: m.ops.size(T((None, 3))),
    "convert_to_tensor_dtype": lambda m, T: m.ops.convert_to_tensor(T((2, None)), "int32"),
    "convert_to_tensor_sparse": lambda m, T: m.ops.convert_to_tensor(T((2, 3)), sparse=True),
}


@pytest.mark.parametrize("case", sorted(SYMBOLIC))
def test_symbolic_output_specs_match_keras(case):
    theirs = _specs(SYMBOLIC[case](keras, keras.KerasTensor))
    assert _specs(SYMBOLIC[case](kg, kg.KerasTensor)) == theirs


@pytest.mark.parametrize("build", [
    lambda m, T: m.ops.einsum("ijk,jk->ik", T((None, 3)), T((3, 4))),  # a rank mismatch
    lambda m, T: m.ops.broadcast_to(T((None, 4)), (2, 3, 3)),
    lambda m, T: m.KerasTensor(3),
    lambda m, T: m.KerasTensor((2, -1)),
    lambda m, T: m.KerasTensor((2, 1.5)),
])
def test_value_errors_as_keras(build):
    for library in (keras, kg):
        with pytest.raises(ValueError):
            build(library, library.KerasTensor)


def test_broadcast_to_fewer_axes_is_refused():
    with pytest.raises(ValueError, match="Cannot broadcast"):  # JAX could never run it
        ops.broadcast_to(kg.KerasTensor((None, 3)), (3,))


def test_sparse_keras_tensors_are_refused():
    with pytest.raises(ValueError, match="sparse=True is not supported"):
        kg.KerasTensor((2, 3), sparse=True)
    assert not kg.KerasTensor((2, 3), "float32", False).sparse  # Keras's positional order


def test_size_of_unknown_shape_runs_in_a_model():
    x = kg.Input((3,))
    model = kg.Model(x, x * ops.cast(ops.size(x), "float32"))
    out = model.predict(np.ones((2, 3), "float32"), verbose=0)
    np.testing.assert_allclose(out, np.full((2, 3), 6.0))
    assert ops.size(kg.KerasTensor((2, 3))) == 6 == keras.ops.size(np.ones((2, 3)))


def test_map_coordinates_takes_tensorflow_tensors():
    tf = pytest.importorskip("tensorflow")
    image = tf.ones((2, 2), dtype=tf.uint8)
    grid = tf.stack(tf.meshgrid(tf.range(-1, 3, dtype=tf.float32),
                                tf.range(-1, 3, dtype=tf.float32), indexing="ij"), axis=0)
    theirs = keras.ops.image.map_coordinates(image, grid, order=0, fill_mode="constant")
    ours = ops.image.map_coordinates(image, grid, order=0, fill_mode="constant")
    np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))


def _node_facts(node_class, tensor_class, layer_class):
    """Keras's node_test: a node on no tensor is an input node; a tensor made by no layer
    call has no parent node."""
    a, b, x = tensor_class((2, 3)), tensor_class((2, 3)), tensor_class((2, 3))
    first, second = layer_class(), layer_class()
    node1 = node_class(first, outputs=a, call_args=(), call_kwargs={})
    node2 = node_class(second, outputs=b, call_args=(a,), call_kwargs={"x": x})
    return (node1.is_input, node2.is_input, len(node2.parent_nodes),
            node2.parent_nodes[0] is node1, first._outbound_nodes[0] is node2)


def test_nodes_as_keras():
    theirs = _node_facts(KerasNode, keras.KerasTensor, keras.layers.Layer)
    assert _node_facts(Node, kg.KerasTensor, kg.layers.Layer) == theirs


def _quantized_result(library):
    class Shifted(library.Operation):
        def call(self, x):
            return x

        def quantized_call(self, x):
            return x + 1

        def compute_output_spec(self, x):
            return library.KerasTensor(x.shape, x.dtype)

    op = Shifted(name="shifted")
    plain = np.asarray(op(np.ones((2, 3), "float32")))
    op.quantization_mode = "int8"
    return plain, np.asarray(op(np.ones((2, 3), "float32")))


def test_operation_with_quantization_mode_runs_quantized_call():
    theirs = _quantized_result(keras)
    ours = _quantized_result(kg)
    for our, their in zip(ours, theirs):
        np.testing.assert_array_equal(our, their)
