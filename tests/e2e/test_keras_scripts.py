"""Keras 3 scripts (after keras.io examples and guides, with synthetic data of the same
shapes) run unchanged with ``keras`` pointing at kgraph (see ``keras_scripts/runner.py``).

Each script checks its own results (parameter counts, log keys, learning rates, shapes)."""

import pytest

from tests.support.keras_scripts import runner


@pytest.mark.slow
@pytest.mark.parametrize("script", runner.SCRIPTS, ids=lambda p: p.stem)
def test_keras_script_runs_unchanged(script, tmp_path):
    runner.run(script, tmp_path)
