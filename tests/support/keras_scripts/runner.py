"""Run a Keras 3 script unchanged with ``keras`` pointing at kgraph.

``run(path)`` executes the script in this process with ``import keras`` (and ``from keras
import layers`` / ``import keras.ops`` ...) resolving to kgraph's modules, then restores
whatever ``keras`` was before. ``python tests/support/keras_scripts/runner.py --keras`` runs every
script under Keras itself instead (to check they are valid Keras 3 code).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import os
import pathlib
import runpy
import sys

HERE = pathlib.Path(__file__).parent
SCRIPTS = sorted(p for p in HERE.glob("*.py") if p.name not in ("runner.py", "__init__.py"))


class _KerasIsKgraph(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Resolves ``keras`` and ``keras.x.y`` to the modules ``kgraph`` and ``kgraph.x.y``."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname == "keras" or fullname.startswith("keras."):
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        return importlib.import_module("kgraph" + spec.name[len("keras"):])

    def exec_module(self, module):
        pass


def run(path, workdir) -> dict:
    """Execute ``path`` with keras = kgraph in ``workdir``; returns the script's globals."""
    saved = {name: sys.modules.pop(name) for name in list(sys.modules)
             if name == "keras" or name.startswith("keras.")}
    finder = _KerasIsKgraph()
    sys.meta_path.insert(0, finder)
    cwd = os.getcwd()
    os.chdir(workdir)
    try:
        return runpy.run_path(str(path), run_name="__main__")
    finally:
        os.chdir(cwd)
        sys.meta_path.remove(finder)
        for name in [n for n in sys.modules if n == "keras" or n.startswith("keras.")]:
            del sys.modules[name]
        sys.modules.update(saved)


if __name__ == "__main__":
    import tempfile

    under_keras = "--keras" in sys.argv
    names = [a for a in sys.argv[1:] if not a.startswith("--")]
    for script in SCRIPTS:
        if names and script.stem not in names:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            print(f"=== {script.name} ({'keras' if under_keras else 'kgraph'})", flush=True)
            try:
                if under_keras:
                    os.environ.setdefault("KERAS_BACKEND", "jax")
                    cwd = os.getcwd()
                    os.chdir(tmp)
                    try:
                        runpy.run_path(str(script), run_name="__main__")
                    finally:
                        os.chdir(cwd)
                else:
                    run(script, tmp)
                print(f"=== PASSED {script.name}", flush=True)
            except Exception as error:  # report and go on to the next script
                print(f"=== FAILED {script.name}: {type(error).__name__}: {error}", flush=True)
