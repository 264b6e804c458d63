"""The graph core imports its neighbours at the top: the only function-local imports left
in these modules are the deliberate ones (runtime, saving, compiler for the pytree weights
file of ``save_weights("*.safetensors")``, and the two upward reaches of ``Model``:
``Model.__new__`` -> Functional and ``_repr_html_`` -> plotting)."""

import ast
import pathlib

import numpy as np
import pytest

import kgraph

_ROOT = pathlib.Path(kgraph.__file__).parent
_ALLOWED = {
    "models/model": {"kgraph.models.functional", "kgraph.display.plotting", "kgraph.saving",
                     "runtime.keras_shell", "compiler"},
    "models/functional": {"kgraph.saving"},
    "models/sequential": {"kgraph.saving"},
    "display/summary": set(),
    "display/plotting": set(),
    "graph/keras_tensor": set(),
}


def _local_imports(module):
    tree = ast.parse((_ROOT / f"{module}.py").read_text())
    found = set()
    for function in ast.walk(tree):
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(function):
                if isinstance(node, ast.ImportFrom) and node.module:
                    name = node.module
                    if name == "kgraph":
                        found.update(f"kgraph.{a.name}" for a in node.names)
                    else:
                        found.add(name)
                elif isinstance(node, ast.Import):
                    found.update(a.name for a in node.names)
    return {name for name in found if name.split(".")[0] in ("kgraph", "runtime", "compiler")}


@pytest.mark.parametrize("module", sorted(_ALLOWED))
def test_only_deliberate_function_local_imports(module):
    assert _local_imports(module) <= _ALLOWED[module]


def test_keras_tensor_imports_nothing_from_kgraph_and_its_operators_work():
    tree = ast.parse((_ROOT / "graph" / "keras_tensor.py").read_text())
    modules = {getattr(node, "module", None) for node in ast.walk(tree)
               if isinstance(node, ast.ImportFrom)}
    assert not {m for m in modules if m and m.startswith("kgraph")}
    x = kgraph.Input(shape=(3,))
    y = ((-(2 * x + 1) ** 2 / 3 - 1) @ np.ones((3, 3), np.float32))[:, :2]
    assert y.shape == (None, 2)
    assert y._keras_history.layer.op_name == "get_item"
