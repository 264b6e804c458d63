"""The ``(real, imag)`` pairs that Keras's Fourier ops take for complex tensors, checked
as Keras checks them.

>>> import jax.numpy as jnp
>>> real, imag = complex_parts("fft", (jnp.ones(3), jnp.zeros(3)))
>>> real.shape, imag.shape
((3,), (3,))
"""

from __future__ import annotations

import jax.numpy as jnp

__all__ = ["complex_parts"]


def complex_parts(op, x, min_rank=1):
    """``x = (real, imag)`` as two arrays of one shape of rank ``min_rank`` or more;
    ValueError naming ``ops.<op>`` otherwise."""
    if not isinstance(x, (tuple, list)) or len(x) != 2:
        raise ValueError(f"ops.{op}: Input `x` should be a tuple of two tensors - real and "
                         f"imaginary. Received: x={x}")
    real, imag = (jnp.asarray(part) for part in x)
    if real.shape != imag.shape:
        raise ValueError(f"ops.{op}: Input `x` should be a tuple of two tensors - real and "
                         "imaginary. Both the real and imaginary parts should have the same "
                         f"shape. Received: x[0].shape = {real.shape}, x[1].shape = "
                         f"{imag.shape}")
    if real.ndim < min_rank:
        raise ValueError(f"ops.{op}: Input should have rank >= {min_rank}. Received: "
                         f"input.shape = {real.shape}")
    return real, imag
