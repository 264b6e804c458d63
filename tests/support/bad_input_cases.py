"""The catalog of mistakes users make (run by ``tests/keras_compat/test_bad_input_catalog.py``),
each with the exception it must raise and where.

Each case is data: a function making one mistake, the exception type, the stage at which it
must be caught and substrings the message must contain (the layer or argument named, what
was expected, what was received). A case calls ``at(stage, fn, *args)`` for the step that
must fail: everything before it (the setup) must succeed, and the error must come from that
step. Stages: "build" (constructing layers or building the graph), "call" (an eager call on
arrays), "compile" (``model.compile`` / ``compiler.compile``), "apply" (``program.apply``),
"fit" (``fit`` / ``evaluate`` / ``predict``, before any training step).
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

import compiler
import kgraph as kg
from kgraph import layers as L
from kgraph import ops

STAGES = ("build", "call", "compile", "apply", "fit")


class Case(NamedTuple):
    name: str
    fn: Callable
    error: type
    stage: str
    contains: tuple


class _At:
    """Records the stage entered, then runs the step that must fail."""

    def __init__(self):
        self.stage = None

    def __call__(self, stage, fn, *args, **kwargs):
        assert stage in STAGES, stage
        self.stage = stage
        return fn(*args, **kwargs)


# ---------------------------------------------------------------------------- helpers
def sym(*shape, dtype="float32"):
    return kg.Input(shape=shape, dtype=dtype)


def arr(*shape, dtype="float32"):
    return np.ones(shape, dtype)


def built(layer, *shape, dtype="float32"):
    """``layer`` after an eager call on ones of ``shape``."""
    layer(arr(*shape, dtype=dtype))
    return layer


def dense_program(units=3, features=4):
    x = kg.Input(shape=(features,), name="x")
    model = kg.Model(x, L.Dense(units, name="out")(x), name="m")
    program = compiler.compile(model)
    params, state = program.init(jax.random.PRNGKey(0))
    return program, params, state


def with_leaf(tree, path, value):
    tree = jax.tree_util.tree_map(lambda v: v, tree)
    node = tree
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return tree


def classifier(loss="sparse_categorical_crossentropy", classes=3, features=4, **compile_kw):
    x = kg.Input(shape=(features,), name="x")
    model = kg.Model(x, L.Dense(classes, name="out")(x), name="clf")
    if loss is not None:
        model.compile(optimizer="sgd", loss=loss, **compile_kw)
    return model


X = np.ones((8, 4), np.float32)
Y = np.array([0, 1, 2, 0, 1, 2, 0, 1])


def bn_program():
    x = kg.Input(shape=(4,), name="x")
    program = compiler.compile(kg.Model(x, L.BatchNormalization(name="bn")(x), name="m"))
    params, state = program.init(jax.random.PRNGKey(0))
    return program, params, state


def embedding_program():
    ids = kg.Input(shape=(3,), dtype="int32", name="ids")
    program = compiler.compile(kg.Model(ids, L.Embedding(5, 2, name="emb")(ids), name="m"))
    params, state = program.init(jax.random.PRNGKey(0))
    return program, params, state


def checked_embedding(ids):
    program, params, state = embedding_program()
    error, _ = jax.jit(program.checked_apply)(params, state, jnp.asarray(ids))
    error.throw()


def two_inputs():
    a, b = kg.Input(shape=(2,), name="a"), kg.Input(shape=(3,), name="b")
    return kg.Model({"a": a, "b": b}, L.Concatenate(name="cat")([a, b]), name="two")


C = Case
CASES = [
    # ------------------------------------------------------------------ Input
    C("input_negative_dim", lambda at: at("build", kg.Input, shape=(-1,)), ValueError, "build",
      ("shape", "non-negative", "-1")),
    C("input_float_dim", lambda at: at("build", kg.Input, shape=(2.5,)), ValueError, "build",
      ("shape", "non-negative int", "2.5")),
    C("input_string_dim", lambda at: at("build", kg.Input, shape=("a",)), ValueError, "build",
      ("shape", "'a'")),
    C("input_negative_batch_shape", lambda at: at("build", kg.Input, batch_shape=(None, -3)),
      ValueError, "build", ("batch_shape", "-3")),
    C("input_float_batch_shape", lambda at: at("build", kg.Input, batch_shape=(4, 1.0)),
      ValueError, "build", ("batch_shape", "1.0")),
    C("input_negative_batch_size", lambda at: at("build", kg.Input, shape=(3,), batch_size=-2),
      ValueError, "build", ("batch_size", "-2")),
    C("input_no_shape", lambda at: at("build", kg.Input), ValueError, "build", ("shape",)),
    C("input_huge", lambda at: at("build", kg.Input, shape=(10 ** 12,), name="huge"),
      ValueError, "build", ("huge", "(1000000000000,)", "bytes", "physical memory")),
    # ------------------------------------------------------------- huge weights
    C("dense_huge_kernel", lambda at: at("build", L.Dense(10 ** 7, name="big"),
                                         sym(10 ** 7)),
      ValueError, "build", ("big", "kernel", "(10000000, 10000000)", "bytes")),
    C("embedding_huge", lambda at: at("build", L.Embedding(10 ** 9, 10 ** 4, name="emb"),
                                      sym(3, dtype="int32")),
      ValueError, "build", ("emb", "embeddings", "bytes")),
    C("conv_huge_kernel", lambda at: at("build", L.Conv2D(10 ** 6, 100, name="c"),
                                        sym(100, 100, 10 ** 4)),
      ValueError, "build", ('"c"', "kernel", "bytes")),
    # -------------------------------------------------------------- core layers
    C("dense_negative_units", lambda at: at("build", L.Dense, -1), ValueError, "build",
      ("units", "-1")),
    C("dense_zero_units", lambda at: at("build", L.Dense, 0), ValueError, "build",
      ("units", "0")),
    C("dense_string_units", lambda at: at("build", L.Dense, "3"), ValueError, "build",
      ("units", "'3'")),
    C("dense_unknown_activation", lambda at: at("build", L.Dense, 3, activation="relux"),
      ValueError, "build", ("relux",)),
    C("dense_unknown_initializer", lambda at: at("build", L.Dense, 3,
                                                 kernel_initializer="glorot_unifrom"),
      ValueError, "build", ("glorot_unifrom",)),
    C("dense_wrong_features_symbolic",
      lambda at: at("build", built(L.Dense(3, name="d"), 2, 4), sym(5)),
      ValueError, "build", ('"d"', "axis -1", "value 4", "(None, 5)")),
    C("dense_wrong_features_eager",
      lambda at: at("call", built(L.Dense(3, name="d"), 2, 4), arr(2, 5)),
      ValueError, "call", ('"d"', "value 4", "(2, 5)")),
    C("dense_scalar_input", lambda at: at("call", L.Dense(3, name="d"), np.float32(1.0)),
      ValueError, "call", ('"d"', "min_ndim=2", "ndim=0")),
    C("dense_string_input", lambda at: at("call", L.Dense(3, name="d"), "hello"), TypeError,
      "call", ('"d"', "numeric", "str")),
    C("dense_string_array_input", lambda at: at("call", L.Dense(3, name="d"),
                                                np.array([["a", "b"]])),
      TypeError, "call", ('"d"', "numeric", "<U1")),
    C("dense_object_input", lambda at: at("call", L.Dense(3, name="d"), object()), TypeError,
      "call", ('"d"', "numeric", "object")),
    C("dropout_rate_above_one", lambda at: at("build", L.Dropout, 1.5), ValueError, "build",
      ("rate", "1.5")),
    C("dropout_negative_rate", lambda at: at("build", L.Dropout, -0.1), ValueError, "build",
      ("rate", "-0.1")),
    C("activation_unknown", lambda at: at("build", L.Activation, "sigmoidd"), ValueError,
      "build", ("sigmoidd",)),
    C("embedding_zero_input_dim", lambda at: at("build", L.Embedding, 0, 4), ValueError,
      "build", ("input_dim", "0")),
    C("embedding_negative_output_dim", lambda at: at("build", L.Embedding, 10, -4),
      ValueError, "build", ("output_dim", "-4")),
    C("embedding_id_too_large_eager",
      lambda at: at("call", L.Embedding(5, 2, name="emb"), np.array([[1, 7]])),
      ValueError, "call", ('"emb"', "[0, 5)", "7")),
    C("embedding_negative_id_eager",
      lambda at: at("call", L.Embedding(5, 2, name="emb"), np.array([[-1, 2]])),
      ValueError, "call", ('"emb"', "[0, 5)", "-1")),
    C("embedding_id_out_of_range_apply",
      lambda at: (lambda p: at("apply", p[0].apply, p[1], p[2], jnp.array([[0, 5, 1]])))(
          embedding_program()),
      ValueError, "apply", ('"emb"', "[0, 5)", "5")),
    C("embedding_id_out_of_range_checked_jit",
      lambda at: at("apply", checked_embedding, [[0, 9, 1]]),
      Exception, "apply", ('"emb"', "[0, 5)", "9")),
    C("embedding_negative_id_checked_jit",
      lambda at: at("apply", checked_embedding, [[0, -3, 1]]),
      Exception, "apply", ('"emb"', "[0, 5)", "-3")),
    C("einsum_dense_bad_equation", lambda at: at("build", L.EinsumDense, "ab,bc", 3),
      ValueError, "build", ("ab,bc",)),
    C("lambda_not_callable", lambda at: at("build", L.Lambda, 3), TypeError, "build",
      ("callable",)),
    # ----------------------------------------------------------------- reshaping
    C("reshape_two_unknowns", lambda at: at("build", L.Reshape, (-1, -1)), ValueError,
      "build", ("Reshape", "at most one unknown dimension (-1)", "(-1, -1)")),
    # A 0 size is Keras's (an empty target); it fails only on an input that is not empty.
    C("reshape_zero", lambda at: at("build", L.Reshape((0, 4), name="r"), sym(5)), ValueError,
      "build", ('"r"', "(None, 5)", "(0, 4)", "total size must be unchanged")),
    C("reshape_negative", lambda at: at("build", L.Reshape, (-2, 4), name="r"), ValueError,
      "build", ('"r"', "non-negative", "(-2, 4)")),
    C("reshape_incompatible_symbolic", lambda at: at("build", L.Reshape((3, 4), name="r"),
                                                     sym(5)),
      ValueError, "build", ('"r"', "(None, 5)", "(3, 4)")),
    C("reshape_incompatible_eager", lambda at: at("call", L.Reshape((3, 4), name="r"),
                                                  arr(2, 5)),
      ValueError, "call", ('"r"', "(2, 5)", "(3, 4)")),
    C("permute_not_a_permutation", lambda at: at("build", L.Permute, (1, 1)), ValueError,
      "build", ("(1, 1)",)),
    C("permute_wrong_rank", lambda at: at("build", L.Permute((2, 1), name="p"), sym(3, 4, 5)),
      ValueError, "build", ('"p"', "ndim=3", "ndim=4")),
    C("repeat_vector_rank3", lambda at: at("build", L.RepeatVector(2, name="rv"), sym(3, 4)),
      ValueError, "build", ('"rv"', "ndim=2", "ndim=3")),
    C("cropping1d_too_much", lambda at: at("build", L.Cropping1D((3, 3), name="crop"),
                                           sym(5, 2)),
      ValueError, "build", ('"crop"', "5")),
    C("cropping2d_wrong_rank", lambda at: at("build", L.Cropping2D(1, name="crop"), sym(5, 2)),
      ValueError, "build", ('"crop"', "ndim=4", "ndim=3")),
    C("zero_padding_negative", lambda at: at("build", L.ZeroPadding1D, -1), ValueError,
      "build", ("-1",)),
    C("upsampling2d_wrong_rank", lambda at: at("build", L.UpSampling2D(name="up"), sym(5, 2)),
      ValueError, "build", ('"up"', "ndim=4", "ndim=3")),
    # --------------------------------------------------------------- convolution
    C("conv2d_negative_filters", lambda at: at("build", L.Conv2D, -2, 3), ValueError, "build",
      ("filters", "-2")),
    C("conv2d_zero_kernel", lambda at: at("build", L.Conv2D, 4, 0), ValueError, "build",
      ("kernel_size", "0")),
    C("conv2d_zero_strides", lambda at: at("build", L.Conv2D, 4, 3, strides=0), ValueError,
      "build", ("strides", "0")),
    C("conv2d_bad_padding", lambda at: at("build", L.Conv2D, 4, 3, padding="sam"), ValueError,
      "build", ("padding", "sam")),
    C("conv2d_wrong_rank", lambda at: at("build", L.Conv2D(4, 3, name="c"), sym(8, 3)),
      ValueError, "build", ('"c"', "ndim=4", "ndim=3")),
    C("conv2d_wrong_channels", lambda at: at("call", built(L.Conv2D(4, 3, name="c"), 1, 8, 8,
                                                          3), arr(1, 8, 8, 5)),
      ValueError, "call", ('"c"', "value 3", "(1, 8, 8, 5)")),
    C("conv1d_kernel_larger_than_input", lambda at: at("build", L.Conv1D(2, 5, name="c"),
                                                       sym(3, 2)),
      ValueError, "build", ('"c"',)),
    C("conv1d_wrong_rank", lambda at: at("build", L.Conv1D(2, 3, name="c"), sym(8)),
      ValueError, "build", ('"c"', "ndim=3", "ndim=2")),
    C("conv3d_wrong_rank", lambda at: at("build", L.Conv3D(2, 3, name="c"), sym(8, 8, 3)),
      ValueError, "build", ('"c"', "ndim=5", "ndim=4")),
    C("conv_groups_not_dividing", lambda at: at("build", L.Conv2D, 4, 3, groups=3),
      ValueError, "build", ("groups=3", "filters=4")),
    C("conv_groups_not_dividing_channels", lambda at: at("build", L.Conv2D(6, 3, groups=3,
                                                                           name="c"),
                                                         sym(8, 8, 4)),
      ValueError, "build", ('"c"', "3", "4")),
    C("separable_conv_wrong_rank", lambda at: at("build", L.SeparableConv2D(4, 3, name="s"),
                                                 sym(8, 3)),
      ValueError, "build", ('"s"', "ndim=4", "ndim=3")),
    C("depthwise_zero_multiplier", lambda at: at("build", L.DepthwiseConv2D, 3,
                                                 depth_multiplier=0),
      ValueError, "build", ("depth_multiplier", "0")),
    C("conv_transpose_wrong_rank", lambda at: at("build", L.Conv2DTranspose(4, 3, name="t"),
                                                 sym(8, 3)),
      ValueError, "build", ('"t"', "ndim=4", "ndim=3")),
    # ----------------------------------------------------------------- pooling
    C("maxpool2d_zero_pool", lambda at: at("build", L.MaxPooling2D, 0), ValueError, "build",
      ("pool_size", "0")),
    C("maxpool2d_wrong_rank", lambda at: at("build", L.MaxPooling2D(name="mp"), sym(8, 3)),
      ValueError, "build", ('"mp"', "ndim=4", "ndim=3")),
    C("avgpool1d_bad_padding", lambda at: at("build", L.AveragePooling1D, 2, padding="full"),
      ValueError, "build", ("padding", "full")),
    C("global_pool_wrong_rank", lambda at: at("build", L.GlobalAveragePooling2D(name="gp"),
                                              sym(8, 3)),
      ValueError, "build", ('"gp"', "ndim=4", "ndim=3")),
    C("global_pool_bad_data_format", lambda at: at("build", L.GlobalMaxPooling1D,
                                                   data_format="channels_middle"),
      ValueError, "build", ("data_format", "channels_middle")),
    # ------------------------------------------------------------ normalization
    C("batchnorm_axis_out_of_range", lambda at: at("build", L.BatchNormalization(axis=3,
                                                                                 name="bn"),
                                                   sym(4)),
      ValueError, "build", ('"bn"', "axis", "3")),
    C("batchnorm_wrong_features", lambda at: at("call", built(L.BatchNormalization(name="bn"),
                                                              2, 4), arr(2, 5)),
      ValueError, "call", ('"bn"', "value 4", "(2, 5)")),
    C("layernorm_axis_out_of_range", lambda at: at("build", L.LayerNormalization(axis=5,
                                                                                 name="ln"),
                                                   sym(4)),
      ValueError, "build", ('"ln"', "5")),
    C("groupnorm_groups_not_dividing", lambda at: at("build", L.GroupNormalization(
        groups=3, name="gn"), sym(8, 4)), ValueError, "build", ('"gn"', "3", "4")),
    C("batchnorm_negative_momentum", lambda at: at("build", L.BatchNormalization,
                                                   momentum=-0.5),
      ValueError, "build", ("momentum", "-0.5")),
    # --------------------------------------------------------------- merging
    C("add_shape_mismatch", lambda at: at("build", L.Add(name="add"), [sym(3), sym(4)]),
      ValueError, "build", ('"add"', "(None, 3)", "(None, 4)")),
    C("add_single_input", lambda at: at("build", L.Add(name="add"), sym(3)), ValueError,
      "build", ('"add"', "list")),
    C("concatenate_mismatch", lambda at: at("build", L.Concatenate(name="cat"),
                                            [sym(3, 2), sym(4, 2)]),
      ValueError, "build", ('"cat"', "(None, 3, 2)", "(None, 4, 2)")),
    C("concatenate_rank_mismatch", lambda at: at("build", L.Concatenate(name="cat"),
                                                 [sym(3, 2), sym(3)]),
      ValueError, "build", ('"cat"', "(None, 3, 2)", "(None, 3)")),
    C("dot_axes_mismatch", lambda at: at("build", L.Dot(axes=1, name="dot"), [sym(3), sym(4)]),
      ValueError, "build", ('"dot"', "3", "4")),
    C("subtract_three_inputs", lambda at: at("build", L.Subtract(name="sub"),
                                             [sym(3), sym(3), sym(3)]),
      ValueError, "build", ('"sub"', "2", "3")),
    C("multiply_eager_mismatch", lambda at: at("call", L.Multiply(name="mul"),
                                               [arr(2, 3), arr(2, 4)]),
      ValueError, "call", ('"mul"', "(2, 3)", "(2, 4)")),
    # ------------------------------------------------------------ activations
    C("leaky_relu_negative_slope", lambda at: at("build", L.LeakyReLU, negative_slope=-1.0),
      ValueError, "build", ("negative_slope", "-1")),
    C("relu_negative_max_value", lambda at: at("build", L.ReLU, max_value=-1.0), ValueError,
      "build", ("max_value", "-1")),
    C("elu_string_alpha", lambda at: at("build", L.ELU, alpha="big"), (ValueError, TypeError),
      "build", ("alpha", "big")),
    C("softmax_axis_out_of_range", lambda at: at("build", L.Softmax(axis=4, name="sm"), sym(3)),
      ValueError, "build", ('"sm"', "4")),
    C("prelu_wrong_features", lambda at: at("call", built(L.PReLU(name="pr"), 2, 4),
                                            arr(2, 5)),
      ValueError, "call", ('"pr"', "4", "(2, 5)")),
    # ---------------------------------------------------------- regularization
    C("gaussian_noise_negative_stddev", lambda at: at("build", L.GaussianNoise, -1.0),
      ValueError, "build", ("stddev", "-1")),
    C("gaussian_dropout_rate", lambda at: at("build", L.GaussianDropout, 1.5), ValueError,
      "build", ("rate", "1.5")),
    C("spatial_dropout1d_wrong_rank", lambda at: at("build", L.SpatialDropout1D(0.5, name="sd"),
                                                    sym(4)),
      ValueError, "build", ('"sd"', "ndim=3", "ndim=2")),
    C("activity_regularization_negative", lambda at: at("build", L.ActivityRegularization,
                                                        l1=-1.0),
      ValueError, "build", ("l1", "-1")),
    # ---------------------------------------------------------- preprocessing
    C("resizing_zero_height", lambda at: at("build", L.Resizing, 0, 4), ValueError, "build",
      ("height", "0")),
    C("resizing_bad_interpolation", lambda at: at("build", L.Resizing, 4, 4,
                                                  interpolation="cubicc"),
      ValueError, "build", ("interpolation", "cubicc")),
    C("center_crop_zero_width", lambda at: at("build", L.CenterCrop, 4, 0), ValueError,
      "build", ("width", "0")),
    C("center_crop_rank2", lambda at: at("call", L.CenterCrop(2, 2, name="cc"), arr(4, 4)),
      ValueError, "call", ('"cc"', "min_ndim=3", "ndim=2")),
    C("normalization_mean_shape", lambda at: at("build", L.Normalization(
        mean=[1.0, 2.0], variance=[1.0, 1.0], name="norm"), sym(3)),
      ValueError, "build", ('"norm"', "2", "3")),
    C("rescaling_string_scale", lambda at: at("build", L.Rescaling, "half"),
      (ValueError, TypeError), "build", ("scale", "half")),
    # ---------------------------------------------------------------- attention
    C("mha_zero_heads", lambda at: at("build", L.MultiHeadAttention, num_heads=0, key_dim=4),
      ValueError, "build", ("num_heads", "0")),
    C("mha_negative_key_dim", lambda at: at("build", L.MultiHeadAttention, num_heads=2,
                                            key_dim=-4),
      ValueError, "build", ("key_dim", "-4")),
    C("mha_rank2_query", lambda at: at("build", L.MultiHeadAttention(2, 4, name="mha"),
                                       sym(8), sym(8)),
      ValueError, "build", ('"mha"', "rank >= 3", "(None, 8)")),
    C("attention_single_tensor", lambda at: at("build", L.Attention(name="att"), sym(3, 4)),
      ValueError, "build", ('"att"', "list")),
    C("attention_feature_mismatch", lambda at: at("build", L.Attention(name="att"),
                                                  [sym(3, 4), sym(5, 6)]),
      ValueError, "build", ('"att"', "4", "6")),
    # ---------------------------------------------------------------- recurrent
    C("lstm_negative_units", lambda at: at("build", L.LSTM, -1), ValueError, "build",
      ("units", "-1")),
    C("gru_zero_units", lambda at: at("build", L.GRU, 0), ValueError, "build", ("units", "0")),
    C("simple_rnn_bad_dropout", lambda at: at("build", L.SimpleRNN, 4, dropout=2.0),
      ValueError, "build", ("dropout", "2")),
    C("lstm_rank2_input", lambda at: at("build", L.LSTM(4, name="lstm"), sym(5)), ValueError,
      "build", ('"lstm"', "ndim=3", "ndim=2")),
    C("lstm_wrong_features_eager", lambda at: at("call", built(L.LSTM(4, name="lstm"), 2, 3, 5),
                                                 arr(2, 3, 6)),
      ValueError, "call", ('"lstm"', "value 5", "(2, 3, 6)")),
    C("gru_wrong_features_eager", lambda at: at("call", built(L.GRU(4, name="gru"), 2, 3, 5),
                                                arr(2, 3, 6)),
      ValueError, "call", ('"gru"', "value 5", "(2, 3, 6)")),
    C("simple_rnn_wrong_features_symbolic",
      lambda at: at("build", built(L.SimpleRNN(4, name="rnn"), 2, 3, 5), sym(3, 7)),
      ValueError, "build", ('"rnn"', "value 5", "(None, 3, 7)")),
    C("lstm_wrong_initial_state_count",
      lambda at: at("call", L.LSTM(4, name="lstm"), arr(2, 3, 5),
                    initial_state=[arr(2, 4)]),
      ValueError, "call", ('"lstm"', "2", "1")),
    C("rnn_cell_without_state_size", lambda at: at("build", L.RNN, L.Dense(3)), ValueError,
      "build", ("state_size",)),
    C("bidirectional_non_rnn", lambda at: at("build", L.Bidirectional, L.Dense(3)), ValueError,
      "build", ("Dense",)),
    C("time_distributed_rank2", lambda at: at("build", L.TimeDistributed(L.Dense(3),
                                                                         name="td"), sym(4)),
      ValueError, "build", ('"td"', "3", "2")),
    C("lstm_stateful_without_batch_size",
      lambda at: at("build", L.LSTM(4, stateful=True, name="lstm"), sym(3, 5)), ValueError,
      "build", ('"lstm"', "stateful", "batch size must be static", "(None, 3, 5)")),
    C("gru_stateful_other_batch_size",
      lambda at: at("call", built(L.GRU(4, stateful=True, name="gru"), 2, 3, 5), arr(3, 3, 5)),
      ValueError, "call", ('"gru"', "stateful", "Expected batch size: 2",
                           "Received batch size: 3")),
    # ------------------------------------------------------------- models
    C("model_inputs_not_tensors", lambda at: at("build", kg.Model, arr(2, 3),
                                                L.Dense(3)(sym(3))),
      (ValueError, TypeError), "build", ("inputs",)),
    C("model_outputs_string", lambda at: at("build", kg.Model, sym(3), "out"),
      (ValueError, TypeError), "build", ("outputs", "'out'")),
    C("model_graph_disconnected",
      lambda at: (lambda a, b: at("build", kg.Model, a, L.Add()([a, b])))(sym(3), sym(3)),
      ValueError, "build", ("disconnected",)),
    C("model_duplicate_names",
      lambda at: (lambda x: at("build", kg.Model, x, L.Dense(2, name="d")(
          L.Dense(2, name="d")(x))))(sym(3)),
      ValueError, "build", ('"d"', "unique")),
    C("model_wrong_feature_size_eager",
      lambda at: at("call", kg.Model(*(lambda x: (x, L.Dense(2)(x)))(
          kg.Input(shape=(3,), name="x")), name="m"), arr(2, 4)),
      ValueError, "call", ('"m"', "(None, 3)", "(2, 4)")),
    C("model_string_input", lambda at: at("call", classifier(None), "some text"), TypeError,
      "call", ('"clf"', "numeric", "str")),
    C("model_missing_dict_input", lambda at: at("call", two_inputs(), {"a": arr(1, 2)}),
      ValueError, "call", ("two", "'b'")),
    C("model_too_many_inputs", lambda at: at("call", classifier(None), [arr(2, 4), arr(2, 4)]),
      ValueError, "call", ("clf", "1", "2")),
    C("sequential_add_non_layer", lambda at: at("build", kg.Sequential().add, "dense"),
      (ValueError, TypeError), "build", ("Layer", "dense")),
    C("sequential_wrong_feature_size",
      lambda at: at("call", kg.Sequential([kg.Input(shape=(3,)), L.Dense(2)], name="seq"),
                    arr(2, 4)),
      ValueError, "call", ('"seq"', "3", "(2, 4)")),
    C("get_layer_unknown", lambda at: at("build", classifier(None).get_layer, "nope"),
      ValueError, "build", ("nope", "clf")),
    # ------------------------------------------------------------- compile
    C("compile_unknown_loss", lambda at: at("compile", classifier(None).compile,
                                            optimizer="sgd", loss="mean_squared_errr"),
      ValueError, "compile", ("mean_squared_errr",)),
    C("compile_unknown_optimizer", lambda at: at("compile", classifier(None).compile,
                                                 optimizer="adamm", loss="mse"),
      ValueError, "compile", ("adamm",)),
    C("compile_unknown_metric", lambda at: at("compile", classifier(None).compile,
                                              optimizer="sgd", loss="mse",
                                              metrics=["accuracyy"]),
      ValueError, "compile", ("accuracyy",)),
    # How the losses fit the outputs is checked at the first batch, as Keras's (its own
    # tests, models/model_test.py's *_dict_losses_invalid_keys, compile such a model first)
    C("compile_loss_dict_unknown_output",
      lambda at: at("fit", classifier({"nope": "mse"}).fit, X, Y, verbose=0),
      ValueError, "fit", ("Expected keys ['out'] in loss dict", "['nope']")),
    C("compile_zero_steps_per_execution", lambda at: at("compile", classifier(None).compile,
                                                        optimizer="sgd", loss="mse",
                                                        steps_per_execution=0),
      ValueError, "compile", ("steps_per_execution", "0")),
    C("compiler_compile_non_model", lambda at: at("compile", compiler.compile, "model"),
      TypeError, "compile", ("compiler.compile", "str")),
    C("compiler_compile_unbuilt", lambda at: at("compile", compiler.compile, L.Dense(3,
                                                                                    name="d")),
      ValueError, "compile", ('"d"', "not built")),
    # ------------------------------------------------------------------ fit
    C("fit_before_compile", lambda at: at("fit", classifier(None).fit, X, Y, verbose=0),
      RuntimeError, "fit", ("compile", "clf")),
    C("fit_batch_size_zero", lambda at: at("fit", classifier().fit, X, Y, batch_size=0,
                                           verbose=0),
      ValueError, "fit", ("batch_size", "positive", "0")),
    C("fit_batch_size_negative", lambda at: at("fit", classifier().fit, X, Y, batch_size=-8,
                                               verbose=0),
      ValueError, "fit", ("batch_size", "positive", "-8")),
    C("fit_batch_size_float", lambda at: at("fit", classifier().fit, X, Y, batch_size=2.5,
                                            verbose=0),
      ValueError, "fit", ("batch_size", "2.5")),
    C("fit_class_weight_negative_key", lambda at: at("fit", classifier().fit, X, Y,
                                                     class_weight={-1: 2.0}, verbose=0),
      ValueError, "fit", ("class_weight", "non-negative", "-1")),
    C("fit_class_weight_float_key", lambda at: at("fit", classifier().fit, X, Y,
                                                  class_weight={1.5: 2.0}, verbose=0),
      ValueError, "fit", ("class_weight", "1.5", "float")),
    C("fit_class_weight_string_key", lambda at: at("fit", classifier().fit, X, Y,
                                                   class_weight={"cat": 2.0}, verbose=0),
      ValueError, "fit", ("class_weight", "'cat'", "str")),
    C("fit_class_weight_unknown_class", lambda at: at("fit", classifier().fit, X, Y,
                                                      class_weight={0: 1.0, 7: 2.0},
                                                      verbose=0),
      ValueError, "fit", ("class_weight", "7", "3 classes")),
    C("fit_class_weight_string_value", lambda at: at("fit", classifier().fit, X, Y,
                                                     class_weight={0: "high"}, verbose=0),
      ValueError, "fit", ("class_weight", "'high'")),
    C("fit_class_weight_not_dict", lambda at: at("fit", classifier().fit, X, Y,
                                                 class_weight=[1.0, 2.0], verbose=0),
      TypeError, "fit", ("class_weight", "dict", "list")),
    C("fit_sparse_label_out_of_range", lambda at: at("fit", classifier().fit, X,
                                                     np.array([0, 1, 2, 3, 0, 1, 2, 0]),
                                                     verbose=0),
      ValueError, "fit", ("'out'", "sparse_categorical_crossentropy", "3 classes", "3")),
    C("fit_sparse_label_negative", lambda at: at("fit", classifier().fit, X,
                                                 np.array([0, 1, 2, -1, 0, 1, 2, 0]),
                                                 verbose=0),
      ValueError, "fit", ("'out'", "[0, 3)", "-1")),
    C("evaluate_sparse_label_out_of_range", lambda at: at("fit", classifier().evaluate, X,
                                                          np.full((8,), 9), verbose=0),
      ValueError, "fit", ("'out'", "[0, 3)", "9")),
    C("fit_validation_wrong_features", lambda at: at("fit", classifier().fit, X, Y,
                                                     validation_data=(arr(4, 5), Y[:4]),
                                                     verbose=0),
      ValueError, "fit", ("validation_data", "(None, 4)", "5")),
    C("fit_validation_one_hot_for_sparse", lambda at: at("fit", classifier().fit, X, Y,
                                                         validation_data=(X, arr(8, 3)),
                                                         verbose=0),
      ValueError, "fit", ("validation_data", "sparse_categorical_crossentropy", "(8, 3)")),
    C("fit_validation_labels_out_of_range", lambda at: at("fit", classifier().fit, X, Y,
                                                          validation_data=(X, Y + 5),
                                                          verbose=0),
      ValueError, "fit", ("validation_data", "[0, 3)", "5")),
    C("fit_validation_strings", lambda at: at("fit", classifier().fit, X, Y,
                                              validation_data=(X.astype(str), Y), verbose=0),
      TypeError, "fit", ("validation_data", "numeric")),
    C("fit_validation_bad_structure", lambda at: at("fit", classifier().fit, X, Y,
                                                    validation_data=X, verbose=0),
      ValueError, "fit", ("validation_data", "(x, y)")),
    C("fit_validation_batch_size_zero", lambda at: at("fit", classifier().fit, X, Y,
                                                      validation_data=(X, Y),
                                                      validation_batch_size=0, verbose=0),
      ValueError, "fit", ("validation_batch_size", "0")),
    C("fit_x_y_lengths_differ", lambda at: at("fit", classifier().fit, X, Y[:5], verbose=0),
      ValueError, "fit", ("8", "5")),
    C("fit_missing_y", lambda at: at("fit", classifier().fit, X, verbose=0), ValueError,
      "fit", ("y",)),
    C("fit_wrong_feature_size", lambda at: at("fit", classifier().fit, arr(8, 5), Y,
                                              verbose=0),
      ValueError, "fit", ("(None, 4)", "5")),
    C("fit_one_hot_for_sparse", lambda at: at("fit", classifier().fit, X, arr(8, 3),
                                              verbose=0),
      ValueError, "fit", ("sparse_categorical_crossentropy", "categorical_crossentropy")),
    C("fit_validation_split_too_big", lambda at: at("fit", classifier().fit, X, Y,
                                                    validation_split=1.5, verbose=0),
      ValueError, "fit", ("validation_split", "1.5")),
    C("fit_negative_epochs", lambda at: at("fit", classifier().fit, X, Y, epochs=-1,
                                           verbose=0),
      ValueError, "fit", ("epochs", "-1")),
    C("fit_zero_validation_freq", lambda at: at("fit", classifier().fit, X, Y,
                                                validation_data=(X, Y), validation_freq=0,
                                                verbose=0),
      ValueError, "fit", ("validation_freq", "0")),
    C("fit_zero_steps_per_epoch", lambda at: at("fit", classifier().fit, X, Y,
                                                steps_per_epoch=0, verbose=0),
      ValueError, "fit", ("steps_per_epoch", "0")),
    C("fit_sample_weight_wrong_shape", lambda at: at("fit", classifier().fit, X, Y,
                                                     sample_weight=np.ones((8, 5)), verbose=0),
      ValueError, "fit", ("sample_weight", "(8, 5)")),
    C("fit_string_x", lambda at: at("fit", classifier().fit, X.astype(str), Y, verbose=0),
      TypeError, "fit", ("numeric",)),
    C("fit_string_labels", lambda at: at("fit", classifier().fit, X,
                                         np.array(list("abcabcab")), verbose=0),
      TypeError, "fit", ("y has dtype <U1", "numeric", "class indices")),
    C("fit_empty_arrays", lambda at: at("fit", classifier().fit, X[:0], Y[:0], verbose=0),
      ValueError, "fit", ("0 samples", "at least one row")),
    C("predict_empty_array", lambda at: at("fit", classifier().predict, X[:0], verbose=0),
      ValueError, "fit", ("0 samples",)),
    C("predict_wrong_feature_size", lambda at: at("fit", classifier().predict, arr(8, 5),
                                                  verbose=0),
      ValueError, "fit", ("(None, 4)", "5")),
    C("predict_batch_size_zero", lambda at: at("fit", classifier().predict, X, batch_size=0,
                                               verbose=0),
      ValueError, "fit", ("batch_size", "0")),
    C("evaluate_batch_size_negative", lambda at: at("fit", classifier().evaluate, X, Y,
                                                    batch_size=-1, verbose=0),
      ValueError, "fit", ("batch_size", "-1")),
    # ---------------------------------------------------------------- apply
    C("apply_params_none", lambda at: (lambda p: at("apply", p[0].apply, None, p[2], X))(
        dense_program()), TypeError, "apply", ("params", "'m'", "NoneType")),
    C("apply_state_list", lambda at: (lambda p: at("apply", p[0].apply, p[1], [], X))(
        dense_program()), TypeError, "apply", ("state", "list")),
    C("apply_params_list", lambda at: (lambda p: at("apply", p[0].apply, [p[1]], p[2], X))(
        dense_program()), TypeError, "apply", ("params", "list")),
    C("apply_bias_broadcasting_shape", lambda at: (lambda p: at(
        "apply", p[0].apply, with_leaf(p[1], ("out", "bias"), jnp.zeros((1,))), p[2], X))(
        dense_program()), ValueError, "apply", ("out/bias", "(3,)", "(1,)")),
    C("apply_kernel_transposed", lambda at: (lambda p: at(
        "apply", p[0].apply, with_leaf(p[1], ("out", "kernel"), jnp.zeros((3, 4))), p[2], X))(
        dense_program(3, 4)), ValueError, "apply", ("out/kernel", "(4, 3)", "(3, 4)")),
    C("apply_kernel_wrong_dtype", lambda at: (lambda p: at(
        "apply", p[0].apply, with_leaf(p[1], ("out", "kernel"), jnp.zeros((4, 3), jnp.int32)),
        p[2], X))(dense_program()), ValueError, "apply", ("out/kernel", "float32", "int32")),
    C("apply_kernel_not_array", lambda at: (lambda p: at(
        "apply", p[0].apply, with_leaf(p[1], ("out", "kernel"), "w"), p[2], X))(
        dense_program()), TypeError, "apply", ("out/kernel", "(4, 3)", "str")),
    C("apply_missing_weight", lambda at: (lambda p: at("apply", p[0].apply, {"out": {
        "kernel": p[1]["out"]["kernel"]}}, p[2], X))(dense_program()), KeyError, "apply",
      ("out/bias",)),
    C("apply_extra_weight", lambda at: (lambda p: at("apply", p[0].apply, {
        **p[1], "ghost": {"kernel": jnp.zeros(2)}}, p[2], X))(dense_program()), ValueError,
      "apply", ("ghost/kernel", "not weights")),
    C("apply_state_wrong_shape", lambda at: (lambda p: at(
        "apply", p[0].apply, p[1], with_leaf(p[2], ("bn", "moving_mean"), jnp.zeros((1,))),
        X))(bn_program()), ValueError, "apply", ("bn/moving_mean", "(4,)", "(1,)")),
    C("apply_params_under_jit", lambda at: (lambda p: at(
        "apply", jax.jit(p[0].apply), with_leaf(p[1], ("out", "bias"), jnp.zeros((1,))),
        p[2], X))(dense_program()), ValueError, "apply", ("out/bias", "(3,)", "(1,)")),
    C("apply_params_swapped_with_state", lambda at: (lambda p: at(
        "apply", p[0].apply, p[2], p[1], X))(dense_program()), KeyError, "apply",
      ("params", "out")),
    C("apply_wrong_input_size", lambda at: (lambda p: at("apply", p[0].apply, p[1], p[2],
                                                         arr(8, 5)))(dense_program()),
      ValueError, "apply", ('"m"', "(None, 4)", "(8, 5)")),
    C("apply_training_dropout_without_key", lambda at: (lambda x: (lambda p: at(
        "apply", p.apply, *p.init(jax.random.PRNGKey(0)), arr(2, 4), training=True))(
        compiler.compile(kg.Model(x, L.Dropout(0.5, name="drop")(x)))))(sym(4)),
      ValueError, "apply", ("drop", "key")),
    C("apply_capture_unknown_path", lambda at: (lambda p: at("apply", p[0].apply, p[1], p[2],
                                                             X, capture=["nope"]))(
        dense_program()), ValueError, "apply", ("nope", "'m'")),
    # ------------------------------------------------------------------ ops
    C("ops_add_mismatch", lambda at: at("build", ops.add, sym(3), sym(4)), ValueError, "build",
      ("(None, 3)", "(None, 4)")),
    C("ops_matmul_mismatch", lambda at: at("build", ops.matmul, sym(3), sym(4, 2)), ValueError,
      "build", ("matmul", "(None, 3)", "(None, 4, 2)")),  # Keras's error type
    C("ops_reshape_incompatible", lambda at: at("build", ops.reshape, sym(5), (-1, 3, 4)),
      TypeError, "build", ("reshape", "(None, 5)")),
    C("ops_concatenate_rank_mismatch", lambda at: at("build", ops.concatenate,
                                                     [sym(3), sym(3, 2)]),
      ValueError, "build", ("concatenate", "(None, 3)", "(None, 3, 2)")),  # Keras's type
    C("ops_softmax_axis_out_of_range", lambda at: at("build", ops.softmax, sym(3), axis=5),
      ValueError, "build", ("softmax", "5")),
    C("ops_transpose_bad_axes", lambda at: at("build", ops.transpose, sym(3, 4), (0, 1)),
      ValueError, "build", ("transpose", "(0, 1)")),  # Keras's error type
    C("ops_squeeze_non_unit_axis", lambda at: at("build", ops.squeeze, sym(3, 4), axis=1),
      ValueError, "build", ("squeeze", "1")),
    C("ops_split_uneven", lambda at: at("build", ops.split, sym(5), 2, axis=1), ValueError,
      "build", ("split", "(None, 5)", "equal division")),
    C("ops_matmul_eager_mismatch", lambda at: at("call", ops.matmul, arr(2, 3), arr(4, 2)),
      (ValueError, TypeError), "call", ("matmul", "(2, 3)", "(4, 2)")),
    C("tensor_getitem_out_of_range", lambda at: at("build", lambda x: x[:, 5], sym(3)),
      IndexError, "build", ("index 5", "size 3")),
    C("array_getitem_out_of_range", lambda at: at("call", ops.get_item, arr(2, 3), (0, -4)),
      IndexError, "call", ("index -4", "size 3")),
    C("tensor_as_bool", lambda at: at("build", bool, sym(3)), TypeError, "build",
      ("KerasTensor", "bool")),
]
