"""Conformance cases: EinsumDense, Embedding, ReversibleEmbedding, Lambda, Identity, Masking."""

import jax.numpy as jnp

from kgraph import layers
from tests.support.conformance import LayerCase


def _double(x):
    return x * 2.0


LAMBDA = "a Lambda's function is Python code, which a JSON config does not carry"


CASES = [
    LayerCase("core2_einsum_dense_matmul",
              lambda **kw: layers.EinsumDense("ab,bc->ac", output_shape=4, bias_axes="c", **kw),
              (3,), bad_input_shape=(3, 2)),
    LayerCase("core2_einsum_dense_3d",
              lambda **kw: layers.EinsumDense("abc,cd->abd", output_shape=(None, 4),
                                              bias_axes="d", activation="relu", **kw), (2, 3)),
    LayerCase("core2_einsum_dense_heads",
              lambda **kw: layers.EinsumDense("abc,cde->abde", output_shape=(None, 2, 3),
                                              bias_axes="de", **kw), (4, 5)),
    LayerCase("core2_einsum_dense_left_ellipsis",
              lambda **kw: layers.EinsumDense("...b,bc->...c", output_shape=4, **kw), (2, 3)),
    LayerCase("core2_einsum_dense_right_ellipsis",
              lambda **kw: layers.EinsumDense("abc...,cd->abd...", output_shape=(None, 2),
                                              bias_axes="b", **kw), (3, 4, 2)),
    LayerCase("core2_embedding", lambda **kw: layers.Embedding(10, 4, **kw), (5,),
              input_dtype="int32"),
    LayerCase("core2_embedding_mask_zero_rank2",
              lambda **kw: layers.Embedding(7, 3, mask_zero=True, **kw), (2, 3),
              input_dtype="int32", input_range=(0, 7)),
    LayerCase("core2_reversible_embedding",
              lambda **kw: layers.ReversibleEmbedding(10, 4, mask_zero=True, **kw), (5,),
              input_dtype="int32"),
    LayerCase("core2_reversible_embedding_reverse",
              lambda **kw: layers.ReversibleEmbedding(10, 4, tie_weights=False,
                                                      logit_soft_cap=3.0, **kw), (5, 4),
              call_kwargs={"reverse": True},
              skip={"bfloat16": "as Keras (no autocast), float32 vectors against the kernel "
                                "give float32 logits"}),
    LayerCase("core2_embedding_float_indices",
              lambda **kw: layers.Embedding(10, 2, embeddings_regularizer="l2", **kw), (4,),
              input_dtype="float32", float_range=(0, 10), differentiable=True),
    LayerCase("core2_lambda_named", lambda **kw: layers.Lambda(_double, **kw), (3,),
              skip={"config_round_trip": LAMBDA}),
    LayerCase("core2_lambda_lambda_output_shape",
              lambda **kw: layers.Lambda(lambda x: jnp.sum(x, axis=-1, keepdims=True),
                                         output_shape=(1,), **kw), (4,),
              skip={"config_round_trip": LAMBDA}),
    LayerCase("core2_lambda_arguments",
              lambda **kw: layers.Lambda(jnp.roll, arguments={"shift": 1, "axis": -1}, **kw),
              (2, 3), skip={"config_round_trip": LAMBDA}),
    LayerCase("core2_identity", lambda **kw: layers.Identity(**kw), (3,)),
    LayerCase("core2_identity_list", lambda **kw: layers.Identity(**kw), [(3,), (2,)]),
    LayerCase("core2_masking", lambda **kw: layers.Masking(mask_value=0.5, **kw), (4, 2)),
]
