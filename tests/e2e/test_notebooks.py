"""The notebooks: kept with their outputs stripped, and run by ``python notebooks/execute.py``.
Building the site executes each of them (``tests/docs/test_site.py``: a failing cell fails the
build)."""

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
def test_the_runner_executes_a_notebook_cell_by_cell(tmp_path):
    seconds = _runner().execute(FOLDER / "02_pure_program.ipynb")
    assert seconds > 0
    import nbformat
    broken = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1"),
                                             nbformat.v4.new_code_cell("raise ValueError(x)")])
    nbformat.write(broken, tmp_path / "broken.ipynb")
    with pytest.raises(Exception, match="ValueError"):  # nbclient's CellExecutionError
        _runner().execute(tmp_path / "broken.ipynb")
