"""The layering is the pipeline, one way: ``compiler`` imports ``kgraph``, ``runtime`` imports
both, and nothing imports upward but the one declared seam (``kgraph.engine``, through which
``Model.compile`` / ``fit`` reach the runtime). Function-local imports are counted as imports:
each one left is listed here with its reason, and no cycle is larger than two modules."""

import ast
import pathlib

import numpy as np

import kgraph
from tests.support.import_graph import ImportGraph

_ROOT = pathlib.Path(kgraph.__file__).parent.parent
SEAM = ("kgraph.engine", "runtime.keras_shell")
# Every function-local project import, with why it is not at the top of its module.
DECLARED_LOCAL = {
    SEAM: "the declared seam: kgraph reaches the runtime on first use only",
    ("kgraph.models.model", "kgraph.models.functional"):
        "Model(inputs, outputs) returns a Functional, a Model subclass (Keras's __new__)",
}
# The one cycle left: Model.__new__ makes a Functional, which subclasses Model.
DECLARED_CYCLES = [["kgraph.models.functional", "kgraph.models.model"]]


def _graph():
    return ImportGraph(_ROOT)


def test_nothing_imports_upward_but_the_declared_seam():
    assert _graph().upward() == {SEAM}


def test_function_local_imports_are_the_declared_ones():
    found = {(module, target) for module, target, _ in _graph().local}
    assert found == set(DECLARED_LOCAL)


def test_no_cycle_but_the_declared_one():
    graph = _graph()
    assert graph.cycles(ignore=[SEAM]) == DECLARED_CYCLES
    assert len(graph.cycles()[0]) > 2  # the seam closes a loop through the runtime, by design


def test_the_graph_finds_what_it_looks_for(tmp_path):
    package = tmp_path / "kgraph"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from kgraph import b\n")
    (package / "b.py").write_text("def f():\n    from . import a\n    import runtime.c\n")
    (tmp_path / "compiler").mkdir()
    (tmp_path / "runtime").mkdir()
    (tmp_path / "runtime" / "c.py").write_text("import kgraph.a\n")
    graph = ImportGraph(tmp_path)
    assert graph.upward() == {("kgraph.b", "runtime.c")}
    assert {(m, t) for m, t, _ in graph.local} == {("kgraph.b", "kgraph.a"),
                                                   ("kgraph.b", "runtime.c")}
    assert graph.cycles() == [["kgraph.a", "kgraph.b", "runtime.c"]]
    assert graph.cycles(ignore=[("kgraph.b", "runtime.c")]) == [["kgraph.a", "kgraph.b"]]


def test_keras_tensor_imports_nothing_from_kgraph_and_its_operators_work():
    tree = ast.parse((_ROOT / "kgraph" / "graph" / "keras_tensor.py").read_text())
    modules = {getattr(node, "module", None) for node in ast.walk(tree)
               if isinstance(node, ast.ImportFrom)}
    assert not {m for m in modules if m and m.startswith("kgraph")}
    x = kgraph.Input(shape=(3,))
    y = ((-(2 * x + 1) ** 2 / 3 - 1) @ np.ones((3, 3), np.float32))[:, :2]
    assert y.shape == (None, 2)
    assert y._keras_history.layer.op_name == "get_item"
