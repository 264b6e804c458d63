"""``fit(shuffle=True)`` on a ``PyDataset`` takes its batches in a shuffled order each
epoch, as Keras 3 does (its order comes from Python's ``random``, kgraph's from the fit's
seeded generator, so the orders differ but both are whole permutations); with
``shuffle=False`` both go in index order."""

from __future__ import annotations

import keras
import numpy as np
import pytest

import kgraph as kg

BATCHES = 8


def _recording(lib):
    class Recording(lib.utils.PyDataset):
        def __init__(self):
            super().__init__()
            self.seen, self.ends = [], 0

        def __len__(self):
            return BATCHES

        def __getitem__(self, index):
            self.seen.append(int(index))
            x = np.full((4, 2), index, np.float32)
            return x, x[:, :1]

        def on_epoch_end(self):
            self.ends += 1
    return Recording()


def _epoch_orders(lib, shuffle):
    inputs = lib.Input((2,))
    model = lib.Model(inputs, lib.layers.Dense(1)(inputs))
    model.compile(optimizer="sgd", loss="mse")
    data = _recording(lib)
    model.fit(data, epochs=3, shuffle=shuffle, verbose=0)
    seen = [i for i in data.seen]
    # (Keras may read one batch ahead to learn the data's structure)
    seen = seen[len(seen) - 3 * BATCHES:]
    return [seen[e * BATCHES:(e + 1) * BATCHES] for e in range(3)], data.ends


@pytest.mark.parametrize("shuffle", [False, True])
def test_py_dataset_batch_order_as_keras(shuffle):
    keras.utils.set_random_seed(1)
    for lib in (keras, kg):
        orders, ends = _epoch_orders(lib, shuffle)
        assert all(sorted(order) == list(range(BATCHES)) for order in orders), lib
        in_order = [order == list(range(BATCHES)) for order in orders]
        assert all(in_order) if not shuffle else not all(in_order), (lib, orders)
        assert ends >= 3
