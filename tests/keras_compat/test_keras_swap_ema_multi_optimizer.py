"""``SwapEMAWeights`` with a ``MultiOptimizer``: the weights of each inner optimizer
keeping a moving average swap places with it (the others stay), and back, as Keras's;
an inner optimizer's ``_model_variables_moving_average`` holds its weights' averages."""

import keras
import numpy as np
import pytest

import kgraph as kg


def _model(lib, ema_on_first=True):
    first = lib.optimizers.SGD(learning_rate=0.1, use_ema=ema_on_first, ema_momentum=0.9)
    second = lib.optimizers.SGD(learning_rate=0.1)
    optimizer = lib.optimizers.MultiOptimizer(lib.optimizers.OptimizerMap(
        default_optimizer=second, optimizer_map={".*dense_1/.*": first}))
    model = lib.models.Sequential([
        lib.layers.Dense(2, kernel_initializer="ones", use_bias=False, name="dense_1"),
        lib.layers.Dense(1, kernel_initializer="ones", use_bias=False, name="dense_2")],
        name="seq")  # named: Keras numbers the names it makes per process
    model.compile(loss="mse", optimizer=optimizer)
    model.train_on_batch(np.ones((1, 1), "float32"), np.ones((1, 1), "float32"))
    return model, first


def _swapped(lib):
    model, first = _model(lib)
    model.layers[0].kernel.assign(np.full((1, 2), 2.0, "float32"))
    (average,) = first._model_variables_moving_average
    average.assign(np.full((1, 2), 9.0, "float32"))
    swap = lib.callbacks.SwapEMAWeights()
    swap.set_model(model)
    seen = []
    for hook in (swap.on_test_begin, swap.on_test_end):
        hook()
        seen += [np.asarray(model.layers[0].kernel.numpy()), np.asarray(average.numpy()),
                 np.asarray(model.layers[1].kernel.numpy())]
    return average.path, seen


def test_swap_outside_fit_as_keras():
    (our_path, ours), (their_path, theirs) = _swapped(kg), _swapped(keras)
    assert our_path.split("/", 1)[1] == their_path.split("/", 1)[1]  # (Keras numbers names)
    for mine, keras_value in zip(ours, theirs):
        np.testing.assert_allclose(mine, keras_value, rtol=1e-6)


def test_validation_in_fit_on_the_moving_averages_as_keras():
    def history(lib):
        model, _ = _model(lib)
        data = (np.linspace(0, 1, 16, dtype="float32").reshape(16, 1),
                np.ones((16, 1), "float32"))
        logs = model.fit(*data, epochs=2, batch_size=4, verbose=0, validation_data=data,
                         shuffle=False, callbacks=[lib.callbacks.SwapEMAWeights()]).history
        return logs, [np.asarray(w) for w in model.get_weights()]

    (ours, our_weights), (theirs, their_weights) = history(kg), history(keras)
    np.testing.assert_allclose(ours["val_loss"], theirs["val_loss"], rtol=1e-4)
    np.testing.assert_allclose(ours["loss"], theirs["loss"], rtol=1e-4)
    for mine, keras_weight in zip(our_weights, their_weights):  # fit ends on the averages
        np.testing.assert_allclose(mine, keras_weight, rtol=1e-5)


def test_no_inner_optimizer_with_a_moving_average_is_refused():
    for lib in (kg, keras):
        model, _ = _model(lib, ema_on_first=False)
        swap = lib.callbacks.SwapEMAWeights()
        swap.set_model(model)
        with pytest.raises(ValueError, match="at least one inner optimizer"):
            swap.on_test_begin()
