"""The pytest plugin that runs Keras's own test files (from the installed ``keras`` wheel,
nothing copied) in a process of their own, ``keras`` being kgraph (``KGRAPH_KERAS_SUITE=kgraph``,
through ``kgraph.compat``) or Keras itself (``=keras``, the oracle run).

It gives the files what Keras's repository gives them: ``conftest.skip_if_backend`` and the
``requires_trainable_backend`` / ``multi_device`` markers (a multi-device case is skipped on
one device, as in Keras's CI); under kgraph, a Keras test file imported by another
(``keras.src.layers.convolutional.conv_test``) is that file. Cases in the ledger are not run;
every other case's outcome is written to the JSON file ``KGRAPH_KERAS_SUITE_RESULTS``.
"""

from __future__ import annotations

import faulthandler
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import pathlib
import signal
import sys
import time
import types

import pytest

from tests.keras_suite import ledger

MODE = os.environ.get("KGRAPH_KERAS_SUITE", "kgraph")
KERAS_FOLDER = pathlib.Path(importlib.machinery.PathFinder.find_spec("keras").origin).parent
_STATE = {"results": {}, "ledger": {}, "started": time.time()}  # what the run found


class _KerasTestFiles(importlib.abc.MetaPathFinder):
    """``keras.src.<path>_test`` modules are Keras's own test files, run on kgraph."""

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith("keras.src.") or not fullname.endswith("_test"):
            return None
        file = KERAS_FOLDER.joinpath(*fullname.split(".")[1:]).with_suffix(".py")
        return importlib.util.spec_from_file_location(fullname, file) if file.is_file() else None


def _backend() -> str:
    from keras.src.backend import backend
    return backend()


def _skip_if_backend(given_backend, reason):
    return pytest.mark.skipif(_backend() == given_backend, reason=reason)


def pytest_configure(config):
    if MODE == "kgraph":
        import kgraph.compat
        kgraph.compat.install()
        sys.meta_path.insert(0, _KerasTestFiles())
    else:
        os.environ["KERAS_BACKEND"] = "jax"
    repository_conftest = types.ModuleType("conftest")  # Keras's, for its test files
    repository_conftest.skip_if_backend = _skip_if_backend
    sys.modules["conftest"] = repository_conftest
    config.addinivalue_line("markers", "requires_trainable_backend: Keras's marker")
    config.addinivalue_line("markers", "multi_device: Keras's marker")


def _lists_every_case(config) -> bool:
    """Keras's cases listed under Keras itself (``--collect-only``: the report's count of
    every case Keras has), those in the ledger included."""
    return MODE == "keras" and config.getoption("collectonly")


def pytest_ignore_collect(collection_path, config):
    """A file the ledger lists whole is not imported."""
    if _lists_every_case(config):
        return None
    if collection_path.suffix == ".py" and collection_path.is_relative_to(KERAS_FOLDER):
        return ledger.lists_file(str(collection_path.relative_to(KERAS_FOLDER.parent))) or None
    return None


def pytest_collection_modifyitems(session, config, items):
    import jax
    one_device = jax.device_count() == 1
    kept, listed = [], _STATE["ledger"]
    every_case = _lists_every_case(config)
    for item in items:
        entry = None if every_case else ledger.entry_for(item.nodeid)
        if entry is not None:
            listed[item.nodeid] = entry.kind
            continue
        if one_device and "multi_device" in item.keywords:
            item.add_marker(pytest.mark.skip(reason="Requires multiple devices"))
        kept.append(item)
    if listed:
        config.hook.pytest_deselected(items=[i for i in items if i.nodeid in listed])
    items[:] = kept


def _message(report) -> str:
    """The error's first line (a collection error's: its last ``E`` line)."""
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        lines = crash.message.strip().splitlines()
    else:
        text = str(report.longrepr)
        lines = [line[1:].strip() for line in text.splitlines() if line.startswith("E ")][-1:]
        lines = lines or text.strip().splitlines()
    return lines[0][:300] if lines else ""


def pytest_runtest_logreport(report):
    results = _STATE["results"]
    if report.when == "call" or report.outcome != "passed":
        if report.skipped:
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else ""
            outcome = ("skipped", str(reason).removeprefix("Skipped: "))
        elif report.failed:
            outcome = ("failed" if report.when == "call" else "error", _message(report))
        else:
            outcome = ("passed", "")
        if report.nodeid not in results or results[report.nodeid][0] == "passed":
            results[report.nodeid] = (*outcome, round(report.duration, 3))
            _journal({"case": report.nodeid, "result": results[report.nodeid]})


def _journal(entry) -> None:
    """Each finished case, as it finishes: what a run that dies (out of memory) leaves."""
    path = os.environ.get("KGRAPH_KERAS_SUITE_RESULTS")
    if path:
        with open(path + ".journal", "a") as journal:
            journal.write(json.dumps(entry) + "\n")


def pytest_runtest_logstart(nodeid, location):
    _journal({"started": nodeid})


CASE_SECONDS = 300  # a case that runs longer is stopped (a hang must not stall the run)


class CaseTimeout(BaseException):
    """A case ran longer than ``CASE_SECONDS`` (not an ``Exception``: code under test that
    catches every ``Exception`` must not swallow it and run on)."""


def _too_long(signum, frame):
    raise CaseTimeout(f"the case ran longer than {CASE_SECONDS} s")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    previous = signal.signal(signal.SIGALRM, _too_long)
    signal.alarm(CASE_SECONDS)
    # a case stuck where the alarm cannot reach it (in native code, on a lock) ends the
    # process a minute later, its stacks printed; the journal says which case it was
    faulthandler.dump_traceback_later(CASE_SECONDS + 60, exit=True)
    try:
        return (yield)
    finally:
        faulthandler.cancel_dump_traceback_later()
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def pytest_collectreport(report):
    if report.failed:  # a file that cannot be imported: each of its cases is an error
        _STATE["results"][report.nodeid] = ("error", _message(report), 0.0)


def pytest_sessionfinish(session):
    out = os.environ.get("KGRAPH_KERAS_SUITE_RESULTS")
    if out:
        pathlib.Path(out).write_text(json.dumps(
            {"mode": MODE, "results": _STATE["results"], "ledger": _STATE["ledger"],
             "seconds": round(time.time() - _STATE["started"], 1)}, indent=0))
