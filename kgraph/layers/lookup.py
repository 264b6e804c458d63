"""Vocabulary lookups (Keras 3's names, arguments, index layout and configs):
``StringLookup`` and ``IntegerLookup``.

Indices: the mask token (if any) is 0, then ``num_oov_indices`` out-of-vocabulary indices,
then the vocabulary; ``adapt`` orders the vocabulary by frequency, ties by token descending
(as Keras). Strings stay on the host: ``StringLookup`` maps NumPy string arrays to integer
arrays before the compiled program (calling it on a KerasTensor is an error). Integer
lookups also run inside a graph and under ``jit`` (a sorted table and ``searchsorted``).
The vocabulary is part of the layer's config, so it persists with the model.

>>> StringLookup(vocabulary=["a", "b", "c"])(np.array([["a", "c", "z"]])).tolist()
[[1, 3, 0]]
"""

from __future__ import annotations

import collections

import jax
import jax.numpy as jnp
import numpy as np

from kgraph.base.layer import Layer
from kgraph.graph.keras_tensor import KerasTensor
from kgraph.layers.string_hashes import fingerprint64, salt_key, siphash64

__all__ = ["IntegerLookup", "StringLookup", "encode_counts", "fingerprint64"]


_MODES = ("int", "one_hot", "multi_hot", "count", "tf_idf")


def _batches(data):
    """``adapt``'s input as a sequence of NumPy arrays (an array, a list, or batches)."""
    if isinstance(data, np.ndarray) or (isinstance(data, (list, tuple)) and data and
                                        not isinstance(data[0], (list, tuple, np.ndarray))):
        return [np.asarray(data)]
    if hasattr(data, "shape"):
        return [np.asarray(data)]
    return [np.asarray(batch) for batch in data]


def encode_counts(indices, depth, output_mode, idf_weights=None):
    """One-hot / multi-hot / count / tf-idf vectors of integer ``indices`` (last axis
    reduced for multi-hot and counts), as Keras's encodings."""
    indices = jnp.asarray(indices)
    if output_mode == "one_hot":
        return jnp.asarray(indices[..., None] == jnp.arange(depth), jnp.float32) if (
            indices.ndim == 0 or indices.shape[-1] != 1) else jnp.asarray(
            indices == jnp.arange(depth), jnp.float32)
    if indices.ndim == 0:
        indices = indices[None]
    hits = (indices[..., None] == jnp.arange(depth)).astype(jnp.float32)
    counts = jnp.sum(hits, axis=-2)
    if output_mode == "multi_hot":
        return jnp.minimum(counts, 1.0)
    if output_mode == "tf_idf":
        return counts * jnp.asarray(idf_weights, jnp.float32)
    return counts


class _Lookup(Layer):
    _string = False

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token=None,
                 vocabulary=None, vocabulary_dtype=None, idf_weights=None, invert=False,
                 output_mode="int", sparse=False, pad_to_max_tokens=False, oov_method="floormod",
                 salt=None, **kwargs):
        super().__init__(**kwargs)
        owner = f'Layer "{self.name}" ({type(self).__name__})'
        if output_mode == "binary":
            output_mode = "multi_hot"
        if output_mode not in _MODES:
            raise ValueError(f"{owner}: unknown `output_mode` {output_mode!r}; expected one of "
                             f"{_MODES}.")
        if invert and output_mode != "int":
            raise ValueError(f"{owner}: `output_mode` must be 'int' when `invert` is true.")
        if sparse:
            raise ValueError(f"{owner}: sparse=True is not supported (JAX arrays are dense).")
        if num_oov_indices < 0:
            raise ValueError(f"{owner}: `num_oov_indices` must be >= 0, received "
                             f"{num_oov_indices}.")
        if oov_method not in ("floormod", "farmhash"):
            raise ValueError(f"{owner}: `oov_method` must be 'floormod' or 'farmhash', "
                             f"received {oov_method!r}.")
        if salt is not None and not self._string and oov_method != "farmhash":
            raise ValueError("`salt` can only be used when `oov_method='farmhash'`. "
                             f"Received: oov_method={oov_method}")
        self.oov_method, self.salt = oov_method, salt_key(salt, "IndexLookup")
        self.max_tokens, self.num_oov_indices = max_tokens, int(num_oov_indices)
        self.mask_token, self.oov_token = mask_token, oov_token
        self.invert, self.output_mode = bool(invert), output_mode
        self.pad_to_max_tokens, self.sparse = bool(pad_to_max_tokens), False
        self.vocabulary_dtype = vocabulary_dtype
        self._vocab = []
        self._table = None
        self.idf_weights = None
        if vocabulary is not None:
            self.set_vocabulary(vocabulary, idf_weights)

    # ---------------------------------------------------------------- vocabulary
    def _special(self) -> list:
        head = [] if self.mask_token is None else [self.mask_token]
        return head + [self.oov_token] * self.num_oov_indices

    def get_vocabulary(self, include_special_tokens=True) -> list:
        """The tokens by index (mask and OOV tokens first, as Keras)."""
        return (self._special() if include_special_tokens else []) + list(self._vocab)

    def vocabulary_size(self) -> int:
        return len(self._special()) + len(self._vocab)

    def _convert(self, token):
        if not self._string:
            return int(token)
        return token.decode(self.encoding) if isinstance(token, bytes) else str(token)

    def set_vocabulary(self, vocabulary, idf_weights=None):
        """Use ``vocabulary`` (a list or array of tokens, without the special ones)."""
        tokens = [self._convert(t) for t in np.asarray(vocabulary).reshape(-1).tolist()]
        if tokens[:len(self._special())] == self._special():  # get_vocabulary()'s form
            tokens = tokens[len(self._special()):]
        repeated = [t for t, n in collections.Counter(tokens).items() if n > 1]
        if repeated:
            raise ValueError(f'Layer "{self.name}": the vocabulary has repeated tokens '
                             f"{repeated[:5]}.")
        special = set(self._special()) & set(tokens)
        if special:
            raise ValueError(f'Layer "{self.name}": the vocabulary contains special tokens '
                             f"{sorted(map(str, special))}.")
        self._vocab = tokens
        if self.output_mode == "tf_idf":
            if idf_weights is None:
                raise ValueError(f'Layer "{self.name}": output_mode="tf_idf" needs '
                                 "idf_weights with the vocabulary.")
            weights = np.asarray(idf_weights, np.float32).reshape(-1)
            pad = len(self._special())
            self.idf_weights = np.concatenate([np.full(pad, weights.mean() if len(weights)
                                                       else 0.0, np.float32), weights])
        self._table = None

    def adapt(self, data, steps=None):
        """Learn the vocabulary from ``data``: tokens by frequency (ties: token descending),
        at most ``max_tokens`` entries including the special ones."""
        counts = collections.Counter()
        documents = 0
        doc_counts = collections.Counter()
        for batch in _batches(data):
            for row in np.asarray(batch).reshape(len(batch), -1) if np.ndim(batch) else [[batch]]:
                tokens = [self._convert(t) for t in row if not (
                    self.mask_token is not None and self._convert(t) == self.mask_token)]
                counts.update(tokens)
                doc_counts.update(set(tokens))
                documents += 1
        for special in self._special():
            counts.pop(special, None)
        ordered = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
        if self.max_tokens is not None:
            ordered = ordered[:max(self.max_tokens - len(self._special()), 0)]
        vocab = [t for t, _ in ordered]
        idf = None
        if self.output_mode == "tf_idf":
            idf = [np.log(1 + documents / (1 + doc_counts[t])) for t in vocab]
        self.set_vocabulary(vocab, idf)

    # ------------------------------------------------------------------------ call
    def _oov_index(self, values):
        """Keras's OOV slots: integers ``value % num_oov_indices`` (``oov_method=
        "floormod"``); strings, and integers' decimal text with ``"farmhash"``, their
        FarmHash Fingerprint64 (with a ``salt``: SipHash-2-4 keyed by it) modulo
        ``num_oov_indices`` (TensorFlow's ``to_hash_bucket_fast`` / ``_strong``)."""
        base = 0 if self.mask_token is None else 1
        if self.num_oov_indices <= 1:
            return np.full(np.shape(values), base, np.int64)
        if not self._string and self.oov_method != "farmhash":
            return base + np.mod(np.asarray(values, np.int64), self.num_oov_indices)
        hashes = np.array([self._hash(v) for v in np.asarray(values).reshape(-1).tolist()],
                          np.uint64).reshape(np.shape(values))
        return base + (hashes % np.uint64(self.num_oov_indices)).astype(np.int64)

    def _hash(self, value) -> int:
        if isinstance(value, bytes):
            value = value.decode(self.encoding)
        text = str(value)
        if self.salt is None:
            return fingerprint64(text)
        return siphash64(self.salt, text.encode(getattr(self, "encoding", "utf-8")))

    def _token_table(self) -> dict:
        """``{token: index}``, made once per vocabulary."""
        if self._table is None:
            offset = len(self._special())
            self._table = {t: i + offset for i, t in enumerate(self._vocab)}
            if self.mask_token is not None:
                self._table[self.mask_token] = 0
        return self._table

    def _lookup_host(self, values):
        table = self._token_table()
        flat = np.asarray(values).reshape(-1)
        oov = self._oov_index(flat) if self.num_oov_indices else None
        out = np.empty(flat.shape, np.int64)
        for i, v in enumerate(flat.tolist()):
            key = self._convert(v)
            if key in table:
                out[i] = table[key]
            elif oov is not None:
                out[i] = oov[i]
            else:
                raise ValueError(f'Layer "{self.name}": token {v!r} is not in the vocabulary '
                                 "and num_oov_indices=0.")
        return out.reshape(np.shape(values))

    def _invert_host(self, indices):
        vocab = np.asarray(self.get_vocabulary(), dtype=object)
        return vocab[np.asarray(indices)]

    def call(self, inputs):
        if self.invert:
            return self._invert_host(inputs)
        indices = self._indices(inputs)
        if self.output_mode == "int":
            return indices
        depth = self.max_tokens if self.pad_to_max_tokens and self.max_tokens else \
            self.vocabulary_size()
        return encode_counts(indices, depth, self.output_mode, self.idf_weights)

    def __call__(self, *args, **kwargs):
        if self._string and any(isinstance(a, KerasTensor) for a in args):
            raise TypeError(
                f'Layer "{self.name}" ({type(self).__name__}) works on strings, which stay on '
                "the host: call it on NumPy arrays of strings before the model (e.g. "
                "ids = layer(texts); model.fit(ids, y)), and give the model integer inputs.")
        if self._string or self.invert:
            return self.call(*args, **kwargs)
        return super().__call__(*args, **kwargs)

    def compute_output_shape(self, input_shape):
        if self.output_mode == "int":
            return input_shape
        depth = self.max_tokens if self.pad_to_max_tokens and self.max_tokens else \
            self.vocabulary_size()
        if self.output_mode == "one_hot":
            return tuple(input_shape) + (depth,)
        return tuple(input_shape[:-1]) + (depth,) if len(input_shape) > 1 else (depth,)

    def compute_output_dtype(self, input_dtype):
        return jnp.dtype("int32") if self.output_mode == "int" else jnp.dtype("float32")

    def get_config(self):
        return {**super().get_config(), "max_tokens": self.max_tokens,
                "num_oov_indices": self.num_oov_indices, "mask_token": self.mask_token,
                "oov_token": self.oov_token, "vocabulary": list(self._vocab) or None,
                "vocabulary_dtype": self.vocabulary_dtype, "invert": self.invert,
                "output_mode": self.output_mode, "sparse": self.sparse,
                "pad_to_max_tokens": self.pad_to_max_tokens,
                "idf_weights": None if self.idf_weights is None else
                self.idf_weights[len(self._special()):].tolist(),
                "oov_method": self.oov_method, "salt": self.salt}


class StringLookup(_Lookup):
    """Strings to indices (or back, with ``invert``); runs on the host (NumPy)."""

    _string = True

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token="[UNK]",
                 vocabulary=None, idf_weights=None, invert=False, output_mode="int",
                 pad_to_max_tokens=False, sparse=False, encoding="utf-8", salt=None, **kwargs):
        kwargs.pop("vocabulary_dtype", None)
        self.encoding = encoding
        super().__init__(max_tokens, num_oov_indices, mask_token, oov_token, vocabulary,
                         "string", idf_weights, invert, output_mode, sparse,
                         pad_to_max_tokens, salt=salt, **kwargs)

    def _indices(self, inputs):
        return jnp.asarray(self._lookup_host(np.asarray(inputs)), jnp.int32)

    def get_config(self):
        config = {**super().get_config(), "encoding": self.encoding}
        config.pop("vocabulary_dtype")  # not among Keras's StringLookup arguments
        return config


class IntegerLookup(_Lookup):
    """Integers to indices (or back, with ``invert``); in graphs and under ``jit`` too."""

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token=-1,
                 vocabulary=None, vocabulary_dtype="int64", idf_weights=None, invert=False,
                 output_mode="int", sparse=False, pad_to_max_tokens=False,
                 oov_method="floormod", salt=None, **kwargs):
        super().__init__(max_tokens, num_oov_indices, mask_token, oov_token, vocabulary,
                         vocabulary_dtype, idf_weights, invert, output_mode, sparse,
                         pad_to_max_tokens, oov_method=oov_method, salt=salt, **kwargs)

    def _indices(self, inputs):
        if isinstance(inputs, np.ndarray):
            return jnp.asarray(self._lookup_host(inputs), jnp.int32)
        values = jnp.asarray(inputs).astype(jnp.int32)
        offset = len(self._special())
        vocab = np.asarray(self._vocab, np.int64)
        order = np.argsort(vocab, kind="stable")
        keys = jnp.asarray(vocab[order] if len(vocab) else np.zeros(1, np.int64), jnp.int32)
        slots = jnp.asarray(order + offset if len(vocab) else np.zeros(1, np.int64), jnp.int32)
        position = jnp.clip(jnp.searchsorted(keys, values), 0, keys.shape[0] - 1)
        found = (keys[position] == values) & (len(vocab) > 0)
        base = 0 if self.mask_token is None else 1
        if self.num_oov_indices > 1 and self.oov_method == "farmhash":  # hashed on the host
            base = jax.pure_callback(lambda v: self._oov_index(v).astype(np.int32),
                                     jax.ShapeDtypeStruct(values.shape, jnp.int32), values,
                                     vmap_method="expand_dims")
        elif self.num_oov_indices > 1:  # Keras's floormod slots
            base = base + jnp.mod(values, self.num_oov_indices)
        indices = jnp.where(found, slots[position], base)
        if self.mask_token is not None:
            indices = jnp.where(values == self.mask_token, 0, indices)
        return indices
