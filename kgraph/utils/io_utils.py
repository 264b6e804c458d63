"""Where kgraph's messages go, as Keras's ``io_utils``: to stdout while interactive logging
is on (the default), else to Python's ``logging`` (logger ``"kgraph"``, at INFO), e.g. a
callback's "setting learning rate" line in a log file instead of a notebook.

>>> print_msg("Epoch 1: saving model")
Epoch 1: saving model
"""

from __future__ import annotations

import logging
import sys

from kgraph import config

__all__ = ["ask_to_proceed_with_overwrite", "print_msg", "set_logging_verbosity"]

_LOGGER = logging.getLogger("kgraph")
_LEVELS = {"FATAL": logging.FATAL, "ERROR": logging.ERROR, "WARNING": logging.WARNING,
           "INFO": logging.INFO, "DEBUG": logging.DEBUG}


def set_logging_verbosity(level: str) -> None:
    """The least severe messages logged (``"FATAL"``, ``"ERROR"``, ``"WARNING"``, ``"INFO"``,
    ``"DEBUG"``) while interactive logging is off."""
    if level not in _LEVELS:
        raise ValueError("Please pass a valid level for logging verbosity. Expected one of: "
                         f"{set(_LEVELS)}. Received: {level}")
    _LOGGER.setLevel(_LEVELS[level])


def print_msg(message, line_break: bool = True) -> None:
    """``message`` to stdout (interactive logging on) or to the log at INFO."""
    message = str(message)
    if config.is_interactive_logging_enabled():
        sys.stdout.write(f"{message}\n" if line_break else message)
        sys.stdout.flush()
    else:
        _LOGGER.info(message)


def ask_to_proceed_with_overwrite(filepath) -> bool:
    """Ask on stdin whether to overwrite ``filepath``: True for yes, False for no."""
    answer = input(f"[WARNING] {filepath} already exists - overwrite? [y/n]").strip().lower()
    while answer not in ("y", "n"):
        answer = input('Enter "y" (overwrite) or "n" (cancel).').strip().lower()
    if answer == "n":
        return False
    print_msg("[TIP] Next time specify overwrite=True!")
    return True
