"""What a traced computation is, as a value two traces can be compared by.

Two functions compute the same thing on every input when their jaxprs are the same
program over the same constants. The text of a jaxpr shows the program but not the
values of its array constants (a NumPy table a layer holds prints as a constant
variable), nor which rules its custom derivatives follow. ``identity`` adds both:

- the jaxpr's text (operations, shapes, dtypes, parameters, scalar literals, nested
  jaxprs) and the structure of the traced function's output;
- a digest of the bytes, dtype and shape of every array constant, at every nesting level;
- for ``custom_vjp`` rules, which JAX also wraps afresh in every trace, the trace of the
  forward rule and the backward rule's own function (by identity) with the static
  arguments bound to it (``nondiff_argnums``);
- for ``custom_jvp`` rules (``jax.nn.relu`` has one), whose rule JAX wraps afresh in every
  trace, the trace of the function's JVP, where the rules are inlined as operations:
  equal JVP traces are equal rules (to first order).

>>> import jax, jax.numpy as jnp, numpy as np
>>> def scaled(table):
...     return lambda x: jax.nn.relu(x) * table
>>> spec = jax.ShapeDtypeStruct((3,), jnp.float32)
>>> a, b = np.arange(3.0, dtype=np.float32), np.arange(3.0, dtype=np.float32)
>>> identity(scaled(a), spec)[0] == identity(scaled(b), spec)[0]
True
>>> identity(scaled(a), spec)[0] == identity(scaled(a + 1), spec)[0]
False
"""

from __future__ import annotations

import functools
import hashlib

import jax
import jax.numpy as jnp
import numpy as np
from jax.extend import core as jex_core

__all__ = ["convolves", "identity"]


def _digest(array) -> tuple:
    array = np.asarray(array)
    return (str(array.dtype), array.shape, hashlib.sha256(array.tobytes()).hexdigest())


def _is_array(value) -> bool:
    return isinstance(value, (np.ndarray, np.generic, jax.Array))


class _Found:
    """What a walk over a jaxpr collects besides its text."""

    def __init__(self, in_forward_rule: bool = False):
        self.items: list = []
        self.custom_jvp = False
        self.in_forward_rule = in_forward_rule


def _walk_param(value, found: _Found) -> None:
    if isinstance(value, jex_core.ClosedJaxpr):
        found.items.extend(_digest(c) if _is_array(c) else ("const", repr(c))
                           for c in value.consts)
        _walk_jaxpr(value.jaxpr, found)
    elif isinstance(value, jex_core.Jaxpr):
        _walk_jaxpr(value, found)
    elif isinstance(value, (tuple, list)):
        for item in value:
            _walk_param(item, found)
    elif isinstance(value, dict):
        for name in sorted(value, key=repr):
            _walk_param(value[name], found)
    elif _is_array(value):
        found.items.append(_digest(value))
    elif _is_function(value):
        found.items.append(_function_key(value))


def _is_function(value) -> bool:
    return (callable(value) and not isinstance(value, type)) or hasattr(value, "call_wrapped")


def _function_key(fn):
    """A custom derivative rule (``fwd``, ``bwd``): the function itself, compared by
    identity (a rule made afresh for each trace never compares equal: safe, if then not
    merged)."""
    if isinstance(fn, functools.partial):
        found = _Found()
        _walk_param(list(fn.args) + [fn.keywords[k] for k in sorted(fn.keywords)], found)
        return ("partial", _function_key(fn.func), tuple(sorted(fn.keywords)),
                tuple(found.items))
    if hasattr(fn, "call_wrapped"):  # a JAX WrappedFun: the function it wraps
        return ("wrapped", _function_key(fn.f))
    return ("function", fn)


def _custom_vjp_key(eqn, in_forward_rule: bool = False) -> tuple:
    """A ``custom_vjp``'s rules: its forward rule traced on the call's inputs, and its
    backward rule's function with what is bound to it (the rules' wrappers JAX makes for
    each trace left out); a fresh object, equal to nothing, where they cannot be read.
    Inside a forward rule's trace (which often calls the function itself), a nested
    ``custom_vjp`` is keyed by its backward rule alone."""
    try:
        params = eqn.params
        key = ["custom_vjp", _function_key(params["bwd"].f)]
        bound = _Found()
        for _, args in params["bwd"].transforms:
            _walk_bound(args, bound)
        key.append(tuple(bound.items))
        if not in_forward_rule:
            inputs = len(eqn.invars) - params["num_consts"]
            forward, consts = params["fwd_jaxpr_thunk"].call_wrapped(*([False] * inputs))
            found = _Found(in_forward_rule=True)
            _walk_jaxpr(forward, found)
            key += [str(forward), tuple(found.items),
                    tuple(_digest(c) if _is_array(c) else repr(c) for c in consts)]
        return tuple(key)
    except Exception:  # noqa: BLE001 - another JAX's internals: never merged, still correct
        return ("custom_vjp", object())


def _walk_bound(value, found: _Found) -> None:
    """The arguments JAX binds to a backward rule: tree structures, shapes and the static
    arguments (held in ``Unhashable`` boxes); its own per-trace functions left out."""
    if isinstance(value, (tuple, list)):
        for item in value:
            _walk_bound(item, found)
    elif hasattr(value, "val") and type(value).__name__ == "Unhashable":
        found.items.append(("static", repr(value.val)))
    elif _is_array(value):
        found.items.append(_digest(value))
    elif not _is_function(value):
        found.items.append(repr(value))


def _walk_jaxpr(jaxpr, found: _Found) -> None:
    for eqn in jaxpr.eqns:
        for var in eqn.invars:
            if isinstance(var, jex_core.Literal) and np.ndim(var.val):
                found.items.append(_digest(var.val))
        if eqn.primitive.name == "custom_vjp_call":
            found.items.append(_custom_vjp_key(eqn, found.in_forward_rule))
            _walk_param(eqn.params["call_jaxpr"], found)
            continue
        custom_jvp = eqn.primitive.name == "custom_jvp_call"
        found.custom_jvp |= custom_jvp
        for name in sorted(eqn.params):
            value = eqn.params[name]
            if custom_jvp and _is_function(value):
                continue  # the rule: compared through the JVP's trace (see ``identity``)
            _walk_param(value, found)


def _fingerprint(closed_jaxpr, out_shapes) -> tuple[tuple, bool]:
    found = _Found()
    _walk_param(closed_jaxpr, found)
    return ((str(closed_jaxpr), jax.tree_util.tree_structure(out_shapes), tuple(found.items)),
            found.custom_jvp)


def convolves(computation) -> bool:
    """Whether ``computation`` (a closed jaxpr, or what an ``identity`` names) runs a
    convolution, nested jaxprs included. XLA:CPU runs convolutions, and their gradients,
    inside a while loop in a slow layout (10x and more), so loops over steps or blocks
    that convolve are unrolled there."""
    if isinstance(computation, tuple):  # an identity: its jaxprs' texts
        return any(convolves(part) for part in computation if isinstance(part, (tuple, str)))
    return "conv_general_dilated" in str(computation)


def _tangent_spec(spec):
    if jnp.issubdtype(spec.dtype, jnp.inexact):
        return spec
    return jax.ShapeDtypeStruct(spec.shape, jax.dtypes.float0)


def identity(fn, *specs):
    """``(identity, output)``: a value equal for two functions exactly when they are the
    same computation on arguments of these ``jax.ShapeDtypeStruct``s (see the module
    docstring), and ``fn``'s output as shapes and dtypes."""
    closed, out_shapes = jax.make_jaxpr(fn, return_shape=True)(*specs)
    primal, custom_jvp = _fingerprint(closed, out_shapes)
    if not custom_jvp:
        return primal, out_shapes
    tangents = jax.tree_util.tree_map(_tangent_spec, specs)
    jvp_closed, jvp_shapes = jax.make_jaxpr(
        lambda primals, tangents: jax.jvp(fn, primals, tangents), return_shape=True)(
        specs, tangents)
    return (primal, _fingerprint(jvp_closed, jvp_shapes)[0]), out_shapes
