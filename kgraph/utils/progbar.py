"""``Progbar``: Keras's progress bar for your own loops, drawn with tqdm.

Values passed to ``update`` are averaged over the steps they cover (weighted by how many
steps each call advanced), except ``stateful_metrics``, shown as given; the last update
(``current >= target``, or ``finalize=True``) shows each value as given, as Keras does.
``verbose=1`` draws a bar (a widget in notebooks), ``verbose=2`` prints one line at the end,
``verbose=0`` nothing.

>>> import io
>>> out = io.StringIO()
>>> bar = Progbar(4, verbose=2, file=out)
>>> for step in range(1, 5):
...     bar.update(step, [("loss", 1.0 / step)])
>>> out.getvalue().split(" - ")[-1]  # the last update shows its value as given
'loss: 0.2500\\n'
"""

from __future__ import annotations

import math
import sys
import time
import warnings

import numpy as np

__all__ = ["Progbar"]


def _format_average(value: float, absolute: bool = True) -> str:
    big = abs(value) > 1e-3 if absolute else value > 1e-3  # Keras's line mode tests value
    return f"{value:.4f}" if big else f"{value:.4e}"


def _format_time(seconds_per_unit: float, unit_name: str) -> str:
    if seconds_per_unit >= 1 or seconds_per_unit == 0:
        return f"{seconds_per_unit:.0f}s/{unit_name}"
    if seconds_per_unit >= 1e-3:
        return f"{seconds_per_unit * 1e3:.0f}ms/{unit_name}"
    return f"{seconds_per_unit * 1e6:.0f}us/{unit_name}"


class Progbar:
    """A progress bar with running averages (Keras's ``keras.utils.Progbar``).

    Args:
      target: the number of steps expected (None: unknown).
      width: accepted for Keras's signature (tqdm sizes the bar itself).
      verbose: 0 (silent), 1 (a bar) or 2 (one line when done).
      interval: the least time between redraws, in seconds.
      stateful_metrics: names shown as given, not averaged (or ``stateless_metrics``:
        the only names averaged).
      unit_name: what a step is called (``"step"``, ``"sample"``).
      file: the stream to write to (``sys.stdout`` by default; kgraph's addition).
    """

    def __init__(self, target, width=20, verbose=1, interval=0.05, stateful_metrics=None,
                 stateless_metrics=None, unit_name="step", file=None):
        if stateful_metrics is not None and stateless_metrics is not None:
            raise ValueError("Only one of `stateful_metrics` or `stateless_metrics` can be "
                             "provided.")
        if verbose not in (0, 1, 2):
            raise ValueError(f"verbose must be 0, 1 or 2, received {verbose!r}.")
        self.target, self.width, self.verbose = target, width, verbose
        self.interval, self.unit_name, self.file = interval, unit_name, file
        self.stateful_metrics = None if stateless_metrics is not None else set(
            stateful_metrics or ())
        self.stateless_metrics = None if stateless_metrics is None else set(stateless_metrics)
        self._values: dict = {}
        self._seen_so_far = 0
        self._start = time.time()
        self._bar = None

    def _averaged(self, name) -> bool:
        if self.stateful_metrics is not None:
            return name not in self.stateful_metrics
        return name in self.stateless_metrics

    def _average(self, name) -> float:
        total, count = self._values[name]
        return float(np.mean(total)) / max(1, count)

    def update(self, current, values=None, finalize=None):
        """Move to step ``current``; ``values``: ``[(name, value of this step), ...]``."""
        if finalize is None:
            finalize = self.target is not None and current >= self.target
        for name, value in values or []:
            if self._averaged(name) and not finalize:
                base = max(current - self._seen_so_far, 1)
                total, count = self._values.get(name, (0.0, 0))
                self._values[name] = (total + value * base, count + base)
            else:
                self._values[name] = (value, 1)
        self._seen_so_far = current
        if self.verbose == 1:
            self._draw(current, finalize)
        elif self.verbose == 2 and finalize and self.target:
            self._line(current)

    def add(self, n, values=None):
        """Advance by ``n`` steps."""
        self.update(self._seen_so_far + n, values)

    # ------------------------------------------------------------------ display
    def _stream(self):
        return self.file if self.file is not None else sys.stdout

    def _draw(self, current, finalize):
        if self._bar is None:
            from tqdm import TqdmWarning

            with warnings.catch_warnings():  # a notebook without ipywidgets: plain text
                warnings.simplefilter("ignore", TqdmWarning)
                from tqdm.auto import tqdm
            self._bar = tqdm(total=self.target, unit=self.unit_name, file=self._stream(),
                             mininterval=self.interval, dynamic_ncols=True, leave=True)
        bar = self._bar
        if current > bar.n:
            bar.update(current - bar.n)
        bar.set_postfix_str(" - ".join(f"{name}: {_format_average(self._average(name))}"
                                       for name in self._values), refresh=finalize)
        if finalize:
            bar.close()
            self._bar = None

    def _line(self, current):
        elapsed = time.time() - self._start
        digits = int(math.log10(self.target)) + 1
        parts = [f"{current:{digits}d}/{self.target}", f"{elapsed:.0f}s",
                 _format_time(elapsed / max(current, 1), self.unit_name)]
        parts += [f"{name}: {_format_average(self._average(name), absolute=False)}"
                  for name in self._values]
        print(" - ".join(parts), file=self._stream(), flush=True)
