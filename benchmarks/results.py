"""The tables benchmark scripts write, one JSON file per table in ``benchmarks/results/``,
which the documentation renders (``docs/hooks.py``: ``<!-- figures: NAME -->``), so a table
and the command that measured it cannot disagree.

A script prints its table with ``markdown`` and, given ``--results``, keeps it with ``write``:
the command that made it, the day, the machine's Python and JAX, the header and the rows.

>>> table = Table("demo", "python benchmarks/demo.py", ["case", "ms"], [["a", "1.5"]],
...               align=["---", "---:"])
>>> print(table.markdown())
| case | ms |
|---|---:|
| a | 1.5 |
"""

from __future__ import annotations

import dataclasses
import datetime
import importlib.metadata
import json
import os
import pathlib
import platform
import shlex
import sys
import tempfile

RESULTS = pathlib.Path(__file__).resolve().parent / "results"


@dataclasses.dataclass
class Table:
    """One benchmark table: its name (the file's), the command that measures it, the header
    and the rows as the cells shown, each column's Markdown alignment, and where it ran."""

    name: str
    command: str
    header: list
    rows: list
    align: list | None = None
    against: list = dataclasses.field(default_factory=list)  # distributions measured against
    measured: dict = dataclasses.field(default_factory=dict)

    def markdown(self) -> str:
        align = self.align or ["---"] * len(self.header)
        lines = ["| " + " | ".join(self.header) + " |", "|" + "|".join(align) + "|"]
        lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in self.rows]
        return "\n".join(lines)

    def write(self) -> pathlib.Path:
        """Keep the table in ``benchmarks/results/<name>.json`` (written whole, then renamed
        into place), with the day, the machine's Python and JAX, and the installed version of
        each distribution in ``against`` (what the table compares with, e.g. ``keras``)."""
        import jax

        self.measured = {"date": datetime.date.today().isoformat(),
                         "python": platform.python_version(), "jax": jax.__version__,
                         "machine": f"{platform.machine()}, {os.cpu_count()} cores",
                         **{name: importlib.metadata.version(name) for name in self.against}}
        RESULTS.mkdir(exist_ok=True)
        path = RESULTS / f"{self.name}.json"
        with tempfile.NamedTemporaryFile("w", dir=RESULTS, delete=False, suffix=".tmp") as f:
            json.dump(dataclasses.asdict(self), f, indent=1)
        os.replace(f.name, path)
        return path


def command(script: str, argv=None) -> str:
    """The command that ran ``script`` (a benchmark's ``__file__``) with ``argv`` (by default
    the process's arguments), less ``--results``: what a reader types to measure it again.

    >>> command("/anywhere/benchmarks/bench_demo.py", ["--quick", "--results"])
    'python benchmarks/bench_demo.py --quick'
    """
    argv = sys.argv[1:] if argv is None else argv
    kept = [arg for arg in argv if arg != "--results"]
    return shlex.join(["python", f"benchmarks/{pathlib.Path(script).name}", *kept])


def read(name: str) -> Table:
    """The table kept as ``benchmarks/results/<name>.json``."""
    return Table(**json.loads((RESULTS / f"{name}.json").read_text()))


def rendered(name: str) -> str:
    """The kept table as the documentation shows it: the table, then its command and where
    and when it was measured."""
    table = read(name)
    where = dict(table.measured)
    core = {key: where.pop(key, None) for key in ("date", "machine", "python", "jax")}
    others = "".join(f", {library} {version}" for library, version in where.items())
    return (f"{table.markdown()}\n\nMeasured with `{table.command}` on {core['date']}, "
            f"{core['machine']}, Python {core['python']}, JAX {core['jax']}{others}.\n")
