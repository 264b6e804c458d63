"""The load path cannot run code from a file: none of the modules that turn a file into a
model import ``importlib``, ``pickle``, ``marshal`` or their kin, or call ``eval``, ``exec``,
``compile`` or ``__import__``; classes and functions come from closed registries."""

import ast
import pathlib

import pytest

import kgraph

_KGRAPH = pathlib.Path(kgraph.__file__).parent
LOAD_PATH = sorted([*(_KGRAPH / "saving").glob("*.py"), *(_KGRAPH / "layers").glob("*.py"),
                    *(_KGRAPH / "losses").glob("*.py"), *(_KGRAPH / "metrics").glob("*.py"),
                    *(_KGRAPH / "optimizers").glob("*.py"),
                    *(_KGRAPH / name for name in (
                        "activations.py", "initializers.py", "regularizers.py",
                        "constraints.py", "serializable.py", "dtype_policies.py",
                        "dtype_policy.py"))])
FORBIDDEN_MODULES = {"importlib", "pickle", "cPickle", "marshal", "dill", "cloudpickle",
                     "shelve", "runpy", "pydoc", "code", "codeop"}
FORBIDDEN_CALLS = {"eval", "exec", "compile", "__import__"}


def _violations(path):
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.split(".")[0] in FORBIDDEN_MODULES]
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module.split(".")[0] in FORBIDDEN_MODULES:
                found.append(node.module)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id in FORBIDDEN_CALLS:
                found.append(f"{node.func.id}() at line {node.lineno}")
    return found


@pytest.mark.parametrize("path", LOAD_PATH, ids=lambda p: str(p.relative_to(_KGRAPH.parent)))
def test_no_code_loading_on_the_load_path(path):
    assert path.exists()
    assert _violations(path) == []


def test_the_scan_finds_what_it_looks_for(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import importlib\nfrom pickle import loads\neval('1')\n")
    assert _violations(bad) == ["importlib", "pickle", "eval() at line 3"]
