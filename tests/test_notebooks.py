"""The notebooks are kept with their outputs stripped (CI executes them: notebooks/execute.py)."""

import json
import pathlib

import pytest

NOTEBOOKS = sorted((pathlib.Path(__file__).parents[1] / "notebooks").glob("*.ipynb"))


def test_there_are_the_five_stories():
    assert [path.name[:3] for path in NOTEBOOKS] == ["01_", "02_", "03_", "04_", "05_"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_outputs_are_stripped(path):
    book = json.loads(path.read_text())
    assert book["metadata"]["kernelspec"]["name"] == "python3"
    for cell in book["cells"]:
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None, path.name
