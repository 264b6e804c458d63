"""Run every notebook in this folder in a fresh kernel (building the site runs them too): a
failing cell fails the run. Prints how long each one took. The notebooks' files go to a temporary folder.

    python notebooks/execute.py                        # all of them, in order
    python notebooks/execute.py 05_deploy.ipynb        # some

Needs the notebook extra: ``pip install -e ".[notebooks]"``.
"""

from __future__ import annotations

import pathlib
import sys
import tempfile
import time

import nbformat
from nbclient import NotebookClient

HERE = pathlib.Path(__file__).resolve().parent


def execute(path: pathlib.Path) -> float:
    """Run ``path``'s cells in order in a new kernel; the seconds it took."""
    book = nbformat.read(path, as_version=4)
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        NotebookClient(book, timeout=600, kernel_name="python3",
                       resources={"metadata": {"path": folder}}).execute()
        return time.perf_counter() - started


def main(argv) -> int:
    paths = [HERE / name for name in argv] or sorted(HERE.glob("*.ipynb"))
    total = 0.0
    for path in paths:
        seconds = execute(path)
        total += seconds
        print(f"{path.name}: {seconds:.1f} s", flush=True)
    print(f"{len(paths)} notebooks in {total:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
