"""When the loops call the callbacks' batch hooks, and with which batch numbers.

``HookClock``: never, every batch, or once per interval (the progress bar asks for
~0.15 s) and always at the epoch's end. ``Executions``: with ``steps_per_execution=k``,
Keras calls the hooks once per execution of ``k`` steps: ``on_*_batch_begin(first)`` and
``on_*_batch_end(first + k - 1)``, the last execution of an epoch too (however many steps
it has); ``k=1`` is once per batch. The steps themselves run as the loops dispatch them.

>>> calls = []
>>> hooks = Executions(3, None, lambda step: calls.append(("begin", step)),
...                    lambda step: calls.append(("end", step)))
>>> for step in range(4):
...     hooks.begin(step)
...     hooks.end(step, closes=True if step == 3 else None)  # step 3 ends the data
>>> calls
[('begin', 0), ('end', 2), ('begin', 3), ('end', 5)]
"""

from __future__ import annotations

import time

__all__ = ["Executions", "HookClock"]


class HookClock:
    """When to call batch hooks: never, every batch, or once per interval (the progress
    bar asks for ~0.15 s) and always on the epoch's last batch."""

    def __init__(self, callbacks, mode):
        self.interval = callbacks.batch_hook_interval(mode) if callbacks is not None else None
        self.last = -float("inf")

    def due(self, last_batch: bool) -> bool:
        if self.interval is None:
            return False
        now = time.perf_counter()
        if self.interval == 0.0 or last_batch or now - self.last >= self.interval:
            self.last = now
            return True
        return False


class Executions:
    """Keras's batch hooks grouped by executions of ``k`` steps (see the module docstring).

    ``begin(step, last=False)`` before a step (or a dispatch of several, from ``step``):
    an execution opens at a multiple of ``k`` and its begin hook runs if ``clock`` says it
    is due (``last``: the epoch ends within it; without a clock, always).
    ``end(step, closes)`` after the step (or dispatch) ending at ``step``: ``closes`` says
    whether it ends an execution (default: ``step + 1`` is a multiple of ``k``); then the
    end hook runs with the execution's nominal last step."""

    def __init__(self, k, clock, on_begin, on_end):
        self.k, self.clock = max(int(k), 1), clock
        self.on_begin, self.on_end = on_begin, on_end
        self.first, self.due = None, False

    def begin(self, step: int, last: bool = False) -> None:
        if self.first is not None and step % self.k != 0:
            return  # inside an open execution
        self.first = step - step % self.k if self.first is None else step
        self.due = True if self.clock is None else self.clock.due(last)
        if self.due and self.on_begin is not None:
            self.on_begin(self.first)

    def end(self, step: int, closes: bool | None = None) -> None:
        if self.first is None:
            return
        if closes is None:
            closes = (step + 1) % self.k == 0
        if closes:
            if self.due and self.on_end is not None:
                self.on_end(self.first + self.k - 1)
            self.first = None

    def close(self, step: int) -> None:
        """End the open execution, if any (the data ended at ``step``)."""
        self.end(step, closes=True)
