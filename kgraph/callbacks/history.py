"""``History``: the per-epoch logs that ``fit`` returns, as in Keras.

>>> history = History()
>>> history.on_train_begin()
>>> history.on_epoch_end(0, {"loss": 0.5, "val_loss": 0.6})
>>> history.on_epoch_end(1, {"loss": 0.4, "val_loss": 0.5})
>>> history.epoch, history.history["loss"]
([0, 1], [0.5, 0.4])
"""

from __future__ import annotations

from kgraph.callbacks.callback import Callback

__all__ = ["History"]


class History(Callback):
    """Records epoch logs: ``history.history["loss"][i]`` and ``history.epoch[i]``.

    As in Keras, ``epoch`` restarts with each ``fit`` while ``history`` keeps growing
    when the same instance is reused, and the model's ``history`` attribute is set to
    this callback after every epoch.
    """

    _state_fields = ("history", "epoch")  # a resumed run's History holds the whole run

    def __init__(self):
        super().__init__()
        self.history: dict[str, list] = {}
        self.epoch: list[int] = []

    def on_train_begin(self, logs=None):
        self.epoch = []

    def on_epoch_end(self, epoch, logs=None):
        self.record(epoch, logs or {})
        if self.model is not None:
            self.model.history = self

    def record(self, epoch: int, logs: dict) -> None:
        """Append ``epoch`` and each value of ``logs``."""
        self.epoch.append(epoch)
        for name, value in logs.items():
            self.history.setdefault(name, []).append(value)

    def __repr__(self):
        return f"<History epochs={len(self.epoch)} keys={sorted(self.history)}>"
