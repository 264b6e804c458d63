"""Initial values of many weights drawn in one compiled call.

A weight's initial value is ``variable.initial_value(fold_in(key, stable_hash(path)))``: it
depends only on the key and the weight's path. Drawn one weight at a time, each random op of
each weight is a separate dispatch (and a separate XLA compile for each new shape), which
makes a deep model's first ``program.init`` or eager call take seconds. ``draw`` instead
stacks the weights that share a built-in initializer, shape and dtype (``vmap``), and draws
all of them in one jitted function per *layout* (those groups, in order), cached: a model
initialises in one dispatch, and ``program.init`` and the model's first eager call, which
have the same layout, compile it once. Each value is bitwise that of a jitted call for its
weight alone. (Inside a compiled function XLA contracts ``a * b + c`` into a fused
multiply-add, so initializers that scale and shift, such as ``RandomNormal`` and
``RandomUniform``, can differ in the last bits from an op-by-op eager call.) Weights with
other initializers (user callables, arrays) are drawn one at a time.

>>> import jax, kgraph as kg
>>> layers = [kg.layers.Dense(4, name=f"d{i}") for i in range(3)]
>>> for layer in layers:
...     layer.build((None, 4))
>>> weights = [w for layer in layers for w in layer.weights]
>>> values = draw(weights, jax.random.PRNGKey(0), [w.path for w in weights])
>>> [v.shape for v in values[:2]]
[(4, 4), (4,)]
"""

from __future__ import annotations

import functools
import math
import os
from typing import NamedTuple

import jax
import numpy as np

from kgraph import initializers
from kgraph.base import seed_stream
from kgraph.interpreter import context

__all__ = [
    "FAST_COMPILE", "FAST_COMPILE_MAX_SIZE", "draw", "draw_placed", "draw_placed_stacked",
    "materialize", "unstack"
]


# Init functions run once, so on CPU they are compiled for compile speed (LLVM -O1, no
# fusion emitters: 2-3x faster to compile, bitwise the same values, up to 2x slower to run)
# unless they draw more numbers than this.
FAST_COMPILE_MAX_SIZE = 1 << 24
FAST_COMPILE = {"xla_backend_optimization_level": 1, "xla_cpu_use_fusion_emitters": False,
                "xla_cpu_parallel_codegen_split_count": 1}
# A level the process asks for itself (XLA_FLAGS) is kept: its other programs compile at
# it, and a weight drawn alone there is bitwise the batched draw.
FAST_COMPILE = {name: value for name, value in FAST_COMPILE.items()
                if f"--{name}=" not in os.environ.get("XLA_FLAGS", "")}


class _Plan(NamedTuple):
    layout: tuple   # ((initializer, shape, dtype, count), ...) of the batched groups
    order: list     # variable indices: each group's in turn, then the others'
    hashes: np.ndarray  # stable_hash of each path, in ``order``


def _plan(variables, paths) -> _Plan:
    groups: dict = {}
    others = []
    for i, variable in enumerate(variables):
        init = variable.initializer
        if initializers.is_builtin(init):
            groups.setdefault((init, variable.shape, variable.dtype), []).append(i)
        else:
            others.append(i)
    # Groups in a canonical order: the same weights listed in another order (a model's
    # ``weights`` vs its pytree paths) have the same layout, so share the compiled function.
    kinds = sorted(groups, key=lambda kind: (type(kind[0]).__name__, repr(kind[0]), kind[1],
                                             kind[2].name))
    layout = tuple((*kind, len(groups[kind])) for kind in kinds)
    order = [i for kind in kinds for i in groups[kind]] + others
    hashes = np.asarray([context.stable_hash(paths[i]) for i in order], np.uint32)
    return _Plan(layout, order, hashes)


def _value(initializer, shape, dtype, key):
    """What ``Variable.initial_value`` computes."""
    return jax.numpy.asarray(initializer(key, shape, dtype), dtype)


def _draw_layout(layout, key, hashes):
    """Per group: its values (stacked if more than one); then the others' keys."""
    keys = jax.vmap(jax.random.fold_in, in_axes=(None, 0))(key, hashes)
    values, start = [], 0
    for initializer, shape, dtype, count in layout:
        group = keys[start:start + count]
        if count == 1:
            values.append(_value(initializer, shape, dtype, group[0]))
        else:
            values.append(jax.vmap(functools.partial(_value, initializer, shape, dtype))(group))
        start += count
    return tuple(values), keys[start:]


class _LayoutFunction:
    """``_draw_layout`` for one layout, jitted; at top level on CPU compiled for speed."""

    def __init__(self, layout):
        self.jitted = jax.jit(functools.partial(_draw_layout, layout))
        size = sum(count * math.prod(shape) for _, shape, _, count in layout)
        self.fast = jax.default_backend() == "cpu" and size <= FAST_COMPILE_MAX_SIZE
        self.executables = {}

    def __call__(self, key, hashes):
        if not self.fast or isinstance(key, jax.core.Tracer):
            return self.jitted(key, hashes)  # inside a trace: inlined into the caller's
        # Compiler options only apply to a top-level compile, hence ahead of time. An
        # executable runs eagerly, even called inside a trace (a closed-over key).
        signature = (key.shape, key.dtype, hashes.shape)
        executable = self.executables.get(signature)
        if executable is None:
            executable = self.jitted.lower(key, hashes).compile(FAST_COMPILE)
            self.executables[signature] = executable
        return executable(key, hashes)


@functools.lru_cache(maxsize=64)
def _layout_function(layout) -> _LayoutFunction:
    return _LayoutFunction(layout)


def unstack(stacked, count) -> list:
    """``list(stacked)`` without compiling an N-output split: an array on one CPU device
    through NumPy (uncommitted, on the default device); otherwise by indexing (a sharded
    array's slices keep its sharding)."""
    devices = () if isinstance(stacked, jax.core.Tracer) else stacked.sharding.device_set
    if len(devices) == 1 and next(iter(devices)).platform == "cpu":
        return jax.device_put(list(np.asarray(stacked)))
    return [stacked[i] for i in range(count)]


def draw(variables, key, paths) -> list:
    """The initial value of each of ``variables``, its key folded from ``key`` and its path.

    Bitwise ``jax.jit(v.initial_value)(jax.random.fold_in(key, stable_hash(p)))`` for each
    variable ``v`` and path ``p``. Works under ``jit`` and ``vmap`` (``key`` may be traced).
    Each value depends only on ``key``, the path and the variable's initializer, shape and
    dtype, never on the other variables.
    """
    plan = _plan(variables, paths)
    groups, other_keys = _layout_function(plan.layout)(key, plan.hashes)
    drawn = []
    for (_, _, _, count), value in zip(plan.layout, groups):
        drawn.extend([value] if count == 1 else unstack(value, count))
    for i, index in enumerate(plan.order[len(drawn):]):
        drawn.append(variables[index].initial_value(other_keys[i]))
    values = [None] * len(variables)
    for i, value in zip(plan.order, drawn):
        values[i] = value
    return values


@functools.lru_cache(maxsize=256)
def _placed_function(initializer, shape, dtype, sharding):
    return jax.jit(functools.partial(_value, initializer, shape, dtype),
                   out_shardings=sharding)


def draw_placed(variable, key, path, sharding):
    """``variable``'s initial value (bitwise as ``draw``) created directly with
    ``sharding``: with kgraph's initializers each device computes only its own shard, so no
    whole weight is materialised on one device or on the host (those that need the whole
    matrix, ``Orthogonal``, compute it on every device). One compile per initializer,
    shape, dtype and sharding (a deep stack of equal layers compiles once). Other
    initializers are drawn whole, then placed."""
    key = jax.random.fold_in(key, context.stable_hash(path))
    init = variable.initializer
    if initializers.is_builtin(init):
        return _placed_function(init, tuple(variable.shape), variable.dtype, sharding)(key)
    # Another initializer is drawn as ``draw`` draws it (whole, eagerly), then placed.
    return jax.device_put(variable.initial_value(key), sharding)


@functools.lru_cache(maxsize=64)
def _zeros_function(shape, dtype, sharding):
    return jax.jit(lambda: jax.numpy.zeros(shape, dtype), out_shardings=sharding)


@functools.lru_cache(maxsize=256)
def _write_block_function(initializer, shape, dtype, sharding):
    """``buffer`` with block ``index`` drawn from ``key`` (in place: ``buffer`` is
    donated); ``initializer`` None: the block's value is given."""
    def write(buffer, key_or_value, index):
        value = (key_or_value if initializer is None
                 else _value(initializer, shape, dtype, key_or_value))
        return jax.lax.dynamic_update_index_in_dim(buffer, value.astype(dtype), index, 0)

    return jax.jit(write, donate_argnums=0, out_shardings=sharding)


def draw_placed_stacked(variables, key, paths, sharding):
    """The initial values of ``variables`` (one weight of each of a run of identical
    blocks) stacked on a new leading axis, created directly with ``sharding``: bitwise
    ``stack([draw_placed(v, key, p, ...)])``. The stacked array is allocated once and
    each block is drawn into it in place (with kgraph's initializers, each device draws
    only its own part), so the host and the devices never hold more than it and one
    block's weight."""
    first = variables[0]
    stacked_shape = (len(variables), *first.shape)
    buffer = _zeros_function(stacked_shape, first.dtype, sharding)()
    for index, (variable, path) in enumerate(zip(variables, paths)):
        block_key = jax.random.fold_in(key, context.stable_hash(path))
        init = variable.initializer
        if initializers.is_builtin(init):
            write = _write_block_function(init, tuple(variable.shape), variable.dtype, sharding)
            buffer = write(buffer, block_key, index)
        else:  # drawn whole, as ``draw`` draws it, then written in
            write = _write_block_function(None, tuple(variable.shape), variable.dtype, sharding)
            buffer = write(buffer, variable.initial_value(block_key), index)
    return buffer


def materialize(variables) -> None:
    """Give each of ``variables`` that has no stored value its eager initial value.

    As in Keras, eager values come from the global seed stream (``kgraph.random``): each
    batch takes the stream's next key, folded with each weight's place in the batch (not
    its layer's name, which a model may still change), so two models built one after the
    other differ, and ``set_random_seed(s)`` makes the whole sequence reproducible.
    (``program.init(key)`` depends on the key alone.) All are drawn in one batch, as on a
    first read of ``Variable.value``; concrete even when called inside a trace.
    """
    pending = list({id(v): v for v in variables if v._value is None}.values())
    if not pending:
        return
    paths = [f"{index}:{v.name}" for index, v in enumerate(pending)]
    key = seed_stream.next_key()
    values = draw(pending, key, paths)
    if any(isinstance(value, jax.core.Tracer) for value in values):
        # Inside a trace: draw again eagerly. (Not always: under ensure_compile_time_eval
        # a jitted function misses its cache, so it would be traced and compiled again.)
        with jax.ensure_compile_time_eval():
            values = draw(pending, key, paths)
    for variable, value in zip(pending, values):
        variable._value = value
