"""The documentation site: built in strict mode (a broken link, a reference mkdocstrings cannot
find or a docstring it cannot read fails the build), and every Python example of its pages
and of the README run, page by page, each page's blocks in order in one fresh process."""

import os
import pathlib
import re
import subprocess
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAGES = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
_BLOCK = re.compile(r"^(?P<indent>[ \t]*)```python\n(?P<code>.*?)^(?P=indent)```", re.M | re.S)
# A block the site shows but a single machine cannot run, with the reason, e.g.
# <!-- not run here: it needs N processes on N hosts -->, on the line before its fence.
_NOT_RUN = re.compile(r"<!-- not run here: [^>]+ -->\s*$")
_OUTPUT = re.compile(r'class="[^"]*\bjp-OutputArea-output\b')  # a cell's output, on a notebook's page


def python_blocks(text: str) -> list:
    """The ``python`` code blocks of a Markdown page, dedented, in order (those marked as not
    runnable here left out)."""
    blocks = []
    for match in _BLOCK.finditer(text):
        before = text[:match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        if not _NOT_RUN.search(before):
            blocks.append(textwrap.dedent(match.group("code")))
    return blocks


def test_the_blocks_are_found():
    page = "Text\n\n```python\nx = 1\n```\n\n- item\n\n  ```python\n  y = x\n  ```\n\n" \
           "<!-- not run here: needs two hosts -->\n```python\nraise SystemExit(1)\n```\n"
    assert python_blocks(page) == ["x = 1\n", "y = x\n"]


@pytest.mark.parametrize("page", [p for p in PAGES if python_blocks(p.read_text())],
                         ids=lambda p: p.name)
def test_the_examples_of_a_page_run(page, tmp_path):
    script = "\n".join(python_blocks(page.read_text()))
    env = {**os.environ, "JAX_PLATFORMS": "cpu", "PYTHONPATH": str(ROOT),
           "XLA_FLAGS": "--xla_force_host_platform_device_count=8", "MPLBACKEND": "Agg"}
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"{page.name}:\n{done.stderr[-4000:]}"


def _build(site, *, execute_notebooks: bool):
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d",
                           str(site)], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1",
                               "KGRAPH_DOCS_EXECUTE": str(execute_notebooks).lower(),
                               "KGRAPH_DOCS_NOTEBOOK_CACHE": "false"}, timeout=900)
    assert done.returncode == 0, done.stderr[-4000:]  # a failing cell fails the build too


def test_the_site_builds_in_strict_mode(tmp_path):
    """The pages, links, references and docstrings (the notebooks shown, not executed)."""
    site = tmp_path / "site"
    _build(site, execute_notebooks=False)
    for page in ("getting-started", "known-differences", "layers", "api/layers",
                 "notebooks/06_plan_a_tpu_run"):
        assert (site / page / "index.html").exists(), page
    assert "RandomShear" in (site / "known-differences" / "index.html").read_text()


@pytest.mark.slow  # it executes the six notebooks (about a minute)
def test_the_site_shows_the_notebooks_executed(tmp_path):
    site = tmp_path / "site"
    _build(site, execute_notebooks=True)
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        html = (site / "notebooks" / notebook.stem / "index.html").read_text()
        assert len(_OUTPUT.findall(html)) >= 3, f"{notebook.name}'s page shows no outputs"
        assert "before absl::InitializeLog" not in html  # native libraries' start-up logging
    quickstart = (site / "notebooks" / "01_quickstart" / "index.html").read_text()
    assert 'src="data:image/png;base64,' in quickstart  # the plots


def test_every_table_the_pages_show_is_kept_by_its_script():
    """Each ``<!-- figures: NAME -->`` of a page names a table its benchmark script kept
    (``--results``), with the command that measured it."""
    from benchmarks import results

    named = {name for page in PAGES for name in re.findall(r"<!-- figures: ([\w-]+) -->",
                                                             page.read_text())}
    kept = {path.stem for path in results.RESULTS.glob("*.json")}
    assert named == kept, "a kept table no page shows, or a page naming no kept table"
    for name in named:
        table = results.read(name)
        assert table.command.startswith(("python benchmarks/", "python -m tests.")) and table.rows
        assert all(len(row) == len(table.header) for row in table.rows)
        assert f"Measured with `{table.command}`" in results.rendered(name)
