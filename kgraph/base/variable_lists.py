"""A layer's lists of weights and variables, as Keras 3 lists them (a base of
``kgraph.base.layer.Layer``).

``weights``: the layer's own weights, then its sub-layers' (depth first), each once.
``variables``: the same, with the state of every ``SeedGenerator`` a layer holds after that
layer's own weights (Keras's "all layer state, including random seeds"); seed states are
never weights, so they are neither trained nor saved. ``trainable_*`` / ``non_trainable_*``
split these: a frozen layer (``trainable=False``) lists everything as non-trainable.
Keras's internal lists are here too: ``_layers`` (direct sub-layers), ``_seed_generators``,
``_trainable_variables`` / ``_non_trainable_variables`` (own weights by how they were made).

>>> import kgraph as kg
>>> class Noisy(kg.layers.Layer):
...     def __init__(self):
...         super().__init__()
...         self.dense = kg.layers.Dense(2)
...         self.noise = kg.random.SeedGenerator(1)
>>> layer = Noisy()
>>> layer.dense.build((None, 3))
>>> [v.name for v in layer.weights], [v.name for v in layer.variables]
(['kernel', 'bias'], ['seed_generator_state', 'kernel', 'bias'])
>>> len(layer.non_trainable_variables), len(layer._layers), len(layer._seed_generators)
(1, 1, 1)
"""

from __future__ import annotations

from kgraph.base import tracking
from kgraph.base.seed_generator import SeedGenerator
from kgraph.base.weight_protocol import made_trainable_first

__all__ = ["VariableLists"]


class _DirectSubLayers:
    """``layer._layers``: the sub-layers its attributes hold (a model's own list, kept in
    its instance dictionary, takes precedence)."""

    def __get__(self, layer, owner=None):
        return self if layer is None else layer._tracked_layers()


class VariableLists:
    """The lists of the module docstring, on a layer's ``_own_variables``, its
    ``_tracked_layers()`` and the values of its attributes."""

    _layers = _DirectSubLayers()

    @property
    def _seed_generators(self) -> list:
        """The ``SeedGenerator``s the layer's attributes hold (not its sub-layers'), each
        once, in attribute order."""
        found, seen = [], set()
        for value in self._attribute_values():
            if type(value) in tracking.PLAIN:
                continue
            for generator in tracking.collect(value, SeedGenerator):
                if id(generator) not in seen:
                    seen.add(id(generator))
                    found.append(generator)
        return found

    @property
    def _trainable_variables(self) -> list:
        """Own weights made trainable (freezing the layer later keeps them here)."""
        return [v for v in self._own_variables if v._made_trainable]

    @property
    def _non_trainable_variables(self) -> list:
        """Own weights made non-trainable."""
        return [v for v in self._own_variables if not v._made_trainable]

    def _listed_variables(self) -> list:
        """The weights ``weights`` lists for this layer before its sub-layers': its own,
        and for a layer that uses a sub-layer's weight as its own (Keras's
        ``SpectralNormalization`` and its kernel), that one too, where Keras lists it.
        Keras's order: those made trainable first, then the rest, each in making order."""
        return made_trainable_first(self._own_variables)

    def _walk(self, with_seed_states: bool) -> list:
        result, seen_vars, seen_layers, stack = [], set(), set(), [self]
        while stack:
            layer = stack.pop()
            if id(layer) in seen_layers:
                continue
            seen_layers.add(id(layer))
            listed = layer._listed_variables()
            if with_seed_states:
                listed = listed + [g.state for g in layer._seed_generators]
            for v in listed:
                if id(v) not in seen_vars:
                    seen_vars.add(id(v))
                    result.append(v)
            stack.extend(reversed(layer._tracked_layers()))
        return result

    @property
    def weights(self) -> list:
        """All weights: own first, then sub-layers' (depth first), each once."""
        return self._walk(with_seed_states=False)

    @property
    def trainable_weights(self) -> list:
        return [v for v in self.weights if v.trainable and v.owner.trainable and self.trainable]

    @property
    def non_trainable_weights(self) -> list:
        ids = {id(v) for v in self.trainable_weights}
        return [v for v in self.weights if id(v) not in ids]

    @property
    def variables(self) -> list:
        """All layer state: ``weights`` with the state of the layers' seed generators."""
        return self._walk(with_seed_states=True)

    @property
    def trainable_variables(self) -> list:
        """Keras 3's name for ``trainable_weights``."""
        return self.trainable_weights

    @property
    def non_trainable_variables(self) -> list:
        """``non_trainable_weights`` and the seed generators' states, in ``variables``
        order."""
        ids = {id(v) for v in self.trainable_weights}
        return [v for v in self.variables if id(v) not in ids]
