"""A griffe extension for the API reference: the ``>>>`` examples of a docstring, with the
output lines after them, become ``pycon`` code blocks wherever they stand (not only under an
``Examples:`` heading), so they render as the sessions they are (doctests run in CI)."""

from __future__ import annotations

import griffe


def as_code_blocks(text: str) -> str:
    """``text`` with each run of doctest lines (a ``>>>`` line, ``...`` continuations, its
    output up to a blank line) fenced as ``pycon``.

    >>> as_code_blocks("Add one.\\n\\n>>> 1 + 1\\n2\\n\\nDone.").splitlines()
    ['Add one.', '', '```pycon', '>>> 1 + 1', '2', '```', '', 'Done.']
    """
    out, inside = [], False
    for line in text.splitlines():
        stripped = line.strip()
        if not inside and stripped.startswith(">>>"):
            indent = line[:len(line) - len(line.lstrip())]
            out.append(f"{indent}```pycon")
            inside = True
        elif inside and not stripped:
            out.append(f"{indent}```")
            inside = False
        out.append(line)
    if inside:
        out.append(f"{indent}```")
    return "\n".join(out)


class DoctestBlocks(griffe.Extension):
    """Fence every docstring's doctest sessions (see ``as_code_blocks``)."""

    def on_instance(self, *, obj, **kwargs) -> None:  # noqa: ARG002 - griffe's hook signature
        if obj.docstring is not None and ">>>" in obj.docstring.value:
            obj.docstring.value = as_code_blocks(obj.docstring.value)
