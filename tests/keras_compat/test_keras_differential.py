"""The same training scripts under Keras 3 and under kgraph (``tests/support/keras_differential.py``):
histories, ``evaluate`` and final weights agree to 1e-5.

The suite runs ``SCRIPTS`` scripts; ``--differential-scripts N`` runs N (for a longer search).
"""

from __future__ import annotations

import keras
import numpy as np
import pytest

import kgraph as kg
from tests.support import keras_differential as scripts

SCRIPTS = 36
CHUNKS = 6
TOLERANCE = 1e-5


def _close(ours, theirs) -> bool:
    ours, theirs = np.asarray(ours, np.float64), np.asarray(theirs, np.float64)
    return ours.shape == theirs.shape and bool(np.allclose(ours, theirs, rtol=TOLERANCE,
                                                           atol=TOLERANCE))


def differences(ours, theirs) -> list:
    """What differs between two runs' results."""
    found = []
    if len(ours["histories"]) != len(theirs["histories"]):
        return ["number of fits"]
    for index, (mine, keras_history) in enumerate(zip(ours["histories"], theirs["histories"])):
        if set(mine) != set(keras_history):
            found.append(f"fit {index} logs {sorted(mine)} vs Keras {sorted(keras_history)}")
            continue
        for name in keras_history:
            if len(mine[name]) != len(keras_history[name]) or not all(
                    _close(a, b) for a, b in zip(mine[name], keras_history[name])):
                found.append(f"fit {index} {name}: {np.round(mine[name], 6).tolist()} vs "
                             f"Keras {np.round(keras_history[name], 6).tolist()}")
    if set(ours["evaluate"]) != set(theirs["evaluate"]):
        found.append(f"evaluate {sorted(ours['evaluate'])} vs Keras "
                     f"{sorted(theirs['evaluate'])}")
    else:
        found += [f"evaluate {name}: {ours['evaluate'][name]} vs {theirs['evaluate'][name]}"
                  for name in theirs["evaluate"]
                  if not _close(ours["evaluate"][name], theirs["evaluate"][name])]
    bad = [i for i, (a, b) in enumerate(zip(ours["weights"], theirs["weights"]))
           if not _close(a, b)]
    if bad or len(ours["weights"]) != len(theirs["weights"]):
        found.append(f"final weights {bad}")
    return found


def check(seed: int) -> list:
    script = scripts.draw(seed)
    keras.utils.set_random_seed(seed)
    reference = scripts.build(script, keras)
    weights = [np.asarray(w) for w in reference.get_weights()]
    theirs = scripts.run(script, keras, weights)
    ours = scripts.run(script, kg, weights)
    found = differences(ours, theirs)
    return [f"{script.describe()}\n    " + "\n    ".join(found)] if found else []


def _count(config) -> int:
    return config.getoption("--differential-scripts") or SCRIPTS


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_training_scripts_agree_with_keras(chunk, pytestconfig):
    failures = []
    for seed in range(chunk, _count(pytestconfig), CHUNKS):
        failures += check(seed)
    assert not failures, "\n".join(failures)
