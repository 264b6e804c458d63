"""Automatic layer names: ``dense``, ``dense_1``, ``dense_2``, ...

A layer made without ``name=`` gets a process-wide unique name at once, as in Keras. When
it first joins a model (``kg.Model(...)``, a ``Sequential``'s build, a subclassed model's
first build), the model gives its auto-named layers names unique within the model,
counted in the order the layers were created: a model built in a fresh process gets the
names Keras would give, and a model built again in the same process (a notebook cell run
twice) gets the same names again, so its params pytree and its initial values (which
derive from weight paths) depend only on the code that built it and the key. Sub-layers
held by a layer are named the same way within that layer. A layer keeps the name its
first model gave it; a later model that holds two layers of the same auto-generated name
renames the one created later, to a name unused in every model that layer belongs to (a
layer shared across nesting levels is named once for all of them, so each level's config
stays valid).

>>> import kgraph as kg
>>> def build():
...     x = kg.Input(shape=(3,))
...     return kg.Model(x, kg.layers.Dense(2)(kg.layers.Dense(4)(x)))
>>> [layer.name for layer in build().layers] == [layer.name for layer in build().layers]
True
"""

import collections
import itertools
import re
import weakref

__all__ = ["creation_index", "localize_names", "reset_names", "to_snake_case", "unique_name"]


_counters: collections.Counter = collections.Counter()
_creation = itertools.count()


def to_snake_case(name: str) -> str:
    """Keras's ``to_snake_case``: ``BatchNormalization`` -> ``batch_normalization``,
    ``Conv2D`` -> ``conv2d``, ``TopKCategoricalAccuracy`` -> ``top_k_categorical_accuracy``
    (characters other than letters, digits and ``_`` are dropped)."""
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", re.sub(r"\W+", "", name))
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


def unique_name(prefix: str) -> str:
    """The next unused name for ``prefix``, Keras-style (O(1) per call)."""
    count = _counters[prefix]
    _counters[prefix] += 1
    return prefix if count == 0 else f"{prefix}_{count}"


def reset_names() -> None:
    """Forget every name handed out so far (tests and notebooks)."""
    _counters.clear()


def creation_index() -> int:
    """A number that grows with every layer made (orders a model's auto-named layers)."""
    return next(_creation)


def _names_around(layer) -> set:
    """The names of the other layers in every namespace ``layer`` already belongs to."""
    names = set()
    for ref in layer.__dict__.get("_namespaces", ()):
        owner = ref()
        if owner is None:
            continue
        members = owner.__dict__.get("_layers")
        for other in members if members is not None else owner._tracked_layers():
            if other is not layer:
                names.add(other.name)
    return names


def _join(layer, owner) -> None:
    if owner is None:
        return
    spaces = layer.__dict__.setdefault("_namespaces", [])
    if not any(ref() is owner for ref in spaces):
        spaces.append(weakref.ref(owner))


def localize_names(layers, owner=None) -> None:
    """Rename the auto-named layers among ``layers`` (``owner``'s namespace: a model or a
    layer holding sub-layers) so that their names are unique among ``layers`` and do not
    depend on what the process made before (see the module docstring). Then do the same
    inside each layer for its sub-layers."""
    fresh = [layer for layer in layers if layer._auto_name and not layer._name_local]
    taken = set()
    kept = sorted((layer for layer in layers if not (layer._auto_name and
                                                    not layer._name_local)),
                  key=lambda layer: (layer._auto_name, layer._created))
    for layer in kept:  # explicit names first, then names given by an earlier model
        if layer.name in taken and layer._auto_name:
            fresh.append(layer)
        else:
            taken.add(layer.name)
    tried: dict = {}  # base name -> the next suffix to try (no name is tried twice)
    for layer in sorted(fresh, key=lambda layer: layer._created):
        around = _names_around(layer)  # also unique where it was named before
        base = layer._name_base
        count = tried.get(base, 0)
        name = base if count == 0 else f"{base}_{count}"
        while name in taken or name in around:
            count += 1
            name = f"{base}_{count}"
        tried[base] = count + 1
        taken.add(name)
        layer._set_name(name)
        layer._name_local = True
    for layer in layers:
        _join(layer, owner)
        if not layer._owns_namespace():
            subs = layer._tracked_layers()
            if subs:
                localize_names(subs, layer)
