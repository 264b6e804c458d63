"""Contractions with weights that accumulate half-precision inputs in float32.

Under a mixed policy (``"mixed_bfloat16"``) a layer computes in bfloat16, but a
contraction's sum runs in float32 and only its result is rounded to bfloat16. The same
holds for the gradients: the transpose of a float32-accumulating contraction accumulates
in float32 too, so a weight's gradient, a sum over the batch (over every device of the
data axis on a mesh), is reduced in float32 before it is rounded. (On CPU, which computes
half-precision contractions in float32 anyway, the operands are cast to float32 first: the
choice is made per platform when a program is lowered, ``jax.lax.platform_dependent``.)
Float32 inputs compute as plain ``jnp.matmul`` / ``jnp.einsum`` / ``lax`` convolutions.

>>> import jax.numpy as jnp
>>> a = jnp.ones((2, 3), jnp.bfloat16)
>>> matmul(a, jnp.ones((3, 4), jnp.bfloat16)).dtype
dtype(bfloat16)
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

__all__ = ["HALF", "conv_general_dilated", "conv_transpose", "einsum", "matmul"]


HALF = (jnp.dtype(jnp.bfloat16), jnp.dtype(jnp.float16))


def _accumulated(function, a, b, *args, **kwargs):
    dtype = jnp.result_type(a, b)
    if dtype not in HALF:
        return function(a, b, *args, **kwargs)
    def accumulating(a, b):
        return function(a, b, *args, preferred_element_type=jnp.float32,
                        **kwargs).astype(dtype)

    def from_float32_copies(a, b):
        # XLA:CPU computes half-precision contractions in float32 anyway, and does not
        # implement every half x half -> float32 dot: the same numbers, from float32 copies.
        return function(a.astype(jnp.float32), b.astype(jnp.float32), *args,
                        **kwargs).astype(dtype)

    # Chosen per platform when the program is lowered, so a program exported for several
    # platforms (``compiler.export``) carries each one's form.
    return jax.lax.platform_dependent(a, b, cpu=from_float32_copies, default=accumulating)


def matmul(a, b):
    """``jnp.matmul(a, b)``, accumulated in float32 for half-precision inputs."""
    return _accumulated(jnp.matmul, a, b)


def einsum(equation: str, a, b):
    """``jnp.einsum(equation, a, b)``, accumulated in float32 for half-precision inputs."""
    return _accumulated(lambda x, y, **kw: jnp.einsum(equation, x, y, **kw), a, b)


def conv_general_dilated(lhs, rhs, *args, **kwargs):
    """``jax.lax.conv_general_dilated``, accumulated in float32 for half-precision inputs."""
    return _accumulated(jax.lax.conv_general_dilated, lhs, rhs, *args, **kwargs)


def conv_transpose(lhs, rhs, *args, **kwargs):
    """``jax.lax.conv_transpose``, accumulated in float32 for half-precision inputs."""
    return _accumulated(jax.lax.conv_transpose, lhs, rhs, *args, **kwargs)
