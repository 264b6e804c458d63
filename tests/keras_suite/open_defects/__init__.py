"""Keras's test cases that fail on kgraph for a defect not fixed yet, each with the error it
gives, one module per Keras folder (``layers.py`` lists ``keras/src/layers/``'s). Written by
``python -m tests.keras_suite.report --write-open`` from a run's results (a reason written by
hand stays), read by ``expected_failures``. The lists only shrink: a case fixed passes, and
the suite then asks for it to be removed.
"""

from __future__ import annotations

import importlib
import pathlib
import pkgutil

__all__ = ["FOLDER", "OPEN_DEFECTS", "write"]

FOLDER = pathlib.Path(__file__).parent
OPEN_DEFECTS: dict[str, str] = {
    case: reason
    for module in pkgutil.iter_modules([str(FOLDER)])
    for case, reason in importlib.import_module(f"{__name__}.{module.name}").OPEN.items()}


def _folder(case: str) -> str:
    return case.split("/")[2]  # keras/src/<folder>/...


def write(open_defects: dict[str, str]) -> None:
    """Write ``open_defects`` ({case: reason}) as the folders' modules (a folder left with
    none loses its module)."""
    by_folder: dict[str, dict] = {}
    for case, reason in open_defects.items():
        by_folder.setdefault(_folder(case), {})[case] = reason
    for module in FOLDER.glob("[!_]*.py"):
        if module.stem not in by_folder:
            module.unlink()
    for folder, cases in by_folder.items():
        entries = "\n".join(f"    {case!r}:\n        {reason!r},"
                            for case, reason in sorted(cases.items()))
        (FOLDER / f"{folder}.py").write_text(
            f'"""Keras\'s cases of ``keras/src/{folder}/`` that fail on kgraph for an open '
            f'defect."""\n\nOPEN: dict[str, str] = {{\n{entries}\n}}\n')
