"""Which of Keras's test files run, in which shards, and running a shard in a process of its
own (``run_shard``): under kgraph (``mode="kgraph"``) or under Keras itself (``"keras"``,
the oracle: what passes on Keras on this machine).

The folders are those of Keras's behaviour that kgraph offers (``FOLDERS``). The suite's
default run is a named subset of them (``DEFAULT``, within the CI's time);
``KGRAPH_KERAS_SUITE_ALL=1`` (or ``report.py --all``) runs all of them.
"""

from __future__ import annotations

import dataclasses
import json
import os
import pathlib
import subprocess
import sys
import resource
import tempfile

from tests.keras_suite import ledger
from tests.keras_suite.plugin import KERAS_FOLDER
from tests.support.xla_flags import with_fast_compile

__all__ = ["DEFAULT", "FOLDERS", "Shard", "base_environment", "run_shard", "shards", "test_files"]

REPOSITORY = pathlib.Path(__file__).resolve().parents[2]
FOLDERS = ("activations", "callbacks", "constraints", "initializers", "layers", "losses",
           "metrics", "models", "ops", "optimizers", "regularizers", "saving", "trainers")
# The folders the suite runs by default: within the CI's time. ``layers`` and ``ops`` (about
# three quarters of the cases and of the time) run with ``KGRAPH_KERAS_SUITE_ALL=1``.
DEFAULT = tuple(f for f in FOLDERS if f not in ("layers", "ops"))
MEMORY_LIMIT = 8 << 30


def test_files(folder: str) -> list[str]:
    """Keras's test files of ``folder``, as paths relative to the ``keras`` package's parent."""
    root = KERAS_FOLDER / "src" / folder
    return sorted(str(p.relative_to(KERAS_FOLDER.parent)) for p in root.rglob("*_test.py"))


@dataclasses.dataclass(frozen=True)
class Shard:
    """A named group of Keras's test files, run in one process."""

    name: str
    files: tuple[str, ...]


def shards(everything: bool | None = None, per_shard: int = 12) -> list[Shard]:
    """The folders' files in shards of at most ``per_shard`` files: every folder with
    ``everything`` (default: ``KGRAPH_KERAS_SUITE_ALL=1``), else those of ``DEFAULT``."""
    if everything is None:
        everything = os.environ.get("KGRAPH_KERAS_SUITE_ALL") == "1"
    result = []
    for folder in FOLDERS if everything else DEFAULT:
        files = test_files(folder)
        for start in range(0, len(files), per_shard):
            part = files[start:start + per_shard]
            suffix = f"-{start // per_shard + 1}" if len(files) > per_shard else ""
            result.append(Shard(f"{folder}{suffix}", tuple(part)))
    return result


def base_environment() -> dict:
    """The environment of a run of Keras's files: this repository importable, JAX's Keras,
    one CPU device (Keras's multi-device cases are skipped, as the lists were made)."""
    environment = {k: v for k, v in os.environ.items() if k != "JAX_NUM_CPU_DEVICES"}
    return {**environment, "KERAS_BACKEND": "jax", "PYTHONDONTWRITEBYTECODE": "1",
            "JAX_PLATFORMS": os.environ.get("JAX_PLATFORMS", "cpu"),
            "XLA_FLAGS": with_fast_compile(os.environ.get("XLA_FLAGS", "")),
            "PYTHONPATH": os.pathsep.join([str(REPOSITORY), os.environ.get("PYTHONPATH", "")])}


def run_shard(shard: Shard, mode: str = "kgraph", timeout: float = 1800) -> dict:
    """Run ``shard``'s files in a new process; ``{"results": {case: (outcome, message,
    seconds)}, "ledger": {case: kind}, "seconds": ...}``."""
    with tempfile.TemporaryDirectory(prefix="keras-suite-") as folder:
        out = pathlib.Path(folder) / "results.json"
        env = {**base_environment(), "KGRAPH_KERAS_SUITE": mode,
               "KGRAPH_KERAS_SUITE_RESULTS": str(out)}
        command = [sys.executable, "-m", "pytest", "-q", "-c",
                   str(REPOSITORY / "tests" / "keras_suite" / "pytest.ini"),
                   "--rootdir", str(KERAS_FOLDER.parent), "-p", "tests.keras_suite.plugin",
                   "--basetemp", str(pathlib.Path(folder) / "tmp"),
                   # (a file the ledger lists whole is not even imported: it may need PyTorch)
                   *[f for f in shard.files if not ledger.lists_file(f)]]
        try:
            done = subprocess.run(command, cwd=KERAS_FOLDER.parent, env=env,
                                  capture_output=True, text=True, timeout=timeout,
                                  preexec_fn=limit_memory)
        except subprocess.TimeoutExpired:
            return _from_journal(out, f"the shard ran longer than {timeout} s")
        if out.exists():
            return json.loads(out.read_text())
        return _from_journal(out, f"the process died (exit {done.returncode}): "
                                  f"{(done.stderr or done.stdout).strip()[-300:]}")


def limit_memory() -> None:
    """At most ``MEMORY_LIMIT`` bytes of data for a run of Keras's files: a case that asks
    for more fails with an allocation error instead of the machine running out."""
    resource.setrlimit(resource.RLIMIT_DATA, (MEMORY_LIMIT, MEMORY_LIMIT))


def _from_journal(out: pathlib.Path, why: str) -> dict:
    """The results of a run that died: the cases it finished, and the one it was running
    failed with ``why``."""
    results, running = {}, None
    journal = pathlib.Path(str(out) + ".journal")
    for line in journal.read_text().splitlines() if journal.exists() else ():
        entry = json.loads(line)
        if "started" in entry:
            running = entry["started"]
        else:
            results[entry["case"]] = entry["result"]
            running = None
    if running is not None:
        results[running] = ["error", why, 0.0]
    return {"mode": "died", "results": results, "ledger": {}, "seconds": None}
