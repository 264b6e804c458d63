"""Pickling the wrappers (scikit-learn's way of saving estimators, ``joblib.dump`` too): a
kgraph model travels as the bytes of its ``.keras`` file (architecture, weights, compile
config), as Keras's models pickle, and ``history_`` without its link to the model.

>>> import pickle, kgraph as kg
>>> x = kg.Input(shape=(2,))
>>> state = picklable_state({"model_": kg.Model(x, kg.layers.Dense(1)(x)), "n": 2})
>>> restored = restored_state(pickle.loads(pickle.dumps(state)))
>>> restored["model_"].count_params(), restored["n"]
(3, 2)
"""

from __future__ import annotations

import copy
import os
import tempfile

from kgraph import saving
from kgraph.callbacks.history import History
from kgraph.models.model import Model


class _SavedModel:
    """A model as the bytes of its ``.keras`` file."""

    def __init__(self, model):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "model.keras")
            model.save(path)
            with open(path, "rb") as file:
                self.data = file.read()

    def load(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "model.keras")
            with open(path, "wb") as file:
                file.write(self.data)
            return saving.load_model(path)


def _detached(history: History) -> History:
    """``history`` without the model it points to (its logs only)."""
    copied = History()
    copied.history, copied.epoch = copy.deepcopy(history.history), list(history.epoch)
    return copied


def picklable_state(state: dict) -> dict:
    """An estimator's ``__dict__`` with its models saved as bytes."""
    return {name: _SavedModel(value) if isinstance(value, Model)
            else _detached(value) if isinstance(value, History) else value
            for name, value in state.items()}


def restored_state(state: dict) -> dict:
    """``picklable_state``'s output with the models loaded back."""
    return {name: value.load() if isinstance(value, _SavedModel) else value
            for name, value in state.items()}
