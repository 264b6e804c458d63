"""Packing a train state's small arrays into one flat buffer per dtype.

Every array passed to or returned from a compiled step costs a few microseconds of
dispatch and buffer bookkeeping, whatever its size. A small model's train state has
dozens of tiny arrays (biases, optimizer moments, counters, metric totals), so that fixed
cost can exceed the step's arithmetic. A ``Packed`` train state concatenates the arrays of
at most ``max_leaf_size`` elements into one 1-D buffer per dtype; the compiled step
unpacks them (static slices, which XLA fuses into their consumers) and packs the updated
values again (one concatenation, into which XLA fuses the optimizer's element-wise
updates). Large arrays stay as they are, so no big weight is copied. The numbers are
unchanged: packing only moves bytes. ``fit`` always trains on a packed state; custom
loops opt in with ``Trainer.pack``.

>>> import jax.numpy as jnp
>>> tree = {"bias": jnp.zeros(3), "step": jnp.zeros((), jnp.int32), "w": jnp.ones((2, 2))}
>>> packed = Packing(tree).pack(tree)
>>> [b.shape for b in packed.buffers], len(packed.loose)  # 3 + 4 float32s; the int alone
([(7,)], 1)
>>> bool((packed.unpack()["w"] == 1).all())
True
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

__all__ = ["PACK_MAX_LEAF_SIZE", "Packed", "Packing", "signature"]


PACK_MAX_LEAF_SIZE = 4096  # elements; larger arrays stay separate (packing copies them)


def _packable(leaf, max_leaf_size) -> bool:
    """Small arrays of a plain dtype; weakly typed values (from Python scalars) and typed
    PRNG keys stay as they are, so unpacking gives back exactly what was packed."""
    dtype = jnp.result_type(leaf)
    return (np.size(leaf) <= max_leaf_size and not getattr(leaf, "weak_type", False)
            and not jax.dtypes.issubdtype(dtype, jax.dtypes.prng_key))


def signature(tree):
    """What a packing layout depends on: the tree structure, shapes and dtypes."""
    leaves, treedef = jax.tree_util.tree_flatten(tree)
    return treedef, tuple((np.shape(a), jnp.result_type(a), getattr(a, "weak_type", False))
                          for a in leaves)


class Packing:
    """A layout for packing trees shaped like ``tree``.

    ``pack(tree) -> Packed`` and ``unpack(packed) -> tree`` are pure and traceable (use
    them inside ``jit``); outside it, ``Packed.unpack`` runs one compiled call.
    """

    def __init__(self, tree, max_leaf_size: int | None = None, replicated_only: bool = False):
        max_leaf_size = PACK_MAX_LEAF_SIZE if max_leaf_size is None else max_leaf_size
        leaves, self.treedef = jax.tree_util.tree_flatten(tree)
        self.shapes = [np.shape(a) for a in leaves]
        by_dtype: dict = {}
        for i, leaf in enumerate(leaves):
            # On a mesh, only arrays every device holds whole share a buffer (replicated,
            # like the buffer); sharded ones stay loose, keeping their own shardings.
            if replicated_only and not getattr(getattr(leaf, "sharding", None),
                                               "is_fully_replicated", False):
                continue
            if _packable(leaf, max_leaf_size):
                by_dtype.setdefault(jnp.result_type(leaf), []).append(i)
        self.groups = [members for members in by_dtype.values() if len(members) > 1]
        grouped = {i for members in self.groups for i in members}
        self.loose = [i for i in range(len(leaves)) if i not in grouped]
        self.pack_jit = jax.jit(self.pack)
        self.unpack_jit = jax.jit(self.unpack)

    @property
    def packed_leaves(self) -> int:
        """How many arrays go into the buffers."""
        return sum(len(members) for members in self.groups)

    def pack(self, tree) -> Packed:
        leaves = self.treedef.flatten_up_to(tree)
        buffers = tuple(jnp.concatenate([jnp.ravel(leaves[i]) for i in members])
                        for members in self.groups)
        return Packed(buffers, tuple(leaves[i] for i in self.loose), self)

    def unpack(self, packed: Packed):
        leaves = [None] * len(self.shapes)
        for buffer, members in zip(packed.buffers, self.groups):
            offset = 0
            for i in members:
                size = int(np.prod(self.shapes[i], dtype=np.int64))
                piece = jax.lax.slice(buffer, (offset,), (offset + size,))
                leaves[i] = piece.reshape(self.shapes[i])
                offset += size
        for i, leaf in zip(self.loose, packed.loose):
            leaves[i] = leaf
        return jax.tree_util.tree_unflatten(self.treedef, leaves)


@jax.tree_util.register_pytree_node_class
class Packed:
    """A tree packed by a ``Packing``: a pytree of ``buffers`` and ``loose`` arrays.

    Attributes of the packed tree read through: ``packed.params`` is
    ``packed.unpack().params`` (outside ``jit`` one compiled call, whose result is kept).
    """

    def __init__(self, buffers, loose, packing: Packing):
        self.buffers, self.loose, self.packing = buffers, loose, packing
        self._unpacked = None

    def tree_flatten(self):
        return (self.buffers, self.loose), self.packing

    @classmethod
    def tree_unflatten(cls, packing, children):
        return cls(*children, packing)

    def unpack(self):
        """The tree that was packed."""
        if self._unpacked is None:
            self._unpacked = self.packing.unpack_jit(self)
        return self._unpacked

    def __getattr__(self, name):
        if name.startswith("_") or name in ("buffers", "loose", "packing"):
            raise AttributeError(name)
        return getattr(self.unpack(), name)

    def __repr__(self) -> str:
        sizes = ", ".join(f"{b.dtype}[{b.shape[0]}]" for b in self.buffers
                          if hasattr(b, "dtype"))
        return (f"Packed({self.packing.packed_leaves} arrays in buffers [{sizes}], "
                f"{len(self.loose)} loose)")
