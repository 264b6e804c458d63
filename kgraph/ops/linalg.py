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
from kgraph.ops.registry import register_op

__all__ = [
    "norm", "slogdet",  # kgraph.ops.numpy's, as keras.ops.linalg has them
    "cholesky", "cholesky_inverse", "det", "eig", "eigh", "inv", "jvp", "logdet", "lstsq",
    "lu_factor", "matrix_rank", "pinv", "qr", "solve", "solve_triangular", "svd"
]


def _check_matrices(op, *arrays, square=True) -> None:
    """Keras's checks of matrix operands: rank >= 2, and square when ``square``."""
    for a in arrays:
        if jnp.ndim(a) < 2:
            raise ValueError(f"ops.{op}: Expected input to have rank >= 2. Received input "
                             f"with shape {jnp.shape(a)}.")
        m, n = jnp.shape(a)[-2:]
        if square and m != n:
            raise ValueError(f"ops.{op}: Expected a square matrix. Received non-square input "
                             f"with shape {jnp.shape(a)}")


def _check_right_hand_side(op, a, b) -> None:
    """Keras's checks of ``b`` against ``a`` in ``a x = b``."""
    if jnp.ndim(b) < 1:
        raise ValueError(f"ops.{op}: Expected input to have rank >= 1. Received scalar input "
                         f"{b}.")
    if jnp.ndim(a) == jnp.ndim(b) and a.shape[-2] != b.shape[-2]:
        raise ValueError(f"ops.{op}: Incompatible shapes between `a` and `b`. Expected "
                         f"`a.shape[-2] == b.shape[-2]`. Received: a.shape={a.shape}, "
                         f"b.shape={b.shape}")
    if jnp.ndim(a) == jnp.ndim(b) + 1 and a.shape[-1] != b.shape[-1]:
        raise ValueError(f"ops.{op}: Incompatible shapes between `a` and `b`. Expected "
                         f"`a.shape[-1] == b.shape[-1]`. Received: a.shape={a.shape}, "
                         f"b.shape={b.shape}")


def _raise_on_nan(op, out, message):
    """Keras's eager check of a failed factorization (NaNs); traced values pass."""
    try:
        failed = bool(jnp.any(jnp.isnan(out)))
    except jax.errors.ConcretizationTypeError:  # traced: no value to check
        return out
    if failed:
        raise ValueError(f"ops.{op}: {message}")
    return out


@register_op("cholesky")
def cholesky(x, upper=False):
    """The Cholesky factor of a positive-definite ``x`` (lower, or upper if ``upper``); a
    matrix that is not positive definite is a ValueError."""
    _check_matrices("cholesky", x)
    return _raise_on_nan("cholesky", jnp.linalg.cholesky(x, upper=upper),
                         "Cholesky decomposition failed. The input might not be a valid "
                         "positive definite matrix.")


@register_op("cholesky_inverse")
def cholesky_inverse(x, upper=False):
    """The inverse of ``L @ L.T`` given its Cholesky factor ``x``."""
    _check_matrices("cholesky_inverse", x)
    identity = jnp.broadcast_to(jnp.eye(x.shape[-1], dtype=x.dtype), x.shape)
    return jax.scipy.linalg.cho_solve((x, not upper), identity)


@register_op("det")
def det(x):
    _check_matrices("det", x)
    return jnp.linalg.det(x)


@register_op("eig")
def eig(x):
    _check_matrices("eig", x)
    return jnp.linalg.eig(x)


@register_op("eigh")
def eigh(x):
    _check_matrices("eigh", x)
    return jnp.linalg.eigh(x)


@register_op("inv")
def inv(x):
    _check_matrices("inv", x)
    return jnp.linalg.inv(x)


@register_op("solve", tensors=2)
def solve(a, b):
    """``x`` with ``a @ x == b``; ``b`` one rank below ``a`` is a batch of vectors."""
    _check_matrices("solve", a)
    _check_right_hand_side("solve", a, b)
    if jnp.ndim(b) == jnp.ndim(a) - 1 and jnp.ndim(b) > 1:  # a batch of vectors
        return jnp.linalg.solve(a, b[..., None])[..., 0]
    return jnp.linalg.solve(a, b)


@register_op("logdet")
def logdet(x):
    """``log(det(x))`` of a positive-definite matrix."""
    return jnp.linalg.slogdet(x)[1]


@register_op("lstsq", tensors=2)
def lstsq(a, b, rcond=None):
    return jnp.linalg.lstsq(a, b, rcond=rcond)[0]


@register_op("lu_factor")
def lu_factor(x):
    return jax.scipy.linalg.lu_factor(x)


@register_op("matrix_rank")
def matrix_rank(x, tol=None):
    """The number of singular values of each matrix above ``tol`` (JAX's default threshold
    when None), as int32."""
    _check_matrices("matrix_rank", x, square=False)
    return jnp.linalg.matrix_rank(x, tol=tol).astype(jnp.int32)


@register_op("pinv")
def pinv(x, rcond=None):
    """The Moore-Penrose pseudoinverse; singular values up to ``rcond`` times the largest
    count as zero (JAX's default cutoff when None)."""
    _check_matrices("pinv", x, square=False)
    return jnp.linalg.pinv(x, rtol=rcond)


def _qr_spec(x, mode="reduced"):
    """Keras's checks of a symbolic ``qr`` input (rank >= 2, the matrix sizes known); the
    output is then traced."""
    if len(x.shape) < 2:
        raise ValueError(f"ops.qr: Input should have rank >= 2. Received: input.shape = "
                         f"{x.shape}")
    if None in tuple(x.shape[-2:]):
        raise ValueError("Input should have its last 2 dimensions fully-defined. Received: "
                         f"input.shape = {x.shape}")
    return None


@register_op("qr", check=lambda mode: _check_qr_mode(mode), spec=_qr_spec)
def qr(x, mode="reduced"):
    """``(q, r)`` of ``x``; ``mode`` is ``"reduced"`` or ``"complete"``."""
    if jnp.ndim(x) < 2:
        raise ValueError(f"ops.qr: Input should have rank >= 2. Received: input.shape = "
                         f"{jnp.shape(x)}")
    return jnp.linalg.qr(x, mode=mode)


def _check_qr_mode(mode) -> None:
    if mode not in ("reduced", "complete"):
        raise ValueError("`mode` argument value not supported. Expected one of {'reduced', "
                         f"'complete'}}. Received: mode={mode}")


@register_op("solve_triangular", tensors=2)
def solve_triangular(a, b, lower=False):
    _check_matrices("solve_triangular", a)
    _check_right_hand_side("solve_triangular", a, b)
    return jax.scipy.linalg.solve_triangular(a, b, lower=lower)


@register_op("svd")
def svd(x, full_matrices=True, compute_uv=True):
    _check_matrices("svd", x, square=False)
    return jnp.linalg.svd(x, full_matrices=full_matrices, compute_uv=compute_uv)


from kgraph.ops.control_flow import jvp  # noqa: E402,F401 - keras.ops.linalg.jvp
