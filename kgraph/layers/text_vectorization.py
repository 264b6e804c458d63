"""``TextVectorization``: text to token ids (or multi-hot, counts, tf-idf), with Keras 3's
standardization, splitting, n-grams, vocabulary and padding. Text stays on the host: call
it on NumPy arrays (or lists) of strings before the compiled model.

>>> layer = TextVectorization(output_sequence_length=4)
>>> layer.adapt(["the cat sat", "the dog"])
>>> layer(["The cat!", "a dog"]).tolist()
[[2, 5, 0, 0], [1, 4, 0, 0]]
"""

from __future__ import annotations

import re
import string

import numpy as np

from kgraph.base.layer import Layer
from kgraph.base.tensor_kinds import dense_only, decoded
from kgraph.layers.lookup import StringLookup, _batches

__all__ = ["TextVectorization"]


_PUNCTUATION = re.compile(f"[{re.escape(string.punctuation)}]")


class TextVectorization(Layer):
    """Standardize (``"lower_and_strip_punctuation"``, ``"lower"``, ``"strip_punctuation"``,
    None or a callable), split (``"whitespace"``, ``"character"``, None or a callable), add
    ``ngrams``, then look tokens up (``output_mode`` "int", "multi_hot", "count", "tf_idf").
    Index 0 is padding (``""``) and 1 the OOV token ``"[UNK]"``."""

    def __init__(self, max_tokens=None, standardize="lower_and_strip_punctuation",
                 split="whitespace", ngrams=None, output_mode="int",
                 output_sequence_length=None, pad_to_max_tokens=False, vocabulary=None,
                 idf_weights=None, sparse=False, ragged=False, encoding="utf-8", name=None,
                 **kwargs):
        super().__init__(name=name, **kwargs)
        dense_only(f'Layer "{self.name}"', sparse, ragged)
        if output_sequence_length is not None and output_mode != "int":
            raise ValueError("`output_sequence_length` must be None unless output_mode is "
                             "'int'.")
        self.standardize, self.split, self.encoding = standardize, split, encoding
        self.ngrams = (tuple(range(1, ngrams + 1)) if isinstance(ngrams, int)
                       else None if ngrams is None else tuple(ngrams))
        self.output_mode, self.output_sequence_length = output_mode, output_sequence_length
        self.max_tokens, self.pad_to_max_tokens = max_tokens, pad_to_max_tokens
        self._lookup = StringLookup(max_tokens=max_tokens, mask_token="",
                                    output_mode=output_mode if output_mode != "int" else "int",
                                    pad_to_max_tokens=pad_to_max_tokens, vocabulary=vocabulary,
                                    idf_weights=idf_weights, name=f"{self.name}_lookup")

    def _standardize(self, texts):
        texts = np.asarray(decoded(texts, self.encoding))
        if callable(self.standardize):
            return np.asarray(self.standardize(texts))
        if self.standardize in ("lower", "lower_and_strip_punctuation"):
            texts = np.char.lower(texts.astype(str))
        if self.standardize in ("strip_punctuation", "lower_and_strip_punctuation"):
            texts = np.array([_PUNCTUATION.sub("", t) for t in texts.reshape(-1)]).reshape(
                texts.shape)
        return texts

    def _tokens(self, text) -> list:
        if callable(self.split):
            tokens = list(self.split(text))
        elif self.split == "whitespace":
            tokens = str(text).split()
        elif self.split == "character":
            tokens = list(str(text))
        else:
            tokens = [str(text)]
        if self.ngrams:
            tokens = [" ".join(tokens[i:i + n]) for n in self.ngrams
                      for i in range(len(tokens) - n + 1)]
        return tokens

    def _tokenize(self, inputs) -> list:
        texts = np.asarray(inputs)
        if texts.ndim == 2 and texts.shape[-1] == 1:
            texts = texts[:, 0]
        if texts.ndim == 0:
            texts = texts[None]
        return [self._tokens(t) for t in self._standardize(texts).reshape(-1)]

    def adapt(self, data, steps=None):
        """Learn the vocabulary from texts (an array, a list, or batches of them)."""
        rows = [tokens for batch in _batches(data) for tokens in self._tokenize(batch)]
        width = max((len(r) for r in rows), default=0)
        table = np.array([r + [""] * (width - len(r)) for r in rows], dtype=object)
        self._lookup.adapt(table if width else np.array([[""]], dtype=object))

    def set_vocabulary(self, vocabulary, idf_weights=None):
        self._lookup.set_vocabulary(vocabulary, idf_weights)

    def get_vocabulary(self, include_special_tokens=True) -> list:
        return self._lookup.get_vocabulary(include_special_tokens)

    def vocabulary_size(self) -> int:
        return self._lookup.vocabulary_size()

    def __call__(self, inputs, *args, **kwargs):
        if hasattr(inputs, "_keras_history"):
            raise TypeError(f'Layer "{self.name}" (TextVectorization) works on strings, which '
                            "stay on the host: vectorize the texts with it before the model "
                            "and give the model the integer ids.")
        return self.call(inputs)

    def call(self, inputs):
        rows = self._tokenize(inputs)
        if self.output_mode == "int":
            width = self.output_sequence_length or max((len(r) for r in rows), default=0)
            table = np.array([(r + [""] * width)[:width] for r in rows], dtype=object)
            ids = np.asarray(self._lookup(table.reshape(len(rows), width)))
            return ids.astype(np.int64)
        width = max((len(r) for r in rows), default=1)
        table = np.array([r + [""] * (width - len(r)) for r in rows], dtype=object)
        encoded = np.array(self._lookup(table))
        encoded[:, 0] = 0.0  # padding is not a token
        return encoded

    def get_config(self):
        return {**super().get_config(), "max_tokens": self.max_tokens,
                "standardize": self.standardize if isinstance(self.standardize, str) or
                self.standardize is None else None,
                "split": self.split if isinstance(self.split, str) or self.split is None
                else None,
                "ngrams": None if self.ngrams is None else list(self.ngrams),
                "output_mode": self.output_mode,
                "output_sequence_length": self.output_sequence_length,
                "pad_to_max_tokens": self.pad_to_max_tokens,
                "vocabulary": self.get_vocabulary(include_special_tokens=False) or None,
                "sparse": False, "ragged": False, "encoding": self.encoding}
