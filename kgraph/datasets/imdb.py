"""IMDB movie reviews as Keras loads them: word-index sequences and 0/1 sentiment labels."""

import numpy as np

from kgraph.datasets import sequences as seq

__all__ = ["get_word_index", "load_data"]


def load_data(path="imdb.npz", num_words=None, skip_top=0, maxlen=None, seed=113,
              start_char=1, oov_char=2, index_from=3, **kwargs):
    """``(x_train, y_train), (x_test, y_test)`` with Keras's shuffle and word handling."""
    if kwargs:
        raise TypeError(f"Unrecognized keyword arguments: {kwargs}.")
    arrays = seq.load("imdb.npz", path)
    rng = np.random.RandomState(seed)
    x_train, labels_train = seq.shuffled(rng, arrays["x_train"], arrays["y_train"])
    x_test, labels_test = seq.shuffled(rng, arrays["x_test"], arrays["y_test"])
    x_train, x_test = (seq.remap(x, start_char, index_from) for x in (x_train, x_test))
    if maxlen:
        x_train, labels_train = seq.drop_long(maxlen, x_train, labels_train)
        x_test, labels_test = seq.drop_long(maxlen, x_test, labels_test)
        if not x_train or not x_test:
            raise ValueError(f"After filtering for sequences shorter than maxlen={maxlen}, "
                             "no sequence was kept. Increase maxlen.")
    xs = seq.limit_words(x_train + x_test, num_words, skip_top, oov_char)
    labels = np.concatenate([labels_train, labels_test])
    idx = len(x_train)
    return ((np.array(xs[:idx], dtype="object"), labels[:idx]),
            (np.array(xs[idx:], dtype="object"), labels[idx:]))


def get_word_index(path="imdb_word_index.json"):
    """``{word: index}`` of the IMDB vocabulary."""
    return seq.word_index("imdb_word_index.json", path)
