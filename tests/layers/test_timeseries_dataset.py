"""``kg.utils.timeseries_dataset_from_array``: Keras's windows, targets, checks; fit takes it."""

import numpy as np
import pytest

import kgraph as kg
from kgraph.utils import timeseries_dataset_from_array


def test_windows_follow_kerass_documented_example():
    data = np.arange(100)
    ds = timeseries_dataset_from_array(data, None, sequence_length=10, sampling_rate=2,
                                       sequence_stride=3, batch_size=4)
    first = next(iter(ds))
    assert first[0].tolist() == list(range(0, 20, 2))
    assert first[1].tolist() == list(range(3, 23, 2))
    # 100 - 9 * 2 = 82 start positions, every 3rd: 28 windows in 7 batches
    assert len(ds) == 7 and sum(len(b) for b in ds) == 28


def test_targets_are_the_values_after_each_window_and_indices_bound_the_data():
    data = np.arange(50, dtype=np.float32)[:, None] * np.ones((1, 2), np.float32)
    targets = data[10:, 0]
    ds = timeseries_dataset_from_array(data, targets, sequence_length=10, batch_size=16)
    x, y = next(iter(ds))
    assert x.shape == (16, 10, 2) and y.tolist() == list(range(10, 26))
    bounded = timeseries_dataset_from_array(data, None, sequence_length=5, start_index=10,
                                            end_index=30, batch_size=None)
    windows = list(bounded)
    assert windows[0][:, 0].tolist() == list(range(10, 15))
    assert windows[-1][:, 0].tolist() == list(range(25, 30)) and len(windows) == 16
    assert len(list(ds.take(2))) == 2


def test_shuffle_permutes_windows_reproducibly():
    data = np.arange(40)
    make = lambda seed: [b.tolist() for b in timeseries_dataset_from_array(  # noqa: E731
        data, None, 4, shuffle=True, seed=seed, batch_size=8)]
    assert make(1) == make(1) and make(1) != make(2)
    assert sorted(w for b in make(1) for w in b) == sorted(
        w for b in timeseries_dataset_from_array(data, None, 4, batch_size=8) for w in b.tolist())


@pytest.mark.parametrize("kwargs, message", [
    ({"start_index": -1}, "`start_index` must be 0 or greater"),
    ({"start_index": 20}, "`start_index` must be lower than the length"),
    ({"start_index": 5, "end_index": 3}, "`end_index` must be higher than `start_index`"),
    ({"end_index": 20}, "`end_index` must be lower than the length"),
    ({"sampling_rate": 0}, "`sampling_rate` must be higher than 0"),
    ({"sequence_stride": 25}, "`sequence_stride` must be lower than the length")])
def test_bad_arguments_are_kerass_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        timeseries_dataset_from_array(np.arange(20), None, 3, **kwargs)


def test_fit_and_evaluate_take_the_dataset_for_every_epoch():
    rng = np.random.default_rng(0)
    series = rng.normal(size=(120, 3)).astype(np.float32)
    train = timeseries_dataset_from_array(series, series[8:, 0], sequence_length=8,
                                          batch_size=16)
    x = kg.Input(shape=(8, 3))
    model = kg.Model(x, kg.layers.Dense(1)(kg.layers.Flatten()(x)))
    model.compile(optimizer="adam", loss="mse")
    history = model.fit(train, epochs=3, verbose=0)
    assert len(history.history["loss"]) == 3
    assert np.isfinite(model.evaluate(train, verbose=0))
