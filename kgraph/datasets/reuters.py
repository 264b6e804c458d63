"""Reuters newswires as Keras loads them: word-index sequences in 46 topics."""

import numpy as np

from kgraph.datasets import sequences as seq

__all__ = ["get_label_names", "get_word_index", "load_data"]

_TOPICS = """
cocoa grain veg-oil earn acq wheat copper housing money-supply coffee sugar trade reserves ship
cotton carcass crude nat-gas cpi money-fx interest gnp meal-feed alum oilseed gold tin
strategic-metal livestock retail ipi iron-steel rubber heat jobs lei bop zinc orange pet-chem dlr
gas silver wpi hog lead"""


def load_data(path="reuters.npz", num_words=None, skip_top=0, maxlen=None, test_split=0.2,
              seed=113, start_char=1, oov_char=2, index_from=3):
    """``(x_train, y_train), (x_test, y_test)`` with Keras's shuffle, split and words."""
    arrays = seq.load("reuters.npz", path)
    xs, labels = seq.shuffled(np.random.RandomState(seed), arrays["x"], arrays["y"])
    xs = seq.remap(xs, start_char, index_from)
    if maxlen:
        xs, labels = seq.drop_long(maxlen, xs, labels)
    xs = seq.limit_words(xs, num_words, skip_top, oov_char)
    idx = int(len(xs) * (1 - test_split))
    return ((np.array(xs[:idx], dtype="object"), np.array(labels[:idx])),
            (np.array(xs[idx:], dtype="object"), np.array(labels[idx:])))


def get_word_index(path="reuters_word_index.json"):
    """``{word: index}`` of the Reuters vocabulary."""
    return seq.word_index("reuters_word_index.json", path)


def get_label_names():
    """The 46 topic names, indexed by the labels ``load_data`` returns.

    >>> get_label_names()[:3]
    ('cocoa', 'grain', 'veg-oil')
    """
    return tuple(_TOPICS.split())
