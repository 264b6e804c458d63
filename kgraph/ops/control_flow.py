"""Keras's control-flow ops (``map``, ``scan``, ``associative_scan``, ``switch``, ``cond``,
``while_loop``, ``fori_loop``, ``vectorized_map``) and their op classes.

On arrays they run at once (``jax.lax``); given KerasTensors they become graph nodes whose
output KerasTensors come from tracing the Python function on the element specs (as
Keras's ``compute_output_spec``). The functions are not serialized with the node, except
``VectorizedMap``'s (a registered serializable function), as in Keras.

>>> import kgraph as kg
>>> Map()(lambda x: x * 2, kg.KerasTensor((None, 3))).shape
(None, 3)
>>> scan(lambda c, x: (c + x, c), kg.KerasTensor(()), kg.KerasTensor((6,)))[1].shape
(6,)
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from kgraph.base import catalog, shape_inference
from kgraph.graph.keras_tensor import KerasTensor
from kgraph.ops.registry import Operation, is_symbolic

__all__ = ["AssociativeScan", "Cond", "ForiLoop", "JVP", "Map", "Scan", "Switch",
           "VectorizedMap", "WhileLoop", "associative_scan", "cond", "fori_loop", "jvp", "map",
           "scan", "switch", "vectorized_map", "while_loop"]

_tree = jax.tree_util


def _spec(t):
    """A KerasTensor describing ``t`` (a KerasTensor, an array or a Python number)."""
    if isinstance(t, KerasTensor):
        return KerasTensor(t.shape, t.dtype)
    t = jnp.asarray(t)
    return KerasTensor(t.shape, t.dtype)


def _specs(tree):
    return _tree.tree_map(_spec, tree)


def _trace(fn, *args):
    """``fn(*args)``'s output KerasTensors (``args`` hold KerasTensors)."""
    return shape_inference.infer_function_spec(fn, args, {})


def _with_leading(n, tree):
    return _tree.tree_map(lambda t: KerasTensor((n, *t.shape), t.dtype), tree)


def _check_unroll(unroll):
    if not isinstance(unroll, bool) and (not isinstance(unroll, int) or unroll < 1):
        raise ValueError("`unroll` must be an positive integer or boolean. "
                         f"Received: unroll={unroll}")


class _ControlFlow(Operation):
    """Base of the control-flow op classes: their Python functions make each instance's
    shape inference its own (no cache shared between instances)."""

    def __init__(self, *, name=None):
        super().__init__(name=name)
        self._output_spec_cache = None

    def __call__(self, *args, **kwargs):
        if is_symbolic((args, kwargs)):  # a graph node
            return super().__call__(*args, **kwargs)
        return self.call(*args, **kwargs)  # arrays (and functions): computed at once

    def get_config(self):
        return {"name": self.name}


class Map(_ControlFlow):
    """``f`` over the leading axis of ``xs`` (a tree of arrays)."""

    def call(self, f, xs):
        return jax.lax.map(f, xs)

    def compute_output_spec(self, f, xs):
        xs = _specs(xs)
        n = _tree.tree_leaves(xs)[0].shape[0]
        element = _tree.tree_map(lambda t: KerasTensor(t.shape[1:], t.dtype), xs)
        return _with_leading(n, _trace(f, element))


def map(f, xs):  # noqa: A001 - keras.ops name
    """``f`` over the leading axis of ``xs`` (``jax.lax.map``)."""
    if is_symbolic(xs):
        return Map()(f, xs)
    return jax.lax.map(f, xs)


class Scan(_ControlFlow):
    """``jax.lax.scan`` with ``length``, ``reverse`` and ``unroll`` fixed."""

    def __init__(self, length=None, reverse=False, unroll=1, *, name=None):
        super().__init__(name=name)
        _check_unroll(unroll)
        self.length, self.reverse, self.unroll = length, reverse, unroll

    def call(self, f, init, xs=None):
        return jax.lax.scan(f, init, xs, length=self.length, reverse=self.reverse,
                            unroll=self.unroll)

    def compute_output_spec(self, f, init, xs=None):
        if xs is None:
            if self.length is None:
                raise ValueError("ops.scan: `xs` (the arrays to scan over) and `length` "
                                 "cannot both be None.")
            n, x = int(self.length), None
        else:
            xs = _specs(xs)
            n = self.length if self.length is not None else _tree.tree_leaves(xs)[0].shape[0]
            x = _tree.tree_map(lambda t: KerasTensor(t.shape[1:], t.dtype), xs)
        carry, y = _trace(f, _specs(init), x)
        return carry, _with_leading(n, y)

    def get_config(self):
        return {"name": self.name, "length": self.length, "reverse": self.reverse,
                "unroll": self.unroll}


def scan(f, init, xs=None, length=None, reverse=False, unroll=1):
    """``jax.lax.scan``: ``f(carry, x) -> (carry, y)`` over ``xs``'s leading axis."""
    _check_unroll(unroll)
    if is_symbolic((init, xs)):
        return Scan(length=length, reverse=reverse, unroll=unroll)(f, init, xs)
    return jax.lax.scan(f, init, xs, length=length, reverse=reverse, unroll=unroll)


class AssociativeScan(_ControlFlow):
    """``jax.lax.associative_scan`` with ``reverse`` and ``axis`` fixed."""

    def __init__(self, reverse=False, axis=0, *, name=None):
        super().__init__(name=name)
        self.reverse, self.axis = reverse, axis

    def call(self, f, elems):
        return jax.lax.associative_scan(f, elems, reverse=self.reverse, axis=self.axis)

    def compute_output_spec(self, f, elems):
        elems = _specs(elems)
        flat = _tree.tree_leaves(elems)
        lengths = {t.shape[self.axis] for t in flat}
        if len(lengths) != 1:
            raise ValueError("Array inputs to associative_scan must have the same first "
                             f"dimension. (saw: {[t.shape for t in flat]})")
        n = lengths.pop()

        def resized(t, size):
            shape = list(t.shape)
            shape[self.axis] = size
            return KerasTensor(tuple(shape), t.dtype)

        one = _tree.tree_map(lambda t: resized(t, 1), elems)
        return _tree.tree_map(lambda t: resized(t, n), _trace(f, one, one))

    def get_config(self):
        return {"name": self.name, "reverse": self.reverse, "axis": self.axis}


def associative_scan(f, elems, reverse=False, axis=0):
    """``jax.lax.associative_scan``: prefix results of an associative ``f``."""
    if is_symbolic(elems):
        return AssociativeScan(reverse=reverse, axis=axis)(f, elems)
    return jax.lax.associative_scan(f, elems, reverse=reverse, axis=axis)


class Switch(_ControlFlow):
    """``branches[index](*operands)``; the output spec is the first branch's."""

    def call(self, index, branches, *operands):
        return jax.lax.switch(index, branches, *operands)

    def compute_output_spec(self, index, branches, *operands):
        return _trace(branches[0], *_specs(operands))


def switch(index, branches, *operands):
    """``branches[index](*operands)`` (``jax.lax.switch``; ``index`` is clamped)."""
    if is_symbolic((index, operands)):
        return Switch()(index, branches, *operands)
    return jax.lax.switch(index, branches, *operands)


class Cond(_ControlFlow):
    """``true_fn()`` if ``pred`` else ``false_fn()``; symbolically, both branches must give
    outputs of the same structure, shapes and dtypes."""

    def call(self, pred, true_fn, false_fn):
        return jax.lax.cond(pred, true_fn, false_fn)

    def compute_output_spec(self, pred, true_fn, false_fn):
        true_spec, false_spec = _trace(true_fn), _trace(false_fn)
        if not self._check_output_spec(true_spec, false_spec):
            raise ValueError("`true_fn` and `false_fn` should return outputs of the same "
                             f"kind (struct, dtype and shape). Got {true_spec} and "
                             f"{false_spec} instead.")
        return true_spec

    def _check_output_spec(self, true_fn_spec, false_fn_spec):
        """Whether two output specs have the same structure, shapes and dtypes."""
        def leaves(spec):
            return _tree.tree_flatten(spec, is_leaf=lambda t: t is None or hasattr(t, "shape"))

        true_leaves, true_def = leaves(true_fn_spec)
        false_leaves, false_def = leaves(false_fn_spec)
        if true_def != false_def:
            return False
        for t, f in zip(true_leaves, false_leaves):
            if t is None or f is None:
                if not (t is None and f is None):
                    return False
            elif tuple(t.shape) != tuple(f.shape) or t.dtype != f.dtype:
                return False
        return True


def cond(pred, true_fn, false_fn):
    """``true_fn()`` if ``pred`` else ``false_fn()`` (``jax.lax.cond``)."""
    return Cond()(pred, true_fn, false_fn)


def _while(cond_fn, body, loop_vars, maximum_iterations):
    single = not isinstance(loop_vars, (tuple, list))
    state = (loop_vars,) if single else tuple(loop_vars)

    def as_tuple(value):
        return (value,) if single or not isinstance(value, (tuple, list)) else tuple(value)

    if maximum_iterations is None:
        final = jax.lax.while_loop(lambda s: cond_fn(*s), lambda s: as_tuple(body(*s)), state)
    else:
        def bounded_cond(s):
            return jnp.logical_and(s[0] < maximum_iterations, cond_fn(*s[1]))

        final = jax.lax.while_loop(bounded_cond,
                                   lambda s: (s[0] + 1, as_tuple(body(*s[1]))),
                                   (jnp.zeros((), jnp.int32), state))[1]
    return final[0] if single else type(loop_vars)(final)


class WhileLoop(_ControlFlow):
    """``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)``: the outputs have the
    loop variables' structure, shapes and dtypes."""

    def __init__(self, cond, body, maximum_iterations=None, *, name=None):
        super().__init__(name=name)
        self.cond, self.body, self.maximum_iterations = cond, body, maximum_iterations

    def call(self, loop_vars):
        return _while(self.cond, self.body, loop_vars, self.maximum_iterations)

    def compute_output_spec(self, loop_vars):
        return _specs(loop_vars)


def while_loop(cond, body, loop_vars, maximum_iterations=None):
    """Keras's ``while_loop``: ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)``
    (a tuple of loop variables in, the same structure out)."""
    if is_symbolic(loop_vars):
        return WhileLoop(cond, body, maximum_iterations)(loop_vars)
    return _while(cond, body, loop_vars, maximum_iterations)


class ForiLoop(_ControlFlow):
    """``body_fun(i, val)`` for ``i`` in ``[lower, upper)``; the output is like
    ``init_val``."""

    def __init__(self, lower, upper, body_fun, *, name=None):
        super().__init__(name=name)
        self.lower, self.upper, self.body_fun = lower, upper, body_fun

    def call(self, init_val):
        return jax.lax.fori_loop(self.lower, self.upper, self.body_fun, init_val)

    def compute_output_spec(self, init_val):
        return _specs(init_val)


def fori_loop(lower, upper, body_fun, init_val):
    """``body_fun(i, val)`` for ``i`` in ``[lower, upper)``."""
    if is_symbolic((lower, upper, init_val)):
        return ForiLoop(lower, upper, body_fun)(init_val)
    return jax.lax.fori_loop(lower, upper, body_fun, init_val)


class VectorizedMap(_ControlFlow):
    """``function`` over the leading axis of ``elements`` (``jax.vmap``); its config holds
    the function (a registered serializable function survives a config round trip)."""

    def __init__(self, function, *, name=None):
        super().__init__(name=name)
        self.function = function

    def call(self, elements):
        return jax.vmap(self.function)(elements)

    def compute_output_spec(self, elements):
        elements = _specs(elements)
        n = _tree.tree_leaves(elements)[0].shape[0]
        element = _tree.tree_map(lambda t: KerasTensor(t.shape[1:], t.dtype), elements)
        return _with_leading(n, _trace(self.function, element))

    def get_config(self):
        # the saving layer's operation form: {"name", "op", "kwargs"}; the function as
        # Keras's config entry of a function (found back if registered)
        return {"name": self.name, "op": "vectorized_map",
                "kwargs": {"function": catalog.function_entry(self.function)}}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config.pop("op", None)
        function = config.pop("kwargs", {}).get("function", config.pop("function", None))
        if isinstance(function, dict):
            entry = function
            function = catalog.get_registered_object(entry.get("config"))
            if function is None:
                raise ValueError("VectorizedMap.from_config: the function "
                                 f"{entry.get('config')!r} is not registered; register it "
                                 "with kg.saving.register_keras_serializable.")
        if not callable(function):
            raise ValueError("VectorizedMap.from_config expects a function (or its config "
                             f"entry); received {function!r}.")
        return cls(function, **config)


def vectorized_map(function, elements):
    """``function`` over the leading axis of ``elements`` (``jax.vmap``)."""
    if is_symbolic(elements):
        return VectorizedMap(function)(elements)
    return jax.vmap(function)(elements)


class JVP(_ControlFlow):
    """``jax.jvp`` of ``fun``: ``(primals_out, tangents_out)`` (and ``aux`` with
    ``has_aux``); the tangents' outputs are like the primals'."""

    def __init__(self, has_aux=False, *, name=None):
        super().__init__(name=name)
        self.has_aux = has_aux

    def call(self, fun, primals, tangents):
        return jax.jvp(fun, tuple(primals), tuple(tangents), has_aux=self.has_aux)

    def compute_output_spec(self, fun, primals, tangents):
        out = _trace(fun, *_specs(tuple(primals)))
        if self.has_aux:
            out, aux = out
            return out, _specs(out), aux
        return out, _specs(out)


def jvp(fun, primals, tangents, has_aux=False):
    """``jax.jvp``: ``fun``'s outputs at ``primals`` and their derivative along
    ``tangents`` (a graph node on KerasTensors)."""
    if is_symbolic((primals, tangents)):
        return JVP(has_aux=has_aux)(fun, primals, tangents)
    return jax.jvp(fun, tuple(primals), tuple(tangents), has_aux=has_aux)
