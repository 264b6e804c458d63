"""``ProgressBar``: what ``fit`` / ``evaluate`` / ``predict`` print (Keras's ``ProgbarLogger``).

``verbose`` comes from the run's params, as in Keras:

- ``1`` (or ``"auto"``): a tqdm bar per epoch ("Epoch 1/5"), with steps done / total,
  elapsed time, ETA, rate and the running loss and metrics, which are read from the
  device at most every ``refresh_interval`` seconds. At the epoch end the bar shows all
  epoch logs, ``val_*`` included. ``evaluate`` and ``predict`` get a bar too (validation
  inside ``fit`` is silent). In a notebook the bar is a widget (``tqdm.auto``); when the
  output is neither a terminal nor a notebook, ``1`` prints like ``2``.
- ``2``: one line per epoch, ``Epoch 1/5 - 3s - loss: 0.1234 - val_loss: 0.2345``, and
  one line at the end of ``evaluate`` (``Evaluate - 1s - loss: 0.1234``).
- ``0``: nothing.

>>> import io
>>> out = io.StringIO()
>>> bar = ProgressBar(file=out)
>>> bar.set_params({"epochs": 5, "steps": 10, "verbose": 2})
>>> bar.on_train_begin()
>>> bar.on_epoch_begin(0)
>>> bar.on_epoch_end(0, {"loss": 0.12345, "val_loss": 2e-05})
>>> out.getvalue().split(" - ", 2)[::2]
['Epoch 1/5', 'loss: 0.1235 - val_loss: 2.0000e-05\\n']
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np
from tqdm import TqdmWarning

__all__ = ["ProgressBar", "format_duration", "format_logs", "format_value"]


with warnings.catch_warnings():
    # In a notebook without ipywidgets, tqdm warns and falls back to text; the bar then
    # prints plain lines instead (``display``), so the warning would only be noise.
    warnings.simplefilter("ignore", TqdmWarning)
    from tqdm.auto import tqdm as auto_tqdm
from tqdm import autonotebook, std  # already imported (quietly) by tqdm.auto

from kgraph.callbacks.callback import Callback


def format_value(value) -> str:
    """A log value as Keras prints it: 4 decimals, scientific at or below 1e-3.

    >>> format_value(0.123456), format_value(1e-5), format_value("n/a")
    ('0.1235', '1.0000e-05', 'n/a')
    """
    if isinstance(value, str):
        return value
    try:
        value = float(value)
    except (TypeError, ValueError):
        try:  # a metric with a value per class or threshold: their mean, as Keras prints
            value = float(np.mean(np.asarray(value, np.float64)))
        except (TypeError, ValueError):
            return str(value)
    return f"{value:.4f}" if abs(value) > 1e-3 else f"{value:.4e}"


def format_logs(logs) -> str:
    """``"loss: 0.1234 - accuracy: 0.9000"`` from a dict of logs, in its order."""
    return " - ".join(f"{name}: {format_value(value)}" for name, value in (logs or {}).items())


def format_duration(seconds: float) -> str:
    """``"3s"`` from one second up, ``"250ms"`` below."""
    return f"{seconds:.0f}s" if seconds >= 1 else f"{seconds * 1000:.0f}ms"


def _resolve_verbose(verbose):
    if verbose == "auto":
        return 1
    if verbose not in (0, 1, 2):
        raise ValueError(f"verbose must be 0 (silent), 1 (progress bar), 2 (one line per "
                         f"epoch) or 'auto', received {verbose!r}.")
    return int(verbose)


def _is_ready(logs) -> bool:
    """Whether every device value in ``logs`` is computed (reading it would not wait)."""
    return all(getattr(value, "is_ready", lambda: True)() for value in logs.values())


class ProgressBar(Callback):
    """Progress bars (``verbose=1``) or per-epoch lines (``verbose=2``) on tqdm.

    Args:
      file: the stream to write to; ``sys.stdout`` (looked up at each use) by default.
      refresh_interval: the bar reads device logs and redraws at most this often (s);
        the loop may also call its batch hooks only this often.
      dynamic: force the live bar (True) or lines (False) instead of detecting a
        terminal or notebook.
    """

    def __init__(self, file=None, refresh_interval: float = 0.15, dynamic: bool | None = None):
        super().__init__()
        self.file = file
        self.refresh_interval = refresh_interval
        self.batch_hook_interval = refresh_interval
        self.dynamic = dynamic
        self.verbose = 1
        self.epochs = 1
        self.steps = None
        self._bar = None
        self._in_fit = False
        self._start = 0.0
        self._last_read = 0.0
        self._pending = None

    def set_params(self, params):
        super().set_params(params)
        self.verbose = _resolve_verbose(params.get("verbose", 1))
        self.epochs = params.get("epochs", 1)
        self.steps = params.get("steps")

    # ----------------------------------------------------------------- display
    @property
    def _stream(self):
        return self.file if self.file is not None else sys.stdout

    @property
    def display(self) -> str:
        """``"bar"``, ``"line"`` or ``"silent"``, from ``verbose`` and the stream."""
        if self.verbose == 0:
            return "silent"
        if self.verbose == 2:
            return "line"
        dynamic = self.dynamic
        if dynamic is None:
            stream = self._stream
            dynamic = bool(getattr(stream, "isatty", lambda: False)()) or (
                stream is sys.stdout and autonotebook.tqdm is not std.tqdm)  # notebook widget
        return "bar" if dynamic else "line"

    def uses_batch_hooks(self, mode="train"):
        super().uses_batch_hooks(mode)  # validates mode
        silent_validation = mode == "test" and self._in_fit
        return self.display == "bar" and not silent_validation

    def _print(self, text: str) -> None:
        print(text, file=self._stream, flush=True)

    def _open(self, description: str, total) -> None:
        self._close()
        self._start = time.perf_counter()
        self._last_read = self._start
        self._pending = None
        if self.display == "bar":
            self._bar = auto_tqdm(total=total, desc=description, unit="step", file=self._stream,
                                  leave=True, dynamic_ncols=True, disable=False,
                                  mininterval=self.refresh_interval)

    def _advance(self, batch: int, logs) -> None:
        """Move the bar to ``batch + 1`` steps; refresh the logs if it is time."""
        bar = self._bar
        if bar is None:
            return
        if logs is not None:  # not `if logs`: lazy logs would be computed every batch
            now = time.perf_counter()
            if now - self._last_read >= self.refresh_interval:
                self._refresh_postfix(bar, logs)
                self._last_read = now
        if batch + 1 > bar.n:
            bar.update(batch + 1 - bar.n)

    def _refresh_postfix(self, bar, logs) -> None:
        """Show the latest logs if computed, else those kept at the previous refresh
        (most likely computed by now), so the bar hardly ever waits for the device."""
        current = dict(logs)  # batch logs are only valid during the hook: keep a copy
        if _is_ready(current):
            shown, self._pending = current, None
        else:
            shown, self._pending = self._pending, current
        if shown is not None:
            bar.set_postfix_str(format_logs(shown), refresh=False)

    def _finish(self, logs) -> int:
        """Complete the bar (showing ``logs``) and close it; returns the steps counted."""
        bar, self._bar = self._bar, None
        if bar is None:
            return 0
        if bar.total is None:
            bar.total = bar.n
        elif bar.n < bar.total:
            bar.update(bar.total - bar.n)
        if logs:
            bar.set_postfix_str(format_logs(logs), refresh=False)
        bar.close()
        return bar.n

    def _close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def _elapsed(self) -> str:
        return format_duration(time.perf_counter() - self._start)

    # ------------------------------------------------------------------- fit
    def on_train_begin(self, logs=None):
        self._in_fit = True  # validation inside fit is silent, as in Keras

    def on_train_end(self, logs=None):
        self._close()
        self._in_fit = False

    def on_epoch_begin(self, epoch, logs=None):
        if self.display != "silent":
            self._open(f"Epoch {epoch + 1}/{self.epochs}", self.steps)

    def on_train_batch_end(self, batch, logs=None):
        self._advance(batch, logs)

    def on_epoch_end(self, epoch, logs=None):
        display = self.display
        if display == "bar":
            seen = self._finish(logs)
            if self.steps is None and seen:
                self.steps = seen  # unknown length: learnt from the first epoch, as Keras
        elif display == "line":
            text = f"Epoch {epoch + 1}/{self.epochs} - {self._elapsed()}"
            self._print(f"{text} - {format_logs(logs)}" if logs else text)

    # -------------------------------------------------------------- evaluate
    def on_test_begin(self, logs=None):
        if not self._in_fit and self.display != "silent":
            self._open("Evaluate", self.steps)

    def on_test_batch_end(self, batch, logs=None):
        if not self._in_fit:
            self._advance(batch, logs)

    def on_test_end(self, logs=None):
        if self._in_fit:
            return
        display = self.display
        if display == "bar":
            self._finish(logs)
        elif display == "line":
            text = f"Evaluate - {self._elapsed()}"
            self._print(f"{text} - {format_logs(logs)}" if logs else text)

    # --------------------------------------------------------------- predict
    def on_predict_begin(self, logs=None):
        if self.display != "silent":
            self._open("Predict", self.steps)

    def on_predict_batch_end(self, batch, logs=None):
        self._advance(batch, None)  # outputs are not logs

    def on_predict_end(self, logs=None):
        display = self.display
        if display == "bar":
            self._finish(None)
        elif display == "line":
            steps = f" - {self.steps} steps" if self.steps else ""
            self._print(f"Predict - {self._elapsed()}{steps}")
