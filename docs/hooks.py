"""Pages generated from the code when the site is built, so they cannot drift from it:

- benchmark tables (at ``<!-- figures: NAME -->``): the table the benchmark script kept in
  ``benchmarks/results/NAME.json`` (``--results``), with its command, day and machine;
- the home page (at ``<!-- readme -->``): README.md itself, its links made the site's;
- ``known-differences.md``: the known differences from Keras, from the list Keras's own test
  suite checks them with (``tests/keras_suite/expected_failures.DIFFERENCES``); the page is
  kept in the repository too (so it reads on GitHub), written by ``python docs/hooks.py``, and
  the build fails when the kept one is not what the list gives;
- the table of ``layers.md`` (at ``<!-- layer-table -->``): every layer class
  ``kgraph.layers`` exports, its family, whether Keras 3 has it by the same name, and the
  known differences that name it; and ``api/layers.md``'s reference of each (at
  ``<!-- layer-reference -->``).
"""

from __future__ import annotations

import os
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
os.environ.setdefault("JAX_PLATFORMS", "cpu")


def _repository_importable() -> None:
    """The repository on ``sys.path`` (MkDocs restores the path after loading a hook)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))


def known_differences() -> str:
    _repository_importable()
    from tests.keras_suite.expected_failures import DIFFERENCES

    lines = ["# Known differences from Keras", "",
             "Where kgraph behaves otherwise than Keras 3 on purpose (kgraph is right, or Keras's",
             "behaviour cannot be kgraph's), each pinned by Keras's own test cases that fail on",
             "kgraph for it ([Keras's own tests](keras-test-suite.md)). This page is generated",
             "from the list the test suite checks those cases against.", ""]
    for difference in DIFFERENCES:
        cases = ", ".join(f"`{'.'.join(case.split('::')[-2:])}`" for case in difference.cases[:4])
        more = f" and {len(difference.cases) - 4} more" if len(difference.cases) > 4 else ""
        lines += [f"- {difference.why}", f"  (Keras's cases: {cases}{more}.)"]
    return "\n".join(lines) + "\n"


def layer_table() -> str:
    _repository_importable()
    import kgraph as kg
    from tests.keras_suite.expected_failures import DIFFERENCES

    try:
        import keras
        keras_names = set(dir(keras.layers))
    except ImportError:  # the docs extra installs Keras; without it the column says so
        keras_names = None
    rows = ["| layer | family | in Keras 3 | known differences |", "|---|---|---|---|"]
    for name in layer_classes():
        cls = getattr(kg.layers, name)
        family = cls.__module__.removeprefix("kgraph.").removeprefix("layers.")
        in_keras = "?" if keras_names is None else (
            f"`keras.layers.{name}`" if name in keras_names else "kgraph only")
        named = [d for d in DIFFERENCES if f"`{name}`" in d.why]
        differs = f"[{len(named)}](known-differences.md)" if named else ""
        rows.append(f"| [`{name}`](api/layers.md#kgraph.layers.{name}) | `{family}` | "
                    f"{in_keras} | {differs} |")
    return "\n".join(rows) + "\n"


def layer_classes() -> list:
    """The names of the layer classes ``kgraph.layers`` exports, sorted (Keras's other
    names for one, ``AvgPool1D`` for ``AveragePooling1D``, left out)."""
    _repository_importable()
    import kgraph as kg

    return sorted(name for name in dir(kg.layers) if not name.startswith("_") and isinstance(
        getattr(kg.layers, name), type) and issubclass(getattr(kg.layers, name), kg.layers.Layer)
        and getattr(kg.layers, name).__name__ == name)


def layer_reference() -> str:
    """One API entry per layer class (mkdocstrings' ``:::``, from its docstring)."""
    return "\n\n".join(f"::: kgraph.layers.{name}\n    options:\n      show_root_heading: true"
                       f"\n      heading_level: 2" for name in layer_classes()) + "\n"


KNOWN_DIFFERENCES = ROOT / "docs" / "known-differences.md"


def on_pre_build(config):
    if not KNOWN_DIFFERENCES.exists() or KNOWN_DIFFERENCES.read_text() != known_differences():
        from mkdocs.exceptions import PluginError

        raise PluginError("docs/known-differences.md is not the list of known differences "
                          "(tests/keras_suite/expected_failures.py): run python docs/hooks.py")


def front_page() -> str:
    """README.md, the site's home page: its links into ``docs/`` made relative to it."""
    return (ROOT / "README.md").read_text().replace("](docs/", "](")


_FIGURES = re.compile(r"<!-- figures: ([\w-]+) -->")


def figures(match) -> str:
    """A benchmark's table as its script kept it (``benchmarks/results/<name>.json``)."""
    _repository_importable()
    from benchmarks.results import rendered

    return rendered(match.group(1))


def on_page_markdown(markdown, page, config, files):
    generated = {"<!-- layer-table -->": layer_table, "<!-- layer-reference -->": layer_reference,
                 "<!-- readme -->": front_page}
    for marker, make in generated.items():
        if marker in markdown:
            markdown = markdown.replace(marker, make())
    return _FIGURES.sub(figures, markdown)


# What native libraries print on their own as they load (absl / glog lines: TensorFlow's, which
# Keras and KerasHub import where it is installed, and libtpu's on a machine with no TPU); a
# notebook cell's stderr is captured whole, so these would show on its page.
_LIBRARY_LOG_LINE = re.compile(
    r"^(WARNING: All log messages before absl::InitializeLog\(\)|WARNING: Logging before "
    r"InitGoogle\(\)|[IWEF]\d{4} \d\d:\d\d:\d+\.\d+ +\d+ \S+:\d+\]|=== Source Location Trace"
    r"|learning/\S+\.cc:\d+$|To enable the following instructions:|Failed to find host bounds "
    r"for accelerator type: |\s*$)")
_STDERR = re.compile(r'(<div class="[^"]*jp-OutputArea-output[^"]*" data-mime-type='
                     r'"application/vnd\.jupyter\.stderr"[^>]*>\s*<pre>)(.*?)(</pre>\s*</div>)',
                     re.S)


def quiet_stderr(html: str) -> str:
    r"""A notebook page without the native libraries' start-up logging in its cells' stderr
    outputs (an output left empty is dropped); every other line of stderr is kept.

    >>> page = ('<div class="jp-RenderedText jp-OutputArea-output" data-mime-type='
    ...         '"application/vnd.jupyter.stderr"><pre>WARNING: Logging before InitGoogle() '
    ...         'is written to STDERR\nUserWarning: kept\n</pre></div>')
    >>> "InitGoogle" in quiet_stderr(page), "UserWarning: kept" in quiet_stderr(page)
    (False, True)
    """
    def keep(match):
        lines = [line for line in match.group(2).split("\n")
                 if not _LIBRARY_LOG_LINE.match(line)]
        return f"{match.group(1)}{chr(10).join(lines)}{match.group(3)}" if lines else ""

    return _STDERR.sub(keep, html)


def on_page_content(html, page, config, files):
    if page.file.src_path.endswith(".ipynb"):
        return quiet_stderr(html)
    return html


if __name__ == "__main__":
    KNOWN_DIFFERENCES.write_text(known_differences())
    print(f"wrote {KNOWN_DIFFERENCES}")
