"""An optimizer state's layout: fitted to the weights trained now, and moved between the
named layout (one entry per layer: what files hold) and a Trainer's stacked one (runs of
repeated blocks under one key, ``compiler.stacking``).

>>> import jax.numpy as jnp, optax
>>> params = {"dense": {"kernel": jnp.ones((2, 2))}}
>>> state = optax.sgd(0.1, momentum=0.9).init(params)
>>> fitted(optax.sgd(0.1, momentum=0.9).init, params, state, {}, "model") is state
True
>>> layout_key(params)[1]
(((2, 2), dtype('float32')),)
"""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp

from compiler import stacking

__all__ = ["fitted", "layout_key", "named", "stacked"]


def _map_weight_trees(tree, wanted, convert):
    """``tree`` with ``convert`` applied to each dict keyed by layer names for which
    ``wanted(dict)`` holds (an optimizer state's trees shaped like the weights)."""
    def is_target(node):
        return isinstance(node, dict) and bool(wanted(node))

    return jax.tree_util.tree_map(lambda node: convert(node) if is_target(node) else node,
                                  tree, is_leaf=is_target)


def _dtype(leaf):
    dtype = getattr(leaf, "dtype", None)
    return jnp.result_type(leaf) if dtype is None else dtype


def _same_layout(abstract, tree) -> bool:
    """Whether ``tree`` has the structure, shapes and dtypes of ``abstract``."""
    leaves, treedef = jax.tree_util.tree_flatten(tree)
    specs, spec_treedef = jax.tree_util.tree_flatten(abstract)
    return treedef == spec_treedef and all(
        jnp.shape(a) == b.shape and _dtype(a) == b.dtype for a, b in zip(leaves, specs))


def layout_key(tree):
    """A hashable summary of ``tree``'s structure, shapes and dtypes."""
    leaves, treedef = jax.tree_util.tree_flatten(tree)
    return treedef, tuple((jnp.shape(leaf), _dtype(leaf)) for leaf in leaves)


def fitted(init, params, opt_state, specs: dict, model_name: str):
    """``opt_state`` for training ``params`` with the optimizer whose fresh state for them
    ``init(params)`` makes (both in the same layout):
    as it is if it has their structure; else (layers frozen or unfrozen since it was made)
    a fresh state into which the entries the old one also holds (same path, shape and
    dtype: the moments of weights trained before, the step count) carry over, with a
    warning naming the entries that start fresh. ``specs`` caches the fresh state's
    shapes per weights' layout."""
    key = layout_key(params)
    if key not in specs:
        specs[key] = jax.eval_shape(init, params)
    fresh = specs[key]
    if _same_layout(fresh, opt_state):
        return opt_state
    old = dict(jax.tree_util.tree_flatten_with_path(opt_state)[0])
    carried, started = [], []

    def pick(path, spec):
        leaf = old.get(path)
        if leaf is not None and (jnp.shape(leaf), jnp.result_type(leaf)) == (
                spec.shape, spec.dtype):
            carried.append(path)
            return leaf
        started.append(jax.tree_util.keystr(path))
        return None

    chosen = jax.tree_util.tree_map_with_path(pick, fresh)
    if not carried:
        raise ValueError(
            f"The optimizer state kept for model {model_name!r} does not fit its "
            "weights (made by another optimizer, or for another model): compile with a "
            "new optimizer to start afresh.")
    if not started:  # weights frozen: their entries are simply dropped
        return chosen
    warnings.warn(f"The trained weights of model {model_name!r} changed since the "
                  "optimizer state was made (layers frozen or unfrozen): its entries "
                  f"{started[:6]}{' ...' if len(started) > 6 else ''} start fresh; the "
                  "rest carries over.", RuntimeWarning, stacklevel=4)
    return jax.tree_util.tree_map(lambda kept, new: new if kept is None else kept,
                                  chosen, init(params),
                                  is_leaf=lambda leaf: leaf is None)


def named(runs, opt_state):
    """``opt_state`` with its weight-shaped trees in the named layout (one entry per
    layer), whichever layout it is in (``runs``: the stacked runs of repeated blocks)."""
    return _map_weight_trees(opt_state, lambda t: stacking.is_stacked(runs, t, {}),
                             lambda t: stacking.unstack_tree(runs, t))


def stacked(runs, opt_state):
    """``opt_state`` (either layout) with the blocks of ``runs`` stacked."""
    return _map_weight_trees(opt_state, lambda t: any(run.blocks_in(t) for run in runs),
                             lambda t: stacking.stack_tree(runs, t))
