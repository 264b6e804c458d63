"""Under ``mixed_bfloat16`` weights are stored in float32; only inside ``call`` are they
cast to the bfloat16 compute dtype."""

import jax.numpy as jnp

from kgraph import layers


def test_a_mixed_precision_weight_reads_as_its_float32_value_outside_call():
    dense = layers.Dense(2, dtype="mixed_bfloat16")
    seen = {}
    original = type(dense).call

    def spy(self, inputs, *args, **kwargs):
        seen["kernel"] = self.kernel.dtype
        return original(self, inputs, *args, **kwargs)

    type(dense).call = spy
    try:
        out = dense(jnp.ones((1, 3)))
    finally:
        type(dense).call = original
    assert dense.kernel.dtype == jnp.float32
    assert dense.weights[0].value.dtype == jnp.float32
    assert seen["kernel"] == jnp.bfloat16 and out.dtype == jnp.bfloat16
