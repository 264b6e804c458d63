"""Public and private are visible: every module of the three packages is private (its name
starts with ``_``) or lists its public names in ``__all__``; every listed name exists, and
every function or class a module defines without a leading ``_`` is listed."""

import ast
import importlib
import pathlib
import types

_ROOT = pathlib.Path(__file__).resolve().parents[2]
_MODULES = sorted(path for package in ("kgraph", "compiler", "runtime")
                  for path in (_ROOT / package).rglob("*.py")
                  if path.name != "__init__.py" and not path.name.startswith("_"))


def _problems(source: str, module) -> list:
    """What is wrong with the public names of ``module`` (its ``source`` text)."""
    if not hasattr(module, "__all__"):
        return ["no __all__"]
    listed = set(module.__all__)
    problems = [f"lists {name!r}, which it does not have" for name in sorted(listed)
                if not hasattr(module, name)]
    problems += [f"defines {node.name!r} without listing it"
                 for node in ast.parse(source).body
                 if isinstance(node, (ast.FunctionDef, ast.ClassDef))
                 and not node.name.startswith("_") and node.name not in listed]
    return problems


def test_every_module_lists_its_public_names():
    found = {}
    for path in _MODULES:
        name = ".".join(path.relative_to(_ROOT).with_suffix("").parts)
        problems = _problems(path.read_text(), importlib.import_module(name))
        if problems:
            found[name] = problems
    assert found == {}


def test_the_check_sees_each_kind_of_problem():
    source = "def shown():\n    pass\n\ndef hidden():\n    pass\n"
    module = types.ModuleType("example")
    exec(source, module.__dict__)
    assert _problems(source, module) == ["no __all__"]
    module.__all__ = ["shown", "gone"]
    assert _problems(source, module) == ["lists 'gone', which it does not have",
                                         "defines 'hidden' without listing it"]
    module.__all__ = ["shown", "hidden"]
    assert _problems(source, module) == []
