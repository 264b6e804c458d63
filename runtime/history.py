"""``History``: per-epoch logs of ``fit``, as in Keras."""

from __future__ import annotations


class History:
    """``history.history["loss"][epoch]``; ``history.epoch`` lists the epochs run."""

    def __init__(self):
        self.history: dict[str, list[float]] = {}
        self.epoch: list[int] = []

    def record(self, epoch: int, logs: dict) -> None:
        self.epoch.append(epoch)
        for name, value in logs.items():
            self.history.setdefault(name, []).append(float(value))

    def __repr__(self):
        return f"<History epochs={len(self.epoch)} keys={sorted(self.history)}>"
