"""Choices made per layer path (``"encoder/dense"``): exact path first, else the first
pattern that ``re.fullmatch``es it; a pattern that matches no layer is reported as a
typo after the first trace. Shared by rematerialisation and precision policies.

>>> rules = PathRules({"block_.*": 1, "head": 2}, "example")
>>> rules.value_for("block_3"), rules.value_for("head"), rules.value_for("stem")
(1, 2, None)
"""

from __future__ import annotations

import re

from kgraph.interpreter.walk import NodeHook


class PathRules(NodeHook):
    """``{layer path pattern: value}`` (``what`` names the argument in errors)."""

    def __init__(self, rules: dict, what: str):
        self.what = what
        self.rules = list(rules.items())
        for pattern, _ in self.rules:
            try:
                re.compile(pattern)
            except re.error as error:
                raise ValueError(f"{what} pattern {pattern!r} is not a regular expression: "
                                 f"{error}.") from None
        self.used: set = set()

    def value_for(self, path: str):
        """The value for the node at ``path`` (None: no rule matches it)."""
        for pattern, value in self.rules:
            if pattern == path:
                self.used.add(pattern)
                return value
        for pattern, value in self.rules:
            if re.fullmatch(pattern, path):
                self.used.add(pattern)
                return value
        return None

    def same_for(self, paths) -> bool:
        """Whether the nodes at ``paths`` (a run of repeated blocks) get one value, so
        they may run as one scan."""
        values = [self.value_for(path) for path in paths]
        return all(value is values[0] or value == values[0] for value in values)

    def check_paths(self, paths, model_name: str) -> None:
        """Before anything runs: a pattern that matches none of the graph's node ``paths``
        is an error (a typo)."""
        if paths:
            self._refuse([pattern for pattern, _ in self.rules
                          if not any(pattern == p or re.fullmatch(pattern, p) for p in paths)],
                         model_name)

    def check_all_used(self, model_name: str) -> None:
        """After a trace: a pattern that matched no layer is an error (a typo)."""
        self._refuse([pattern for pattern, _ in self.rules if pattern not in self.used],
                     model_name)

    def _refuse(self, unused, model_name):
        if unused:
            raise ValueError(f"{self.what} patterns {unused} match no layer of model "
                             f"{model_name!r} (patterns match layer paths, e.g. "
                             "\"encoder/dense\").")
