"""FLOPs of a JAX function, counted from its jaxpr: matrix products and convolutions.

XLA's ``cost_analysis()`` counts a loop's body once, so a model whose repeated blocks run
as one ``lax.scan`` reports a fraction of its work there. Counting the jaxpr instead
multiplies a scan's body by its length, and sees what rematerialisation recomputes (in
the backward pass's jaxpr). Only contractions are counted (2 FLOPs per multiply-add):
they are what a TPU's matrix units run, and what MFU is measured against.

>>> import jax, jax.numpy as jnp
>>> a = jax.ShapeDtypeStruct((8, 16), jnp.float32)
>>> b = jax.ShapeDtypeStruct((16, 4), jnp.float32)
>>> count_flops(lambda a, b: a @ b, a, b)
1024
"""

from __future__ import annotations

import math

import jax
from jax.extend import core as jex_core

__all__ = ["count_flops", "jaxpr_flops"]


def _dot_flops(eqn) -> int:
    (contract, _), _ = eqn.params["dimension_numbers"]
    lhs = eqn.invars[0].aval.shape
    out = eqn.outvars[0].aval.shape
    return 2 * math.prod(out) * math.prod(lhs[d] for d in contract)


def _conv_flops(eqn) -> int:
    rhs = eqn.invars[1].aval.shape
    out_feature = eqn.params["dimension_numbers"].rhs_spec[0]
    out = eqn.outvars[0].aval.shape
    return 2 * math.prod(out) * (math.prod(rhs) // rhs[out_feature])


def _sub_jaxprs(value):
    if isinstance(value, jex_core.ClosedJaxpr):
        yield value.jaxpr
    elif isinstance(value, jex_core.Jaxpr):
        yield value
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from _sub_jaxprs(item)


def jaxpr_flops(jaxpr) -> int:
    """Contraction FLOPs of ``jaxpr`` (a ``Jaxpr`` or ``ClosedJaxpr``), loops unrolled."""
    if isinstance(jaxpr, jex_core.ClosedJaxpr):
        jaxpr = jaxpr.jaxpr
    total = 0
    for eqn in jaxpr.eqns:
        name = eqn.primitive.name
        if name == "dot_general":
            total += _dot_flops(eqn)
        elif name == "conv_general_dilated":
            total += _conv_flops(eqn)
        elif name == "cond":  # one branch runs: the costliest bounds it
            total += max(jaxpr_flops(b) for b in eqn.params["branches"])
        else:
            inner = sum(jaxpr_flops(j) for value in eqn.params.values()
                        for j in _sub_jaxprs(value))
            total += inner * (eqn.params["length"] if name == "scan" else 1)
    return total


def count_flops(fn, *args, **kwargs) -> int:
    """Contraction FLOPs of one call of ``fn`` on ``args`` (arrays or
    ``jax.ShapeDtypeStruct``s); nothing is computed."""
    return jaxpr_flops(jax.make_jaxpr(fn)(*args, **kwargs))
