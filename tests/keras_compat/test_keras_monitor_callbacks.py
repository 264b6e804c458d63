"""The callbacks that watch a logged quantity (``EarlyStopping``, ``ReduceLROnPlateau``), with
Keras 3 as the oracle: which way a quantity improves is decided at the first epoch end, from
the model's compiled metric of that name (a custom metric's ``_direction`` too), so a name
that says nothing is no error when it is made; and ``ReduceLROnPlateau`` driven outside
``fit`` changes the model's optimizer's learning rate."""

from __future__ import annotations

import keras
import numpy as np
import pytest

import kgraph as kg


def _widgets_metric(lib):
    class Widgets(lib.metrics.Mean):
        """A metric whose name tells nothing; it says it improves upwards, as Keras's own."""

        def __init__(self):
            super().__init__(name="widgets")
            self._direction = "up"

        def update_state(self, y_true, y_pred, sample_weight=None):
            return super().update_state(lib.ops.mean(y_pred), sample_weight=sample_weight)

    return Widgets()


def _stopper_after_fit(lib, monitor):
    model = lib.Sequential([lib.layers.Input((3,)), lib.layers.Dense(1)])
    model.compile(loss="mse", optimizer="sgd", metrics=[_widgets_metric(lib)])
    stop = lib.callbacks.EarlyStopping(monitor=monitor, patience=5)
    x = np.random.default_rng(0).random((8, 3)).astype("float32")
    model.fit(x, x[:, :1], epochs=1, callbacks=[stop], verbose=0)
    return stop.monitor_op.__name__, stop.min_delta


@pytest.mark.parametrize("monitor", ["widgets", "loss"])
def test_direction_from_the_compiled_metric_as_keras(monitor):
    assert _stopper_after_fit(kg, monitor) == _stopper_after_fit(keras, monitor)


def test_an_unknown_name_is_refused_at_the_first_epoch_end_as_keras():
    for lib in (keras, kg):
        stop = lib.callbacks.EarlyStopping(monitor="val_widgets")  # made without error
        assert stop.monitor_op is None
        with pytest.raises(ValueError, match="monitor=val_widgets"):
            stop.on_epoch_end(0, {"val_widgets": 1.0})


def _rates_outside_fit(lib, losses):
    model = lib.Sequential([lib.layers.Input((3,)), lib.layers.Dense(1)])
    model.compile(loss="mse", optimizer=lib.optimizers.SGD(learning_rate=1.0))
    reduce = lib.callbacks.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=1,
                                             min_delta=0.0)
    reduce.set_model(model)
    reduce.on_train_begin()
    rates = []
    for epoch, loss in enumerate(losses):
        logs = {"loss": loss}
        reduce.on_epoch_end(epoch, logs)
        rates.append((float(np.asarray(model.optimizer.learning_rate)), logs["learning_rate"]))
    return rates


def test_reduce_lr_on_plateau_outside_fit_sets_the_optimizers_rate_as_keras():
    losses = [1.0, 0.9, 0.9, 0.95, 0.8, 0.8, 0.8]
    np.testing.assert_allclose(_rates_outside_fit(kg, losses),
                               _rates_outside_fit(keras, losses), rtol=1e-6)
