"""One matcher for every choice made by path: sharding rules (weight paths), remat and
precision (layer paths) and activation hints (node outputs).

One semantics everywhere, Keras's (``kgraph.path_keys``, which ``LayoutMap`` and
``DTypePolicyMap`` use too): a rule whose pattern equals the path wins; otherwise the rule
whose pattern ``re.fullmatch``es the path applies, and two such rules are an error (make
the patterns exclusive, or add the exact path). A rule that matches nothing in the model is
an error too (a typo would otherwise be silently ignored), unless ``allow_unused``.

>>> rules = PathRules({"block_.*": 1, "head": 2, "head|stem": 3}, "example")
>>> rules.value_for("block_3"), rules.value_for("head"), rules.value_for("stem")
(1, 2, 3)
>>> rules.value_for("neck") is None
True
"""

from __future__ import annotations

import re

from kgraph import path_keys
from kgraph.interpreter.walk import NodeHook

__all__ = ["PathRules", "RuleHook"]


class PathRules:
    """``[(pattern, value), ...]`` (or a dict) from paths to values.

    ``what`` names the rules in errors (``"remat"`` for "remat patterns", ``"sharding"``);
    ``subject`` what the paths are paths of (``"layer"``, ``"weight"``); ``describe`` shows
    a rule in an error (its pattern by default).
    """

    def __init__(self, rules, what: str, *, subject: str = "layer", allow_unused=False,
                 describe=None):
        self.rules = list(rules.items() if isinstance(rules, dict) else rules)
        self.what, self.subject, self.allow_unused = what, subject, bool(allow_unused)
        self.describe = describe or (lambda rule: repr(rule[0]))
        for pattern, _ in self.rules:
            try:
                re.compile(pattern)
            except (re.error, TypeError) as error:
                raise ValueError(f"{what} pattern {pattern!r} is not a regular expression: "
                                 f"{error}.") from None
        self.used: set = set()

    def match(self, path: str):
        """The ``(pattern, value)`` rule for ``path``, or None."""
        patterns = path_keys.matches([pattern for pattern, _ in self.rules], path)
        found = [next(rule for rule in self.rules if rule[0] == pattern)
                 for pattern in patterns]
        if len(found) > 1:
            shown = ", ".join(self.describe(rule) for rule in found)
            raise ValueError(f'{self.subject.capitalize()} "{path}" matches {len(found)} '
                             f"{self.what} rules: {shown}. Make the patterns exclusive, or "
                             "add a rule for exactly this path (an exact path wins).")
        if found:
            self.used.add(found[0][0])
            return found[0]
        return None

    def value_for(self, path: str):
        """The value for ``path`` (None: no rule matches it)."""
        rule = self.match(path)
        return None if rule is None else rule[1]

    def matches_any(self, pattern: str, paths) -> bool:
        return any(pattern == path or re.fullmatch(pattern, path) for path in paths)

    def unused(self, paths) -> list:
        """The rules whose patterns match none of ``paths``."""
        paths = list(paths)
        return [rule for rule in self.rules if not self.matches_any(rule[0], paths)]

    def check_paths(self, paths, model_name: str) -> None:
        """A ValueError naming every pattern that matches none of the model's ``paths``
        (unless ``allow_unused``)."""
        paths = list(paths)
        if paths:
            self._refuse([p for p, _ in self.unused(paths)], model_name, paths)

    def check_all_used(self, model_name: str) -> None:
        """After a trace: a pattern that matched nothing is an error (a typo)."""
        self._refuse([pattern for pattern, _ in self.rules if pattern not in self.used],
                     model_name, ())

    def _refuse(self, unused, model_name, paths):
        if unused and not self.allow_unused:
            like = ""
            if paths:
                like = ", whose paths are like " + ", ".join(f'"{p}"' for p in paths[:4])
            raise ValueError(f"{self.what} patterns {unused} match no {self.subject} of model "
                             f"{model_name!r}{like} (a nested model's paths are "
                             "\"<model>/<layer>\").")


class RuleHook(NodeHook):
    """A node hook whose choices come from ``PathRules`` over layer paths (remat,
    precision, activation hints): checked against the graph before anything runs."""

    rules: PathRules

    def value_for(self, path: str):
        return self.rules.value_for(path)

    def same_for(self, paths) -> bool:
        """Whether the nodes at ``paths`` (a run of repeated blocks) get one value, so
        they may run as one scan."""
        values = [self.value_for(path) for path in paths]
        return all(value is values[0] or value == values[0] for value in values)

    def check_paths(self, paths, model_name: str) -> None:
        self.rules.check_paths(paths, model_name)

    def check_all_used(self, model_name: str) -> None:
        self.rules.check_all_used(model_name)
