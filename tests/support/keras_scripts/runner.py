"""Run a Keras 3 script unchanged with ``keras`` pointing at kgraph.

``run(path)`` executes the script in this process with ``import keras`` (and ``from keras
import layers`` / ``import keras.ops`` ...) resolving to kgraph's modules
(``kgraph.compat.install``), then restores whatever ``keras`` was before. ``python tests/support/keras_scripts/runner.py --keras`` runs every
script under Keras itself instead (to check they are valid Keras 3 code).
"""

from __future__ import annotations

import os
import pathlib
import runpy
import sys

from kgraph import compat

HERE = pathlib.Path(__file__).parent
SCRIPTS = sorted(p for p in HERE.glob("*.py") if p.name not in ("runner.py", "__init__.py"))


def run(path, workdir) -> dict:
    """Execute ``path`` with keras = kgraph (``kgraph.compat.install``) in ``workdir``;
    returns the script's globals."""
    cwd = os.getcwd()
    os.chdir(workdir)
    try:
        with compat.install():
            return runpy.run_path(str(path), run_name="__main__")
    finally:
        os.chdir(cwd)


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
