"""``keras.ops.linalg``: decompositions and solvers on ``jax.numpy.linalg`` / ``jax.scipy``.

>>> from kgraph import ops
>>> ops.linalg.det(ops.eye(3) * 2).tolist()
8.0
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from kgraph.ops.numpy import norm  # noqa: F401 - keras.ops.linalg.norm
from kgraph.ops.numpy_extra import slogdet  # noqa: F401
from kgraph.ops.registry import register_array_function, register_op

__all__ = [
    "norm", "slogdet",  # kgraph.ops.numpy's, as keras.ops.linalg has them
    "cholesky", "cholesky_inverse", "det", "eig", "eigh", "inv", "jvp", "logdet", "lstsq",
    "lu_factor", "matrix_rank", "pinv", "qr", "solve", "solve_triangular", "svd"
]


cholesky = register_array_function("cholesky", jnp.linalg.cholesky, ("x",), elementwise=False)
det = register_array_function("det", jnp.linalg.det, ("x",), elementwise=False)
eig = register_array_function("eig", jnp.linalg.eig, ("x",), elementwise=False)
eigh = register_array_function("eigh", jnp.linalg.eigh, ("x",), elementwise=False)
inv = register_array_function("inv", jnp.linalg.inv, ("x",), elementwise=False)
solve = register_array_function("solve", jnp.linalg.solve, ("a", "b"), elementwise=False)


@register_op("logdet")
def logdet(x):
    """``log(det(x))`` of a positive-definite matrix."""
    return jnp.linalg.slogdet(x)[1]


@register_op("cholesky_inverse")
def cholesky_inverse(x, upper=False):
    """The inverse of ``L @ L.T`` given its Cholesky factor ``x``."""
    identity = jnp.broadcast_to(jnp.eye(x.shape[-1], dtype=x.dtype), x.shape)
    return jax.scipy.linalg.cho_solve((x, not upper), identity)


@register_op("lstsq", tensors=2)
def lstsq(a, b, rcond=None):
    return jnp.linalg.lstsq(a, b, rcond=rcond)[0]


@register_op("lu_factor")
def lu_factor(x):
    return jax.scipy.linalg.lu_factor(x)


@register_op("matrix_rank")
def matrix_rank(x, rtol=None, tol=None):
    return jnp.linalg.matrix_rank(x, rtol=rtol, tol=tol)


@register_op("pinv")
def pinv(x, rtol=1e-15):
    return jnp.linalg.pinv(x, rtol=rtol)


@register_op("qr")
def qr(x, mode="reduced"):
    return jnp.linalg.qr(x, mode=mode)


@register_op("solve_triangular", tensors=2)
def solve_triangular(a, b, lower=False):
    return jax.scipy.linalg.solve_triangular(a, b, lower=lower)


@register_op("svd")
def svd(x, full_matrices=True, compute_uv=True):
    return jnp.linalg.svd(x, full_matrices=full_matrices, compute_uv=compute_uv)


def jvp(fun, primals, tangents, has_aux=False):
    """``jax.jvp`` (arrays only)."""
    return jax.jvp(fun, primals, tangents, has_aux=has_aux)
