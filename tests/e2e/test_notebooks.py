"""The notebooks: kept with their outputs stripped, and each executed cell by cell in a fresh kernel
(a failing cell fails the test), as ``python notebooks/execute.py`` does."""

import importlib.util
import json
import pathlib

import pytest

FOLDER = pathlib.Path(__file__).parents[2] / "notebooks"
NOTEBOOKS = sorted(FOLDER.glob("*.ipynb"))


def _runner():
    spec = importlib.util.spec_from_file_location("notebooks_execute", FOLDER / "execute.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_there_are_the_six_stories():
    assert [path.name[:3] for path in NOTEBOOKS] == ["01_", "02_", "03_", "04_", "05_", "06_"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_outputs_are_stripped(path):
    book = json.loads(path.read_text())
    assert book["metadata"]["kernelspec"]["name"] == "python3"
    for cell in book["cells"]:
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None, path.name


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_cell_by_cell(path):
    seconds = _runner().execute(path)  # raises CellExecutionError naming the failing cell
    assert seconds > 0
