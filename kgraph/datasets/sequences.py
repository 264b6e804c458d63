"""The word-index sequences shared by the IMDB and Reuters loaders (Keras's arguments)."""

from __future__ import annotations

import json

import numpy as np

from kgraph.datasets import safe_pickle
from kgraph.datasets._download import fetch

__all__ = ["drop_long", "limit_words", "load", "remap", "shuffled", "word_index"]


def load(name, path):
    """The arrays of dataset file ``name`` (object arrays read without running code)."""
    return safe_pickle.load_npz(fetch(name, path))


def shuffled(rng, *arrays):
    indices = np.arange(len(arrays[0]))
    rng.shuffle(indices)
    return [a[indices] for a in arrays]


def remap(xs, start_char, index_from):
    if start_char is not None:
        return [[start_char] + [w + index_from for w in x] for x in xs]
    if index_from:
        return [[w + index_from for w in x] for x in xs]
    return [list(x) for x in xs]


def drop_long(maxlen, xs, labels):
    kept = [(x, y) for x, y in zip(xs, labels) if len(x) < maxlen]
    return [x for x, _ in kept], [y for _, y in kept]


def limit_words(xs, num_words, skip_top, oov_char):
    if not num_words:
        num_words = max(max(x) for x in xs)
    if oov_char is not None:
        return [[w if skip_top <= w < num_words else oov_char for w in x] for x in xs]
    return [[w for w in x if skip_top <= w < num_words] for x in xs]


def word_index(name, path):
    with open(fetch(name, path)) as f:
        return json.load(f)
