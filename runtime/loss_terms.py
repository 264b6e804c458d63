"""Keras's ``compile(loss=...)`` over a model's output structure: which loss applies to
which outputs, with which weight and under which log name.

A model's outputs form a structure (one tensor, a list, a tuple or namedtuple, a dict, or
these nested); ``loss`` is one loss for every output, or a structure matching part of the
outputs'. Resolved as Keras's ``CompileLoss.build`` resolves it: a dict ``loss`` on a
list-output model by the outputs' names; a list of as many losses as outputs, one per
output; a list of losses where the outputs are not a list, each on the whole of it (their
sum); a loss placed on a substructure receives that substructure (of targets and
predictions), and may be ``None`` (no loss there). Each resolved loss is a ``Term``: the
output leaves it covers, the structure it receives them in, its weight and its name
(Keras's: the path of dict keys, a list position named by its output's name).

>>> terms = loss_terms(["mse", ["mae", "mse"]], None, [0, 1], ["a", "b"])
>>> [(t.indices, t.loss.name, t.name) for t in terms]
[((0,), 'mean_squared_error', 'a'), ((1,), 'mean_absolute_error', 'b'), ((1,), 'mean_squared_error', 'b')]
"""

from __future__ import annotations

from typing import Any, NamedTuple

from kgraph import tree
from kgraph.losses.compile_losses import compile_loss

__all__ = ["Term", "loss_terms", "pack_as", "resolve"]


class Term(NamedTuple):
    """One loss of the compiled loss: on the output leaves ``indices`` (flat positions),
    given to the loss in the structure ``structure`` (a structure of those positions; an
    int: one output)."""

    path: tuple
    indices: tuple
    structure: Any
    loss: Any
    weight: float | None
    name: str


def resolve(spec):
    """The loss ``compile`` trains with for ``spec`` (``compile_loss``); refused when it
    gives one value per sample (``reduction`` None or "none")."""
    loss = compile_loss(spec)
    if getattr(loss, "reduction", "") in (None, "none"):
        raise ValueError(
            f'The loss "{loss.name}" has reduction={loss.reduction!r}: it gives one value per '
            "sample, and training and evaluation need one per batch. Use "
            '"sum_over_batch_size" (the default), "sum" or "mean_with_sample_weight".')
    return loss


def pack_as(structure, leaves):
    """``leaves`` (a flat list) in the shape of ``structure``."""
    leaves = iter(leaves)

    def pack(node):
        if isinstance(node, dict):  # (leaves in sorted-key order, keys in the dict's)
            packed = {key: pack(node[key]) for key in sorted(node)}
            return {key: packed[key] for key in node}
        if isinstance(node, (list, tuple)):
            items = [pack(item) for item in node]
            if isinstance(node, tuple) and hasattr(node, "_fields"):  # a namedtuple
                return type(node)(*items)
            return type(node)(items)
        return next(leaves)

    return pack(structure)


class _Weighted:
    """A loss and its weight, one leaf of the loss structure (not a tuple: a leaf)."""

    def __init__(self, loss, weight):
        self.loss, self.weight = loss, weight


def _map(fn, *structures):
    """``fn`` over the leaves of like structures (a dict keeps its own key order)."""
    first = structures[0]
    if isinstance(first, dict):
        return {key: _map(fn, *(part[key] for part in structures)) for key in first}
    if isinstance(first, (list, tuple)):
        items = [_map(fn, *parts) for parts in zip(*structures)]
        if isinstance(first, tuple) and hasattr(first, "_fields"):
            return type(first)(*items)
        return type(first)(items)
    return fn(*structures)


def _with_weights(loss, loss_weights):
    """The loss structure with each loss paired with its weight (None stays None)."""
    if loss_weights is not None and not isinstance(loss_weights, (int, float, list, tuple,
                                                                   dict)):
        raise ValueError("Expected `loss_weights` argument to be a float (single output "
                         "case) or a list, tuple, or dict (multiple output case). Received "
                         f"instead: loss_weights={loss_weights} of type {type(loss_weights)}")
    if loss_weights is None:
        weights = _map(lambda _: None, loss)
    else:
        flat = tree.flatten(loss_weights)
        if len(tree.flatten(loss)) != len(flat):
            raise ValueError(f"`loss_weights` must match the number of losses, got "
                             f"{len(tree.flatten(loss))} losses and {len(flat)} weights.")
        weights = pack_as(loss, flat)
    return _map(lambda l, w: None if l is None else _Weighted(l, w), loss, weights)


def loss_terms(loss, loss_weights, structure, output_names=None) -> list[Term]:
    """The terms of ``loss`` (and ``loss_weights``) on outputs of the structure
    ``structure`` (a structure of flat output positions), as Keras resolves them;
    ``output_names``: the outputs' names, flat (None: unknown)."""
    if output_names and isinstance(loss, dict) and not isinstance(structure, dict):
        if set(output_names) != set(loss):
            raise ValueError(f"Expected keys {list(output_names)} in loss dict, but found "
                             f"loss.keys()={list(loss.keys())}")
        if isinstance(loss_weights, dict):
            missing = [name for name in output_names if name not in loss_weights]
            if missing:  # (Keras's KeyError, with what is missing)
                raise KeyError(f"`loss_weights` has no weight for the outputs {missing}: "
                               "with `loss` given by output name, `loss_weights` gives one "
                               f"for each output; received {loss_weights}")
            loss_weights = [loss_weights[name] for name in output_names]
        loss = [loss[name] for name in output_names]
    loss = _with_weights(loss, loss_weights)
    if output_names is not None and isinstance(loss, dict) and set(loss) == set(output_names):
        if isinstance(structure, (list, tuple)) and len(structure) == len(output_names):
            structure = dict(zip(output_names, structure))
        elif not tree.is_nested(structure) and len(output_names) == 1:
            structure = {output_names[0]: structure}
    flat = tree.flatten(structure)
    names = pack_as(structure, output_names if output_names is not None
                    and len(output_names) == len(flat) else [None] * len(flat))
    if not tree.is_nested(loss):
        loss = _map(lambda _: loss, structure)
    terms: list[Term] = []
    _build(structure, loss, names, (), terms)
    return terms


def _build(structure, loss, names, path, terms) -> None:
    """Keras's ``CompileLoss._build_nested`` over the output positions ``structure``."""
    if not tree.is_nested(loss):
        if loss is None:
            return
        resolved = resolve(loss.loss)
        name_path = path
        if not tree.is_nested(names):
            output_name = names if names is not None else resolved.name
            if not name_path:
                name_path = (output_name,)
            elif isinstance(name_path[-1], int):
                name_path = name_path[:-1] + (output_name,)
        name = "/".join(str(part) for part in name_path)
        if name == "":
            name = "_".join(str(n) for n in (list(names) if isinstance(names, dict)
                                             else tree.flatten(names)))
        terms.append(Term(path, tuple(tree.flatten(structure)), structure, resolved,
                          loss.weight, name))
        return
    if (isinstance(loss, (list, tuple)) and not any(tree.is_nested(l) for l in loss)
            and len(loss) == len(tree.flatten(structure))):
        loss = pack_as(structure, loss)
    elif isinstance(loss, (list, tuple)) and not isinstance(structure, type(loss)):
        for each in loss:  # several losses on one output (or substructure): their sum
            _build(structure, each, names, path, terms)
        return
    if not tree.is_nested(loss):
        _build(structure, loss, names, path, terms)
        return
    if not isinstance(loss, type(structure)):
        raise KeyError(f"The path: {path} in the `loss` argument, can't be found in the "
                       "model's output (`y_pred`).")
    items = loss.items() if isinstance(loss, dict) else enumerate(loss)
    for key, each in items:
        if each is None:
            continue
        found = (key in structure) if isinstance(structure, dict) else key < len(structure)
        if not found:
            raise KeyError(f"The path: {path + (key,)} in the `loss` argument, can't be found "
                           "in either the model's output (`y_pred`) or in the labels "
                           "(`y_true`).")
        _build(structure[key], each, names[key], path + (key,), terms)
