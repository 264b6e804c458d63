"""Keras's path of each weight of a model (``variable.path`` in Keras 3): the name scopes
the variable was made in, which depend on how each nested model builds its layers.

>>> import kgraph as kg
>>> model = kg.Sequential([kg.Input(shape=(2,)), kg.layers.Dense(1, name="d")], name="s")
>>> sorted(keras_variable_paths(model).values())
['s/d/bias', 's/d/kernel']
"""

from __future__ import annotations

from kgraph.base import catalog
from kgraph.base.weight_tree import weight_entries

__all__ = ["keras_variable_paths"]


def _is_model(layer) -> bool:
    return catalog.is_instance(layer, "Model")


def _own_scope(model) -> bool:
    """Whether ``model`` builds its layers inside its own name scope (a ``Sequential``, a
    subclassed model) rather than when its graph is made (a functional model)."""
    return catalog.is_instance(model, "Sequential") or not catalog.is_instance(model,
                                                                            "Functional")


def _built_alone(model) -> bool:
    """A Sequential given an ``Input`` was built when it was made, outside any scope (one
    built on first use has the ``InputLayer`` its build made)."""
    stack = getattr(model, "_stack", ())
    return bool(stack) and catalog.is_instance(stack[0], "InputLayer") and not getattr(
        stack[0], "_made_by_build", False)


def keras_variable_paths(model) -> dict:
    """``{id(variable): Keras's variable.path}`` for every weight of ``model``.

    >>> import kgraph as kg
    >>> x = kg.Input(shape=(3,))
    >>> inner = kg.Sequential([kg.layers.Dense(2, name="d")], name="s")
    >>> model = kg.Model(x, inner(kg.layers.Dense(3, name="h")(x)))
    >>> sorted(keras_variable_paths(model).values())
    ['h/bias', 'h/kernel', 's/d/bias', 's/d/kernel']
    """
    models: dict = {}
    stack = [((), model)]
    while stack:
        prefix, parent = stack.pop()
        for layer in getattr(parent, "layers", ()):
            if _is_model(layer):
                models[prefix + (layer.name,)] = (layer, parent)
                stack.append((prefix + (layer.name,), layer))
    top = [model.name] if _own_scope(model) else []
    paths = {}
    for entry in weight_entries(model):
        parts = list(top)
        for i, name in enumerate(entry.path[:-1]):
            found = models.get(entry.path[:i + 1])
            if found is None:
                parts.append(name)  # a layer, or a sub-layer built in its parent's scope
            elif not _own_scope(found[0]):
                parts = []  # a functional model's layers were built outside any scope
            elif _built_alone(found[0]) or not _own_scope(found[1]):
                parts = [name]
            else:
                parts.append(name)  # built on first call, inside its parent's scope
        paths[id(entry.variable)] = "/".join(parts + [entry.path[-1]])
    return paths
