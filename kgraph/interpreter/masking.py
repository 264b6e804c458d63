"""Keras masks in graph runs: which mask arguments a node's layer receives, and which mask
its ``compute_mask`` sees.

A mask travels with the tensor it describes (``Embedding(mask_zero=True)`` or ``Masking``
make one; ``compute_mask`` passes it on). When a node runs, the masks of its tensor
arguments (``kgraph.base.call_args``) reach ``call`` as Keras 3 delivers them:

* a call with one tensor argument gets its mask (in the argument's structure, e.g.
  ``[query_mask, value_mask]`` for ``Attention([q, v])``) as ``mask=``;
* a call with several gets, for each tensor argument ``x``, its mask as ``x_mask=``
  when ``call`` has such a parameter (``MultiHeadAttention``'s ``query_mask``,
  ``value_mask``, ``key_mask``), and the first argument's mask as ``mask=`` when
  ``call`` has a ``mask`` parameter.

A mask argument given explicitly (not None) is left alone. ``compute_mask(first_argument,
mask)`` then sees the ``mask=`` argument if there is one, else the first argument's mask.

Difference from Keras 3: with several tensor arguments Keras leaves ``mask=`` unset, so
``LSTM(...)(x, initial_state=s)`` would ignore the padding of ``x``; here ``mask=`` gets
the first argument's mask.

>>> import kgraph as kg
>>> tokens = kg.Input(shape=(6,), dtype="int32")
>>> v = kg.layers.Embedding(10, 8, mask_zero=True)(tokens)   # masked where tokens == 0
>>> q = kg.Input(shape=(3, 8))
>>> out = kg.layers.MultiHeadAttention(num_heads=2, key_dim=4)(q, v)  # gets value_mask
>>> out.shape
(None, 3, 8)
"""

from __future__ import annotations

import weakref

import jax

from kgraph.base import call_args
from kgraph.graph.keras_tensor import KerasTensor

__all__ = ["attach_mask", "attached_mask_arguments", "get_keras_mask", "mask_arguments",
           "set_keras_mask"]

# Masks of tensors that take no attributes (tracers, KerasTensors), by id while they live.
_MASKS_BY_ID: dict = {}


def set_keras_mask(x, mask) -> None:
    """Attach ``mask`` to the tensor ``x`` as its Keras mask (``x._keras_mask``, or, for a
    tensor that takes no attributes, a table entry that lives as long as ``x``); ``None``
    clears it. Keras's ``keras.src.backend.set_keras_mask``."""
    try:
        x._keras_mask = mask
        return
    except AttributeError:
        pass
    if mask is None:
        _MASKS_BY_ID.pop(id(x), None)
        return
    if id(x) not in _MASKS_BY_ID:  # the entry goes when x does (one finalizer per tensor)
        try:
            weakref.finalize(x, _MASKS_BY_ID.pop, id(x), None)
        except TypeError:  # a Python number: nothing to attach a mask to
            return
    _MASKS_BY_ID[id(x)] = mask


def get_keras_mask(x):
    """The Keras mask attached to the tensor ``x`` (``set_keras_mask``), or None. Keras's
    ``keras.src.backend.get_keras_mask``.

    >>> import numpy as np
    >>> import kgraph as kg
    >>> get_keras_mask(kg.layers.Embedding(5, 2, mask_zero=True)(np.array([[3, 0]]))).tolist()
    [[True, False]]
    """
    try:
        return x._keras_mask
    except AttributeError:
        return _MASKS_BY_ID.get(id(x))


def _any(mask) -> bool:
    return any(m is not None for m in jax.tree_util.tree_leaves(mask))


def _tensor_arguments(node) -> dict:
    """The node's tensor arguments by name (computed once per node)."""
    if node._tensor_args is None:
        node._tensor_args = call_args.tensor_arguments(type(node.layer), node.call_args,
                                                       node.call_kwargs)
    return node._tensor_args


def mask_arguments(node, kwargs, input_masks):
    """``(mask_kwargs, previous_mask)`` for running ``node``.

    ``input_masks`` lists the masks of ``node._keras_inputs`` (None where unmasked);
    ``kwargs`` are the call's keyword arguments. ``mask_kwargs`` are the mask arguments to
    add; ``previous_mask`` is the mask ``compute_mask`` receives.
    """
    by_id = {id(t): m for t, m in zip(node._keras_inputs, input_masks or ()) if m is not None}
    if not by_id:
        return _arguments(type(node.layer), node.call_args, node.call_kwargs, kwargs,
                          lambda: {}, lambda leaf: None)
    return _arguments(type(node.layer), node.call_args, node.call_kwargs, kwargs,
                      lambda: _tensor_arguments(node),
                      lambda t: by_id.get(id(t)) if isinstance(t, KerasTensor) else None)


def attached_mask_arguments(layer, args, kwargs):
    """``(mask_kwargs, previous_mask)`` for an eager call of ``layer`` on arrays, from the
    masks attached to them (``array._keras_mask``, as Keras attaches them)."""
    if not any(get_keras_mask(leaf) is not None
               for leaf in jax.tree_util.tree_leaves((args, kwargs))):
        return {}, kwargs.get("mask")
    cls = type(layer)
    return _arguments(cls, args, kwargs, kwargs,
                      lambda: call_args.tensor_arguments(cls, args, kwargs),
                      get_keras_mask)


def attach_mask(outputs, mask) -> None:
    """Attach ``mask`` (in the outputs' structure, or one for all) to eager outputs as
    ``_keras_mask`` (``set_keras_mask``)."""
    if mask is None:
        return
    flat = jax.tree_util.tree_leaves(outputs)
    masks = [mask] * len(flat) if not isinstance(mask, (list, tuple, dict)) else (
        jax.tree_util.tree_leaves(mask, is_leaf=lambda m: m is None))
    for output, one in zip(flat, masks):
        if one is not None and get_keras_mask(output) is None:
            set_keras_mask(output, one)


def _arguments(cls, call_args_, call_kwargs, kwargs, tensors_of, mask_of_leaf):
    def mask_of(value):
        mask = jax.tree_util.tree_map(mask_of_leaf, value)
        return mask if _any(mask) else None

    accepted, _ = call_args.call_parameters(cls)
    first = call_args.first_argument(cls, call_args_, call_kwargs)
    filled = {}
    tensors = tensors_of()
    if tensors:
        wanted = ({"mask": next(iter(tensors.values()))} if len(tensors) == 1 else
                  {f"{name}_mask": value for name, value in tensors.items()})
        if len(tensors) > 1 and first is not None:
            wanted["mask"] = first
        for name, value in wanted.items():
            if name in accepted and kwargs.get(name) is None:
                mask = mask_of(value)
                if mask is not None:
                    filled[name] = mask
    previous = kwargs.get("mask")
    if previous is None:
        previous = filled["mask"] if "mask" in filled else mask_of(first)
    return filled, previous
