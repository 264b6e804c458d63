"""The report of Keras's own tests run against kgraph: per Keras folder, the cases that
pass, fail, are skipped by Keras's own conditions, and are in the ledger.

    python -m tests.keras_suite.report            # the suite's default shards
    python -m tests.keras_suite.report --all      # every folder of suite.FOLDERS
    python -m tests.keras_suite.report --mode keras   # the same files under Keras itself
    python -m tests.keras_suite.report --save out/ --shard layers-3   # keep each shard's JSON
    python -m tests.keras_suite.report --all --load out/ --write-open   # list what fails

A case is counted once: a file that cannot be imported counts each of the cases Keras
collects from it (``--collect-only`` under Keras) as failed.
"""

from __future__ import annotations

import argparse
import collections
import json
import pathlib
import subprocess
import sys

from tests.keras_suite import expected_failures, ledger, open_defects, suite

__all__ = ["summarize", "table"]


def keras_cases(files) -> dict[str, list[str]]:
    """The case ids Keras itself collects from ``files``, by file."""
    command = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-c",
               str(suite.REPOSITORY / "tests" / "keras_suite" / "pytest.ini"),
               "--rootdir", str(suite.KERAS_FOLDER.parent), "-p", "tests.keras_suite.plugin",
               *files]
    env = {**suite.base_environment(), "KGRAPH_KERAS_SUITE": "keras"}
    done = subprocess.run(command, cwd=suite.KERAS_FOLDER.parent, env=env,
                          capture_output=True, text=True)
    cases = collections.defaultdict(list)
    for line in done.stdout.splitlines():
        if "::" in line:
            cases[line.split("::")[0]].append(line.strip())
    return cases


def summarize(runs: list[dict], universe: dict[str, list[str]]) -> dict:
    """Outcome of every case Keras has (``universe``, by file) and of any other case the
    runs report: ``{case: (outcome, message)}``, outcome one of ``passed``, ``failed``,
    ``skipped``, ``ledger``, ``not run``; a file that cannot be imported fails each of
    its cases."""
    results = {}
    for run in runs:
        results.update(run["results"])
    outcomes = {}
    for case, (outcome, message, _) in results.items():
        if "::" in case:
            outcomes[case] = ("failed" if outcome == "error" else outcome, message)
    for file, cases in universe.items():
        for case in cases:
            entry = ledger.entry_for(case)
            if entry is not None:
                outcomes[case] = ("ledger", entry.kind)
            elif case not in outcomes:
                error = results.get(file)
                outcomes[case] = ("failed", error[1]) if error else ("not run", "")
    return outcomes


def _folder(case: str) -> str:
    parts = case.split("/")
    return parts[2] if len(parts) > 3 else case  # a collection error of a folder: its own row


def table(outcomes: dict, argv=None):
    """The figures by folder as a ``benchmarks.results.Table``: cases passed / failed /
    skipped / in the ledger, the pass rate of the cases run (not skipped, not in the ledger)
    and the ledger's share of the cases. ``table(outcomes).markdown()`` prints it."""
    from benchmarks.results import Table, command

    counts = collections.defaultdict(collections.Counter)
    for case, (outcome, _) in outcomes.items():
        counts[_folder(case)][outcome] += 1
        counts["total"][outcome] += 1
    rows = []
    for folder in [*sorted(f for f in counts if f != "total"), "total"]:
        c = counts[folder]
        ran = c["passed"] + c["failed"]
        rate = f"{100 * c['passed'] / ran:.1f}%" if ran else "-"
        share = f"{100 * c['ledger'] / sum(c.values()):.1f}%"
        name = f"**{folder}**" if folder == "total" else f"`{folder}/`"
        rows.append([name, sum(c.values()), c["passed"], c["failed"], c["skipped"],
                     c["ledger"], c["not run"], rate, share])
    return Table("keras_suite", command("tests.keras_suite.report", argv,
                                        flags=("--write-open", "--failures"),
                                        options=("--save", "--load")),
                 ["Keras folder", "cases", "passed", "failed", "skipped by Keras",
                  "in the ledger", "not run", "pass rate", "ledger share"],
                 rows, ["---"] + ["---:"] * 8, against=["keras"])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true", help="every folder, not the default set")
    parser.add_argument("--mode", choices=("kgraph", "keras"), default="kgraph")
    parser.add_argument("--shard", action="append", help="only these shards (by name)")
    parser.add_argument("--save", type=pathlib.Path, help="a folder for each shard's JSON")
    parser.add_argument("--failures", action="store_true", help="list each failing case")
    parser.add_argument("--load", type=pathlib.Path,
                        help="summarize the shards' JSON saved in this folder (no run)")
    parser.add_argument("--write-open", action="store_true",
                        help="list the failing cases in open_defects/ (and drop those passing)")
    parser.add_argument("--results", action="store_true",
                        help="keep the table in benchmarks/results/keras_suite.json (the docs "
                             "show it)")
    parser.add_argument("files", nargs="*", help="only these of Keras's test files")
    args = parser.parse_args(argv)
    if args.files:
        chosen = [suite.Shard("files", tuple(args.files))]
    else:
        chosen = [s for s in suite.shards(everything=args.all)
                  if not args.shard or s.name in args.shard]
    runs = []
    for shard in chosen:
        saved = args.load / f"{shard.name}.json" if args.load else None
        if saved is not None:
            if not saved.exists():
                continue
            runs.append(json.loads(saved.read_text()))
            continue
        run = suite.run_shard(shard, args.mode)
        print(f"{shard.name}: {len(run['results'])} results in {run['seconds']} s",
              file=sys.stderr, flush=True)
        if args.save:
            args.save.mkdir(parents=True, exist_ok=True)
            (args.save / f"{shard.name}.json").write_text(json.dumps(run, indent=0))
        runs.append(run)
    universe = keras_cases([f for s in chosen for f in s.files])
    outcomes = summarize(runs, universe)
    made = table(outcomes, argv)
    print(made.markdown())
    if args.results:
        print(f"kept in {made.write()}", file=sys.stderr)
    if args.write_open:
        write_open(outcomes, runs)
    if args.failures:
        for case, (outcome, message) in sorted(outcomes.items()):
            if outcome == "failed":
                print(f"{case}\n    {message}")
    return 0


def write_open(outcomes: dict, runs: list[dict]) -> None:
    """List each failing case that no list holds yet in ``open_defects`` (with the error it
    gives), and take out those the run saw pass and those now known differences; a file
    that cannot be imported is listed by its path alone."""
    files = {file: message for run in runs
             for file, (outcome, message, _) in run["results"].items()
             if "::" not in file and outcome in ("failed", "error")
             and not ledger.lists_file(file)}
    failing = {case: message for case, (outcome, message) in outcomes.items()
               if outcome == "failed" and case.split("::")[0] not in files}
    failing.update(files)  # (a file that cannot be imported: listed once, by its path)
    ran = set(outcomes) | {file for run in runs for file in run["results"]}
    ran |= {case.split("::")[0] for case, (outcome, _) in outcomes.items()
            if outcome in ("passed", "failed", "skipped")}  # a file whose cases ran imports
    differences = {case for d in expected_failures.DIFFERENCES for case in d.cases}
    differences |= set(expected_failures.FAILING_UNDER_KERAS)
    found = {case: reason for case, reason in open_defects.OPEN_DEFECTS.items()
             if (case not in ran or case in failing) and case not in differences}
    listed = expected_failures.expected(failing)
    found.update({case: " ".join(message.split())[:240]
                  for case, message in failing.items() if case not in listed})
    open_defects.write(found)

if __name__ == "__main__":
    sys.exit(main())
