"""``DecayExclusion``: the weights ``optimizer.exclude_from_weight_decay`` keeps out of
Keras's decoupled weight decay, by the variables themselves (``var_list``) or by words
found in their names (``var_names``, a regular expression search as Keras's).

>>> import kgraph as kg
>>> layer = kg.layers.Dense(2)
>>> layer.build((None, 3))
>>> excluded = DecayExclusion(var_names=["bias"])
>>> [excluded.decays(v) for v in layer.weights]
[True, False]
"""

from __future__ import annotations

import re

import jax

__all__ = ["DecayExclusion", "decay_mask"]


def _key(variable) -> int:
    """The identity of a weight, also when given as a layer attribute's value."""
    return id(getattr(variable, "variable", variable))


class DecayExclusion:
    """Which weights decay: all but those in ``var_list`` and those whose ``name``
    contains a match of one of ``var_names``."""

    def __init__(self, var_list=None, var_names=None):
        self._ids = {_key(v) for v in var_list or ()}
        names = list(var_names or ())
        self._pattern = re.compile("|".join(sorted(set(names)))) if names else None

    @property
    def by_variable(self) -> bool:
        """Whether weights are excluded one by one (``var_list``), not only by name."""
        return bool(self._ids)

    def decays(self, variable) -> bool:
        """Whether ``variable`` decays."""
        if _key(variable) in self._ids:
            return False
        return not (self._pattern is not None
                    and self._pattern.search(getattr(variable, "name", "")))


def decay_mask(exclusion, variables):
    """The ``decay_mask`` extra argument for weights laid out as ``variables`` (a tree of
    weights, or a list): True where the weight decays; None when nothing is excluded."""
    if exclusion is None:
        return None
    return jax.tree_util.tree_map(exclusion.decays, variables,
                                  is_leaf=lambda x: not isinstance(x, (dict, list, tuple)))
