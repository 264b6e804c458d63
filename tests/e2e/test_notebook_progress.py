"""fit's progress bars in a real notebook kernel: widgets where ipywidgets is installed,
plain lines and no warning where it is not."""

import pathlib

import pytest
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_notebook

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIT = """
import numpy as np, kgraph as kg
x = kg.Input(shape=(3,))
model = kg.Model(x, kg.layers.Dense(1)(x))
model.compile("sgd", "mse")
history = model.fit(np.ones((64, 3)), np.ones((64, 1)), epochs=2, batch_size=16, verbose=1)
"""


def _outputs(without_widgets: bool) -> list:
    setup = f"import sys\nsys.path.insert(0, {str(ROOT)!r})\n"
    if without_widgets:
        setup += "sys.modules['ipywidgets'] = None  # as if it were not installed\n"
    book = new_notebook(metadata={"kernelspec": {"name": "python3", "language": "python",
                                                 "display_name": "Python 3"}})
    book.cells = [new_code_cell(setup), new_code_cell(FIT)]
    NotebookClient(book, timeout=300, kernel_name="python3").execute()
    return [output for cell in book.cells for output in cell.outputs]


@pytest.mark.xdist_group("notebook_kernels")
def test_without_ipywidgets_the_bar_prints_lines_and_no_warning():
    outputs = _outputs(without_widgets=True)
    assert not [o for o in outputs if o.get("name") == "stderr"], outputs
    text = "".join(o.get("text", "") for o in outputs if o.get("name") == "stdout")
    assert "Epoch 1/2 - " in text and "Epoch 2/2 - " in text and "loss: " in text


@pytest.mark.xdist_group("notebook_kernels")
def test_with_ipywidgets_the_bar_is_a_widget():
    pytest.importorskip("ipywidgets", reason="the notebook extra installs ipywidgets")
    outputs = _outputs(without_widgets=False)
    widgets = [o for o in outputs if "application/vnd.jupyter.widget-view+json"
               in o.get("data", {})]
    assert len(widgets) == 2, outputs  # one bar per epoch
    assert "Epoch 1/2" in widgets[0]["data"]["text/plain"]
