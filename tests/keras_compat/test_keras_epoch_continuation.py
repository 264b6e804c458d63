"""What carries from one epoch to the next, as in Keras: with ``steps_per_epoch`` an epoch
goes on through the data where the last one stopped (a ``PyDataset`` too), in whole
executions of ``steps_per_execution``; a metric whose ``reset_state`` keeps its state keeps
it across epochs."""

import keras
import numpy as np
import pytest

import kgraph as kg


def _fit(lib, data, *, metrics=(), steps_per_execution=1, **fit_kwargs):
    """``(batch indices seen per epoch, history)`` of a zero-initialised linear model."""

    class Seen(lib.callbacks.Callback):
        def __init__(self):
            super().__init__()
            self.epochs = []

        def on_epoch_begin(self, epoch, logs=None):
            self.epochs.append([])

        def on_train_batch_end(self, batch, logs=None):
            self.epochs[-1].append(batch)

    inputs = lib.Input((1,))
    model = lib.Model(inputs, lib.layers.Dense(1, kernel_initializer="zeros")(inputs))
    model.compile("sgd", "mse", metrics=list(metrics),
                  steps_per_execution=steps_per_execution)
    seen = Seen()
    history = model.fit(*data, verbose=0, callbacks=[seen], **fit_kwargs)
    return seen.epochs, history.history


def _batches(lib):
    class Batches(lib.utils.PyDataset):
        def __len__(self):
            return 5

        def __getitem__(self, index):
            return (np.full((2, 1), float(index), np.float32),
                    np.full((2, 1), float(index), np.float32))

    return Batches()


@pytest.mark.filterwarnings("ignore:Your input ran out of data")
def test_py_dataset_epochs_of_steps_go_on_through_the_data():
    ours = _fit(kg, (_batches(kg),), epochs=4, steps_per_epoch=2, shuffle=False)
    theirs = _fit(keras, (_batches(keras),), epochs=4, steps_per_epoch=2, shuffle=False)
    assert ours[0] == theirs[0] == [[0, 1], [0, 1], [0], [0, 1]]
    np.testing.assert_allclose(ours[1]["loss"], theirs[1]["loss"], rtol=1e-5)


@pytest.mark.filterwarnings("ignore:Your input ran out of data")
@pytest.mark.parametrize("steps_per_epoch", [5, 8])
def test_steps_per_epoch_runs_whole_executions(steps_per_epoch):
    x = np.linspace(0.0, 1.0, 80, dtype="float32").reshape(80, 1)
    kwargs = dict(batch_size=8, epochs=2, steps_per_epoch=steps_per_epoch, shuffle=False,
                  steps_per_execution=2)
    ours = _fit(kg, (x, 2 * x), **kwargs)
    theirs = _fit(keras, (x, 2 * x), **kwargs)
    assert ours[0] == theirs[0]
    np.testing.assert_allclose(ours[1]["loss"], theirs[1]["loss"], rtol=1e-5)


def test_a_metric_that_does_not_reset_keeps_counting_across_epochs():
    def never_reset(lib):
        class Running(lib.metrics.MeanSquaredError):
            def __init__(self):
                super().__init__(name="running")

            def reset_state(self):
                pass

        return Running()

    x = np.linspace(0.0, 1.0, 32, dtype="float32").reshape(32, 1)
    kwargs = dict(batch_size=8, epochs=3, shuffle=False)
    ours = _fit(kg, (x, 2 * x), metrics=[never_reset(kg)], **kwargs)[1]
    theirs = _fit(keras, (x, 2 * x), metrics=[never_reset(keras)], **kwargs)[1]
    np.testing.assert_allclose(ours["running"], theirs["running"], rtol=1e-5)
    assert ours["running"][-1] != pytest.approx(ours["loss"][-1])  # (it did not reset)
