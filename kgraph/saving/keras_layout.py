"""Where Keras 3 keeps each weight of a model in its weights file (``model.weights.h5``).

Keras does not address a layer by its name: a model's layers sit in a ``layers`` folder under
``snake_case(class name)``, numbered ``_1``, ``_2``... in the order of ``model.layers`` as
Keras rebuilds it (by graph depth, ``map_graph`` in ``keras/src/ops/function.py``), nested
models recurse, a layer's sub-layers sit under the attribute that holds them
(``lstm/cell``, ``multi_head_attention/query_dense``), and a layer's own weights are
``vars/0..n``: the weights created trainable first, then the others, each in creation order.
Every layer and model, weights or not, has a ``vars`` group whose ``name`` attribute is its
name. ``weight_groups(model)`` lists those groups, so that writing and reading a file are
the same walk.

>>> import kgraph as kg
>>> x = kg.Input(shape=(3,), name="x")
>>> h = kg.layers.Dense(4, name="second")(kg.layers.Dense(3, name="first")(x))
>>> [(g.path, [v.name for v in g.variables]) for g in weight_groups(kg.Model(x, h))]
... # doctest: +NORMALIZE_WHITESPACE
[('', []), ('layers/input_layer', []), ('layers/dense', ['kernel', 'bias']),
 ('layers/dense_1', ['kernel', 'bias'])]
"""

from __future__ import annotations

from typing import NamedTuple

from kgraph.base import catalog, naming
from kgraph.base.layer import Layer
from kgraph.interpreter import walk

__all__ = [
    "WeightGroup", "depth_ordered_layers", "has_layers_list", "join", "named_sublayers",
    "unique", "weight_groups"
]


class WeightGroup(NamedTuple):
    """One ``<path>/vars`` group: the layer (or model) and its own weights in file order."""

    path: str
    layer: Layer
    variables: list

    @property
    def name(self) -> str:
        return self.layer.name


def _is_operation(layer) -> bool:
    return catalog.is_operation(type(layer))


def depth_ordered_layers(model) -> list:
    """``model.layers`` as Keras 3 orders them when it builds or rebuilds ``model``
    (``walk.keras_layer_order``). Operations (``ops`` nodes) are not layers in Keras and
    are left out."""
    return [layer for layer in walk.keras_layer_order(model.inputs, model.outputs)
            if not _is_operation(layer)]


def _saved_layers(model) -> list:
    """The layers Keras saves under a model's ``layers`` folder."""
    if catalog.is_instance(model, "Sequential") and not model.built:
        return list(model.layers)  # no graph yet: the layers as added
    layers = depth_ordered_layers(model)
    if catalog.is_instance(model, "Sequential"):  # Keras's Sequential.layers leaves its InputLayer out
        layers = [layer for layer in layers if not getattr(layer, "is_input_layer", False)]
    return layers


def _name_key(name: str) -> str:
    return f"~{name}" if name.startswith("_") else name  # private attributes last, as Keras


def named_sublayers(layer, models_list_layers=True) -> list:
    """``[(attribute, layer or container)]``: what a layer holds, by the attribute that
    holds it (kgraph's layers use Keras's attribute names), in Keras's visiting order.

    A subclassed model also has Keras's ``layers`` (its tracked layers, in the order they
    were set), visited in its alphabetical place: the layers of attributes sorting after
    it (``out``, ``proj``) are stored there, as ``layers/dense_1``..., numbered among all
    its layers (``models_list_layers=False``: without it, kgraph's earlier layout)."""
    found = []
    for attr, value in vars(layer).items():
        if attr in ("_inbound_nodes", "_output_spec_cache", "_var_attrs", "_own_variables"):
            continue
        if isinstance(value, Layer) or (isinstance(value, (list, tuple, dict)) and value):
            found.append((attr, value))
    for attr in _user_properties(type(layer)):
        if attr in vars(layer) or attr == "layers":
            continue
        try:
            value = getattr(layer, attr)
        except Exception:  # as Keras: a property that cannot be read is not walked
            continue
        if isinstance(value, Layer) or (isinstance(value, (list, tuple, dict)) and value):
            found.append((attr, value))
    if models_list_layers and has_layers_list(layer) and "layers" not in vars(layer):
        found.append(("layers", layer._tracked_layers()))
    return sorted(found, key=lambda item: _name_key(item[0]))


def _user_properties(cls) -> tuple:
    """Names of the properties a class outside kgraph defines on ``cls`` (Keras walks every
    attribute ``dir`` lists: a user's property returning a layer is one of its paths)."""
    names = _PROPERTIES.get(cls)
    if names is None:
        names = tuple(sorted({name for klass in cls.__mro__
                              if klass.__module__.split(".")[0] not in _OWN_MODULES
                              for name, value in vars(klass).items()
                              if isinstance(value, property) and not name.startswith("__")}))
        _PROPERTIES[cls] = names
    return names


_OWN_MODULES = ("kgraph", "compiler", "runtime", "builtins")
_PROPERTIES: dict = {}


def has_layers_list(layer) -> bool:
    """Whether Keras walks ``layer.layers`` when it saves it: a subclassed model holding
    layers (a functional or sequential model's ``layers`` folder is its graph's)."""
    return (catalog.is_instance(layer, "Model") and not catalog.is_instance(layer, "Functional")
            and bool(layer._tracked_layers()))


def weight_groups(model, models_list_layers=True, skip=(), aliases=None) -> list[WeightGroup]:
    """Every ``vars`` group Keras 3 writes for ``model`` (a model or a layer), in file order
    (``models_list_layers``: see ``named_sublayers``); the objects in ``skip`` (Keras's
    ``objects_to_skip``) and what is reached only through them are left out. A layer
    reached again by another path is written once, at its first; ``aliases`` (a dict), if
    given, receives ``{id(layer): [other paths]}``, where Keras's loader also looks."""
    groups, visited, skipped = [], {id(obj) for obj in skip}, {id(obj) for obj in skip}

    def visit(obj, path):
        if id(obj) in visited:
            if aliases is not None and id(obj) not in skipped:
                aliases.setdefault(id(obj), []).append(path)
            return
        visited.add(id(obj))
        groups.append(WeightGroup(path, obj, obj._keras_ordered_variables()))
        if catalog.is_instance(obj, "Functional"):
            container(_saved_layers(obj), join(path, "layers"))
            return
        for attr, value in named_sublayers(obj, models_list_layers):
            if isinstance(value, Layer):
                visit(value, join(path, attr))
            else:
                container(value, join(path, attr))

    def container(items, path, seen=None):
        # a container holding itself (directly or deeper) is walked once, as Keras
        seen = set() if seen is None else seen
        if id(items) in seen:
            return
        seen.add(id(items))
        used: dict = {}
        for item in (items.values() if isinstance(items, dict) else items):
            if isinstance(item, Layer):
                visit(item, join(path, unique(naming.to_snake_case(type(item).__name__), used)))
            elif isinstance(item, (list, tuple, dict)):
                container(item, join(path, unique("container", used)), seen)

    visit(model, "")
    return groups


def unique(name, used):
    """Keras's ``_get_unique_name``: ``name``, then ``name_1``, ``name_2``..."""
    if name in used:
        used[name] += 1
        return f"{name}_{used[name]}"
    used[name] = 0
    return name


def join(path, name):
    return f"{path}/{name}" if path else name
