"""Keras's own test files, from the installed ``keras`` wheel, run against kgraph: every case
passes but those in the ledger (``ledger.py``: cases that cannot apply to kgraph) and those
listed as failing (``expected_failures.py``), which must still fail. One test per shard of
files, each in a process of its own (``suite.py``); ``KGRAPH_KERAS_SUITE_ALL=1`` runs every
folder, not only the default ones. ``python -m tests.keras_suite.report`` prints the figures."""

from __future__ import annotations

import collections
import subprocess
import sys

import pytest

from tests.keras_suite import expected_failures, ledger, open_defects, report, suite

pytestmark = pytest.mark.slow


def _failed(run) -> dict:
    return {case: message for case, (outcome, message, _) in run["results"].items()
            if outcome in ("failed", "error")}


@pytest.mark.parametrize("shard", suite.shards(), ids=lambda shard: shard.name)
def test_kerass_own_tests_pass_on_kgraph(shard):
    run = suite.run_shard(shard)
    failed = _failed(run)
    listed = expected_failures.expected(set(run["results"]) | set(failed))
    new = {case: message for case, message in failed.items() if case not in listed}
    fixed = sorted(case for case in listed if case not in failed)
    lines = [f"FAILS {case}\n    {message}" for case, message in sorted(new.items())]
    lines += [f"PASSES NOW (remove it from expected_failures.py) {case}" for case in fixed]
    assert not lines, "\n".join(lines)


def test_every_ledger_entry_lists_cases_keras_has():
    """A ledger entry that matches none of Keras's cases is stale (a renamed test); one
    listing a whole file names a file Keras has (Keras may not collect it here: a file
    importing PyTorch)."""
    files = [f for folder in suite.FOLDERS for f in suite.test_files(folder)]
    cases = [case for found in report.keras_cases(files).values() for case in found]
    unused = [entry.pattern for entry in ledger.LEDGER
              if not any(ledger.fnmatch.fnmatchcase(case, entry.pattern) for case in cases)
              and entry.pattern.removesuffix("::*") not in files]
    assert not unused, f"ledger entries matching no case of Keras's: {unused}"


def test_cases_listed_as_failing_under_keras_fail_under_keras():
    done = subprocess.run([sys.executable, "-m", "tests.keras_suite.run", "--keras", "-q",
                           *expected_failures.FAILING_UNDER_KERAS], cwd=suite.REPOSITORY,
                          capture_output=True, text=True, timeout=600)
    summary = done.stdout.strip().splitlines()[-1]
    assert f"{len(expected_failures.FAILING_UNDER_KERAS)} failed" in summary, done.stdout[-2000:]
    assert "passed" not in summary


def test_the_docs_list_every_known_difference():
    page = (suite.REPOSITORY / "docs" / "known-differences.md").read_text()
    missing = [d.why for d in expected_failures.DIFFERENCES if f"- {d.why}" not in page]
    assert not missing, f"docs/known-differences.md does not list these: {missing}"


def test_the_docs_count_the_open_defects():
    """docs/keras-test-suite.md's "Left open" figures are the lists' own: cases, files, each
    folder's cases."""
    readme = " ".join((suite.REPOSITORY / "docs" / "keras-test-suite.md").read_text().split())
    cases = [case for case in open_defects.OPEN_DEFECTS if "::" in case]
    files = len(open_defects.OPEN_DEFECTS) - len(cases)
    by_folder = collections.Counter(case.split("/")[2] for case in cases)
    stated = [f"Left open: {len(cases)} cases and {files} files"] + [
        f"`{folder}/` {count}" for folder, count in by_folder.items()]
    assert [claim for claim in stated if claim not in readme] == []
