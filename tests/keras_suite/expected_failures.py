"""Keras's test cases that fail on kgraph, each with its reason, in two lists.

``DIFFERENCES``: kgraph differs from Keras on purpose, and the README's "Known differences
from Keras" says why (kgraph is right, or Keras's behaviour cannot be kgraph's). ``OPEN``:
defects not fixed yet, each with the error the case gives; the list only shrinks. A case in
either list must still fail (the suite says so when one passes: then it leaves the list).
A Keras file that cannot be imported at all is listed by its path.

    python -m tests.keras_suite.report --failures   # the cases failing now, with errors
"""

from __future__ import annotations

__all__ = ["DIFFERENCES", "OPEN", "expected"]

# case id -> why kgraph differs (README: Known differences from Keras)
DIFFERENCES: dict[str, str] = {
    "keras/src/layers/preprocessing/normalization_test.py::NormalizationTest"
    "::test_normalization_basics":
        "calls a Normalization that was neither adapted nor given mean / variance: kgraph "
        "raises (a forgotten adapt), Keras normalizes with mean 0 and variance 1",
}

# case id -> the error it gives now (a defect to fix)
OPEN: dict[str, str] = {
}


def expected(cases) -> dict[str, str]:
    """Of ``cases`` (ids), those listed, with their reason."""
    listed = {**OPEN, **DIFFERENCES}
    return {case: listed[case] for case in cases if case in listed}
