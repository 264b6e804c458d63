"""``kg.utils``: to_categorical, pad_sequences, normalize and batch tuples match Keras."""


import keras
import numpy as np
import pytest

import kgraph as kg

_seqs = [[1, 2, 3, 4], [5], [], [6, 7]]


@pytest.mark.parametrize("labels, num_classes", [
    ([0, 2, 1], None), ([[1], [3]], 5), (np.array([[0, 1], [2, 0]]), 3)])
def test_to_categorical_matches_keras(labels, num_classes):
    ours = kg.utils.to_categorical(labels, num_classes)
    theirs = keras.utils.to_categorical(labels, num_classes)
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    np.testing.assert_array_equal(ours, theirs)


def test_to_categorical_rejects_out_of_range_labels():
    with pytest.raises(ValueError, match="label 3 is outside the 3 classes"):
        kg.utils.to_categorical([0, 3], 3)


@pytest.mark.parametrize("kwargs", [
    {}, {"maxlen": 2}, {"maxlen": 3, "padding": "post"}, {"maxlen": 2, "truncating": "post"},
    {"maxlen": 6, "padding": "post", "truncating": "post", "value": -1},
    {"dtype": "float32", "value": 0.5}])
def test_pad_sequences_matches_keras(kwargs):
    ours = kg.utils.pad_sequences(_seqs, **kwargs)
    theirs = keras.utils.pad_sequences(_seqs, **kwargs)
    assert ours.dtype == theirs.dtype
    np.testing.assert_array_equal(ours, theirs)


def test_pad_sequences_of_vectors_and_errors():
    seqs = [np.ones((2, 3)), np.zeros((1, 3))]
    np.testing.assert_array_equal(kg.utils.pad_sequences(seqs, dtype="float32"),
                                  keras.utils.pad_sequences(seqs, dtype="float32"))
    with pytest.raises(ValueError, match='padding type "middle" not understood'):
        kg.utils.pad_sequences(_seqs, padding="middle")
    with pytest.raises(ValueError, match="non-iterable"):
        kg.utils.pad_sequences([[1], 2])


@pytest.mark.parametrize("axis, order", [(-1, 2), (-1, 1), (1, np.inf)])
def test_normalize_matches_keras(axis, order):
    x = np.random.default_rng(0).normal(size=(3, 4))
    x[1] = 0
    np.testing.assert_allclose(kg.utils.normalize(x, axis, order),
                               keras.utils.normalize(x, axis, order))


def test_normalize_along_the_first_axis():  # Keras's NumPy path fails here (broadcast bug)
    x = np.array([[3.0, 0.0], [4.0, 0.0]])
    np.testing.assert_allclose(kg.utils.normalize(x, axis=0), [[0.6, 0.0], [0.8, 0.0]])


@pytest.mark.parametrize("data", [np.ones(2), (np.ones(2),), (1, 2), [1, 2, 3]])
def test_batch_tuples_match_keras(data):
    ours, theirs = kg.utils.unpack_x_y_sample_weight(data), keras.utils.unpack_x_y_sample_weight(
        data)
    assert [type(a) for a in ours] == [type(a) for a in theirs]
    assert kg.utils.pack_x_y_sample_weight(1, 2) == keras.utils.pack_x_y_sample_weight(1, 2)
    assert kg.utils.pack_x_y_sample_weight([1]) == keras.utils.pack_x_y_sample_weight([1])


def test_get_source_inputs_and_set_random_seed():
    a, b = kg.Input(shape=(2,)), kg.Input(shape=(2,))
    out = kg.layers.add([a * 2, b])
    assert kg.utils.get_source_inputs(out) == [a, b]
    kg.utils.set_random_seed(3)
    first = (np.random.random(), kg.random.next_key())
    kg.utils.set_random_seed(3)
    assert np.random.random() == first[0]
    np.testing.assert_array_equal(kg.random.next_key(), first[1])


def test_pydataset_feeds_fit_each_epoch_and_calls_on_epoch_end():
    class Batches(kg.utils.PyDataset):
        def __init__(self):
            super().__init__(workers=2)
            self.epochs = 0

        def __len__(self):
            return 3

        def __getitem__(self, index):
            return np.full((4, 2), index, np.float32), np.zeros((4, 1), np.float32)

        def on_epoch_end(self):
            self.epochs += 1

    data = Batches()
    x = kg.Input(shape=(2,))
    model = kg.Model(x, kg.layers.Dense(1)(x))
    model.compile(optimizer="sgd", loss="mse")
    history = model.fit(data, epochs=2, verbose=0)
    assert len(history.history["loss"]) == 2 and data.epochs == 2
    assert kg.utils.Sequence is kg.utils.PyDataset


def test_metric_serialization_round_trip():
    metric = kg.metrics.F1Score(average="macro", threshold=0.3)
    again = kg.metrics.deserialize(kg.metrics.serialize(metric))
    assert type(again) is kg.metrics.F1Score and again.get_config() == metric.get_config()
