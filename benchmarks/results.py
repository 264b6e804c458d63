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


def command(program: str, argv=None, *, flags=(), options=()) -> str:
    """The command that measures a table again: ``program`` (a benchmark script's
    ``__file__``, run as ``python benchmarks/<name>.py``, or a module's dotted name, run with
    ``python -m``) with ``argv`` (by default the process's arguments), less what only keeps or
    reads results: ``--results``, the ``flags`` and the ``options`` with their values.

    >>> command("/anywhere/benchmarks/bench_demo.py", ["--quick", "--results"])
    'python benchmarks/bench_demo.py --quick'
    >>> command("tests.report", ["--all", "--save", "out/", "--load=in/"], options=["--save", "--load"])
    'python -m tests.report --all'
    """
    argv, kept = list(sys.argv[1:] if argv is None else argv), []
    while argv:
        arg = argv.pop(0)
        if arg in options:
            argv = argv[1:]  # and its value
        elif arg != "--results" and arg not in flags and arg.split("=")[0] not in options:
            kept.append(arg)
    run = (["python", f"benchmarks/{pathlib.Path(program).name}"] if program.endswith(".py")
           else ["python", "-m", program])
    return shlex.join([*run, *kept])


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
