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

SCRIPTS = 100
CHUNKS = 10
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
    if len(ours["evaluate list"]) != len(theirs["evaluate list"]) or not all(
            _close(a, b) for a, b in zip(ours["evaluate list"], theirs["evaluate list"])):
        found.append(f"evaluate as a list {np.round(ours['evaluate list'], 6).tolist()} vs "
                     f"Keras {np.round(theirs['evaluate list'], 6).tolist()}")
    bad = [i for i, (a, b) in enumerate(zip(ours["weights"], theirs["weights"]))
           if not _close(a, b)]
    if bad or len(ours["weights"]) != len(theirs["weights"]):
        found.append(f"final weights {bad}")
    for name in ("reloaded", "predicted"):
        if name in theirs and not _close(ours.get(name), theirs[name]):
            found.append(f"{name} predictions differ")
    if "reloaded" in ours and not _close(ours["reloaded"], ours["predicted"]):
        found.append("kgraph's reloaded model predicts otherwise than the trained one")
    return found


def check(seed: int, folder) -> list:
    script = scripts.draw(seed)
    keras.utils.set_random_seed(seed)
    reference = scripts.build(script, keras)
    weights = [np.asarray(w) for w in reference.get_weights()]
    theirs = scripts.run(script, keras, weights, folder)
    ours = scripts.run(script, kg, weights, folder)
    found = differences(ours, theirs)
    return [f"{script.describe()}\n    " + "\n    ".join(found)] if found else []


def _count(config) -> int:
    return config.getoption("--differential-scripts") or SCRIPTS


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_training_scripts_agree_with_keras(chunk, pytestconfig, tmp_path):
    failures = []
    for seed in range(chunk, _count(pytestconfig), CHUNKS):
        failures += check(seed, tmp_path)
    assert not failures, "\n".join(failures)
