"""The training step's arguments from shapes alone: an abstract train state and batch.

A Trainer on a mesh over devices that need not be attached (a TPU topology's) describes
its train state as ``jax.ShapeDtypeStruct``s carrying each array's sharding: weights
from ``Program.init``'s shapes, the optimizer state from ``init_opt_state``'s, the
running metrics ``fit`` keeps, all through ``jax.eval_shape``. No value is made.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from runtime import packing as packing_lib

__all__ = ["abstract_batch", "abstract_train_state", "bytes_per_device", "is_shape", "packed"]


def _with_sharding(abstract, sharding):
    return jax.ShapeDtypeStruct(abstract.shape, abstract.dtype, sharding=sharding)


def abstract_train_state(trainer, key=None):
    """``trainer``'s train state as fit holds it (running metrics included), each leaf a
    ``ShapeDtypeStruct`` with its sharding on the trainer's mesh."""
    key = jax.random.PRNGKey(0) if key is None else key
    stacked = trainer.stack_blocks
    params, state = jax.eval_shape(lambda k: trainer.program.init(k, stacked=stacked), key)
    abstract = jax.eval_shape(
        lambda p, s, k: trainer.reset_metrics(trainer._train_state(p, s, k, copy=False)),
        params, state, key)
    shardings = trainer.placement.train_state_shardings(abstract)
    return jax.tree_util.tree_map(_with_sharding, abstract, shardings)


def packed(trainer, train_state):
    """Abstract ``train_state`` packed as ``fit`` packs its train state
    (``Trainer.pack``: small replicated arrays in one buffer per dtype)."""
    layout = packing_lib.Packing(train_state,
                                 replicated_only=trainer.placement.replicated_only)
    leaves = layout.treedef.flatten_up_to(train_state)
    replicated = getattr(trainer.placement, "replicated", None)
    buffers = tuple(
        jax.ShapeDtypeStruct((sum(int(np.prod(leaves[i].shape)) for i in members),),
                             leaves[members[0]].dtype, sharding=replicated)
        for members in layout.groups)
    return packing_lib.Packed(buffers, tuple(leaves[i] for i in layout.loose), layout)


def _leaf(value, dtype_hint=None):
    if isinstance(value, jax.ShapeDtypeStruct):
        return value
    if isinstance(value, tuple) and all(isinstance(d, (int, np.integer)) for d in value):
        return jax.ShapeDtypeStruct(value, dtype_hint or jnp.float32)
    return jax.ShapeDtypeStruct(np.shape(value), jnp.result_type(value))


def _input_dtypes(model, x):
    """The model's Input dtypes laid out like ``x`` (None where unknown)."""
    inputs = getattr(model, "inputs", None) or []
    dtypes = [getattr(t, "dtype", None) for t in inputs]
    if isinstance(x, dict):
        names = [getattr(t, "name", None) for t in inputs]
        return {k: (dtypes[names.index(k)] if k in names else None) for k in x}
    if isinstance(x, (list, tuple)) and not is_shape(x):
        return [dtypes[i] if i < len(dtypes) else None for i in range(len(x))]
    return dtypes[0] if dtypes else None


def is_shape(value) -> bool:
    """Whether ``value`` is a shape tuple of a batch (``None`` rows: left to a search)."""
    return isinstance(value, tuple) and all(d is None or isinstance(d, (int, np.integer))
                                            for d in value)


def _shapes(tree, hints):
    if is_shape(tree) or not isinstance(tree, (dict, list, tuple)):
        return _leaf(tree, hints)
    if isinstance(tree, dict):
        return {k: _shapes(v, (hints or {}).get(k) if isinstance(hints, dict) else None)
                for k, v in tree.items()}
    hints = hints if isinstance(hints, list) else [None] * len(tree)
    return type(tree)(_shapes(v, h) for v, h in zip(tree, hints))


def abstract_batch(trainer, batch):
    """``batch`` = ``(x, y)`` or ``(x, y, sample_weight)`` (arrays, ``ShapeDtypeStruct``s
    or shape tuples: ``x``'s take the model's Input dtypes, others float32) as fit's
    per-step batch ``(x, y, sample_weight, valid)`` stacked for one step, split over the
    mesh's data axis."""
    if not isinstance(batch, (tuple, list)) or len(batch) not in (2, 3) or is_shape(batch):
        raise ValueError("batch must be (x, y) or (x, y, sample_weight): shapes "
                         "(e.g. ((256, 2048), (256, 2048))), ShapeDtypeStructs or arrays; "
                         f"received {batch!r}.")
    x, y, *rest = batch
    sample_weight = rest[0] if rest else None
    x = _shapes(x, _input_dtypes(trainer.model, x))
    y = _shapes(y, None)
    sample_weight = None if sample_weight is None else _shapes(sample_weight, None)
    rows = jax.tree_util.tree_leaves(x)[0].shape[0]
    valid = jax.ShapeDtypeStruct((rows,), jnp.float32)
    placement = trainer.placement

    def placed(leaf):
        sharding = placement.batch_sharding(leaf)
        spec = jax.sharding.PartitionSpec(None, *sharding.spec)
        return jax.ShapeDtypeStruct((1, *leaf.shape), leaf.dtype,
                                    sharding=jax.sharding.NamedSharding(sharding.mesh, spec))

    return jax.tree_util.tree_map(placed, (x, y, sample_weight, valid))


def bytes_per_device(tree) -> int:
    """The bytes one device holds of ``tree``'s sharded ``ShapeDtypeStruct``s."""
    total = 0
    for leaf in jax.tree_util.tree_leaves(tree):
        shape = leaf.sharding.shard_shape(leaf.shape) if leaf.sharding is not None else leaf.shape
        total += int(np.prod(shape)) * jnp.dtype(leaf.dtype).itemsize
    return total
