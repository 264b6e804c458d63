"""``TextVectorization``: text to token ids (or multi-hot, counts, tf-idf), with Keras 3's
standardization, splitting, n-grams, vocabulary and padding. Text stays on the host: call
it on NumPy arrays (or lists) of strings before the compiled model; it returns JAX arrays.

>>> layer = TextVectorization(output_sequence_length=4)
>>> layer.adapt(["the cat sat", "the dog"])
>>> layer(["The cat!", "a dog"]).tolist()
[[2, 5, 0, 0], [1, 4, 0, 0]]
"""

from __future__ import annotations

import re
import string

import jax.numpy as jnp
import numpy as np

from kgraph import config
from kgraph.base.layer import Layer
from kgraph.base.tensor_kinds import decoded, dense_only
from kgraph.layers.adapt_data import document_batches
from kgraph.layers.lookup import StringLookup

__all__ = ["TextVectorization"]


_PUNCTUATION = re.compile(f"[{re.escape(string.punctuation)}]")
_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)
_STANDARDIZE = ("lower_and_strip_punctuation", "lower", "strip_punctuation")
_SPLIT = ("whitespace", "character")


def _text_array(values, encoding) -> np.ndarray:
    """``values`` (an array, a list, a TensorFlow tensor or ragged tensor) as a NumPy array
    of ``str``, or a list of such rows when ragged."""
    if hasattr(values, "to_list"):  # a ragged tensor, e.g. what tf.strings.split gives
        values = values.to_list()
    elif hasattr(values, "numpy"):
        values = values.numpy()
    if isinstance(values, list) and values and isinstance(values[0], list) and \
            len({len(v) for v in values}) > 1:
        return [list(np.asarray(decoded(np.asarray(row, dtype=object), encoding)).astype(str))
                if row else [] for row in values]
    array = np.asarray(decoded(np.asarray(values), encoding))
    return array.astype(str)


def _check_choice(value, name, allowed):
    if not (value is None or callable(value) or value in allowed):
        raise ValueError(f"{name} value {value!r} is not a valid {name} for "
                         f"TextVectorization: expected one of {allowed}, None or a callable.")


class TextVectorization(Layer):
    """Standardize (``"lower_and_strip_punctuation"``, ``"lower"``, ``"strip_punctuation"``,
    None or a callable given a NumPy array of ``str``), split (``"whitespace"``,
    ``"character"``, None or a callable given the batch's texts), add ``ngrams``, then look
    tokens up (``output_mode`` "int", "one_hot", "multi_hot", "count", "tf_idf"). Index 0 is
    padding (``""``) and 1 the OOV token ``"[UNK]"``."""

    def __init__(self, max_tokens=None, standardize="lower_and_strip_punctuation",
                 split="whitespace", ngrams=None, output_mode="int",
                 output_sequence_length=None, pad_to_max_tokens=False, vocabulary=None,
                 idf_weights=None, sparse=False, ragged=False, encoding="utf-8", name=None,
                 **kwargs):
        dense_only("TextVectorization", sparse, ragged)
        _check_choice(standardize, "standardize", _STANDARDIZE)
        _check_choice(split, "split", _SPLIT)
        output_mode = {"binary": "multi_hot", "tf-idf": "tf_idf"}.get(output_mode, output_mode)
        if not (ngrams is None or isinstance(ngrams, int) or isinstance(ngrams, tuple) and all(
                isinstance(n, int) for n in ngrams)):
            raise ValueError("`ngrams` must be None, an integer, or a tuple of integers. "
                             f"Received: ngrams={ngrams}")
        if output_mode == "int" and not (output_sequence_length is None or
                                         isinstance(output_sequence_length, int)):
            raise ValueError("`output_sequence_length` must be either None or an integer when "
                             "`output_mode` is 'int'. Received: "
                             f"output_sequence_length={output_sequence_length}")
        if output_mode != "int" and output_sequence_length is not None:
            raise ValueError("`output_sequence_length` must not be set if `output_mode` is not "
                             f"'int'. Received output_sequence_length={output_sequence_length}.")
        has_input_vocabulary = kwargs.pop("has_input_vocabulary", vocabulary is not None)
        vocabulary_size = kwargs.pop("vocabulary_size", None)
        super().__init__(name=name, **kwargs)
        self.standardize, self.split, self.encoding = standardize, split, encoding
        self._ngrams_arg = ngrams
        self.ngrams = tuple(range(1, ngrams + 1)) if isinstance(ngrams, int) else ngrams
        self.output_mode, self.output_sequence_length = output_mode, output_sequence_length
        self._lookup_layer = StringLookup(
            max_tokens=max_tokens, mask_token="", output_mode=output_mode,
            pad_to_max_tokens=pad_to_max_tokens, vocabulary=vocabulary,
            idf_weights=idf_weights, encoding=encoding, name=f"{self.name}_lookup",
            has_input_vocabulary=has_input_vocabulary, vocabulary_size=vocabulary_size)

    @property
    def max_tokens(self):
        return self._lookup_layer.max_tokens

    @property
    def pad_to_max_tokens(self):
        return self._lookup_layer.pad_to_max_tokens

    # ------------------------------------------------------------ preprocessing
    def _standardized(self, inputs) -> np.ndarray:
        texts = _text_array(inputs, self.encoding)
        if callable(self.standardize):
            return _text_array(self.standardize(texts), self.encoding)
        if self.standardize in ("lower", "lower_and_strip_punctuation"):
            texts = np.vectorize(lambda t: t.translate(_ASCII_LOWER), otypes=[str])(texts) \
                if texts.size else texts
        if self.standardize in ("strip_punctuation", "lower_and_strip_punctuation"):
            texts = np.vectorize(lambda t: _PUNCTUATION.sub("", t), otypes=[str])(texts) \
                if texts.size else texts
        return texts

    def _split_rows(self, texts) -> list:
        """The batch's texts split into rows of tokens (a list of lists)."""
        if texts.ndim > 1:
            if texts.shape[-1] != 1:
                raise ValueError("When using `TextVectorization` to tokenize strings, the input "
                                 "rank must be 1 or the last shape dimension must be 1. "
                                 f"Received: inputs.shape={texts.shape} with "
                                 f"rank={texts.ndim}")
            texts = texts[..., 0]
        texts = texts.reshape(-1)
        if callable(self.split):
            rows = _text_array(self.split(texts), self.encoding)
            return [list(row) for row in rows]
        if self.split == "whitespace":
            return [t.split() for t in texts.tolist()]
        return [list(t) for t in texts.tolist()]

    def _ngrams(self, tokens: list) -> list:
        return [" ".join(tokens[i:i + n]) for n in self.ngrams
                for i in range(len(tokens) - n + 1)]

    def _preprocess(self, inputs):
        """Token rows (a list of lists) when splitting, else the standardized array."""
        texts = self._standardized(inputs)
        if texts.ndim == 0:
            texts = texts[None]
        if self.split is None:
            if self.ngrams:
                return [self._ngrams(list(row)) for row in texts.reshape(len(texts), -1)]
            return texts
        rows = self._split_rows(texts)
        return [self._ngrams(row) for row in rows] if self.ngrams else rows

    @staticmethod
    def _padded(rows, width=None) -> np.ndarray:
        width = max((len(r) for r in rows), default=0) if width is None else width
        return np.array([(list(r) + [""] * width)[:width] for r in rows], dtype=object
                        ).reshape(len(rows), width)

    # -------------------------------------------------------------------- adapt
    def adapt(self, data, batch_size=None, steps=None):
        """Learn the vocabulary (and tf-idf's document frequencies) from texts: an array or
        a list (one document per entry), or a ``tf.data.Dataset``, generator or other
        iterable of batches (at most ``steps`` of them)."""
        self._lookup_layer.reset_state()
        for batch in document_batches(data, steps):
            self.update_state(batch)
        self._lookup_layer.finalize_state()

    def update_state(self, data):
        tokens = self._preprocess(data)
        self._lookup_layer.update_state(self._padded(tokens) if isinstance(tokens, list)
                                        else tokens)

    def finalize_state(self):
        self._lookup_layer.finalize_state()

    def reset_state(self):
        self._lookup_layer.reset_state()

    def set_vocabulary(self, vocabulary, idf_weights=None):
        """Use ``vocabulary`` (a list, an array or a text file's path), and for "tf_idf" its
        ``idf_weights``."""
        self._lookup_layer.set_vocabulary(vocabulary, idf_weights)

    def get_vocabulary(self, include_special_tokens=True) -> list:
        return self._lookup_layer.get_vocabulary(include_special_tokens)

    def vocabulary_size(self) -> int:
        return self._lookup_layer.vocabulary_size()

    # --------------------------------------------------------------------- call
    def __call__(self, inputs, *args, **kwargs):
        if hasattr(inputs, "_keras_history"):
            raise TypeError(f'Layer "{self.name}" (TextVectorization) works on strings, which '
                            "stay on the host: vectorize the texts with it before the model "
                            "and give the model the integer ids.")
        return self.call(inputs)

    def call(self, inputs):
        tokens = self._preprocess(inputs)
        lookup = self._lookup_layer
        if self.output_mode != "int":
            table = self._padded(tokens) if isinstance(tokens, list) else tokens
            return lookup(table)
        if isinstance(tokens, list):
            ids = lookup(self._padded(tokens, self.output_sequence_length))
            return ids.astype(jnp.int32)
        ids = lookup(tokens)
        length = self.output_sequence_length
        if length is not None:
            ids = ids[..., :length]
            ids = jnp.pad(ids, [(0, 0)] * (ids.ndim - 1) + [(0, length - ids.shape[-1])])
        return ids.astype(jnp.int32)

    def compute_output_shape(self, input_shape):
        if self.output_mode == "int":
            return (input_shape[0], self.output_sequence_length)
        if self.split is None:
            input_shape = tuple(input_shape) + (1,) if len(input_shape) <= 1 else \
                tuple(input_shape)
        else:
            input_shape = tuple(input_shape) + (None,)
        return self._lookup_layer.compute_output_shape(input_shape)

    def compute_output_dtype(self, input_dtype):
        return jnp.dtype("int64" if self.output_mode == "int" else config.floatx())

    # -------------------------------------------------------------- saving / config
    def save_assets(self, dir_path):
        self._lookup_layer.save_assets(dir_path)

    def load_assets(self, dir_path):
        self._lookup_layer.load_assets(dir_path)

    def get_config(self):
        lookup = self._lookup_layer.get_config()
        return {**super().get_config(), "max_tokens": self.max_tokens,
                "standardize": self.standardize if isinstance(self.standardize, str) or
                self.standardize is None else None,
                "split": self.split if isinstance(self.split, str) or self.split is None
                else None,
                "ngrams": list(self._ngrams_arg) if isinstance(self._ngrams_arg, tuple)
                else self._ngrams_arg,
                "output_mode": self.output_mode,
                "output_sequence_length": self.output_sequence_length,
                "pad_to_max_tokens": self.pad_to_max_tokens, "sparse": False, "ragged": False,
                "vocabulary": lookup["vocabulary"], "idf_weights": lookup["idf_weights"],
                "encoding": self.encoding, "vocabulary_size": self.vocabulary_size()}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        if isinstance(config.get("ngrams"), list):
            config["ngrams"] = tuple(config["ngrams"])
        return cls(**config)

