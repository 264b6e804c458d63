"""``IndexLookup``: Keras's vocabulary lookup, the base of ``StringLookup`` and
``IntegerLookup`` (Keras's arguments, checks, messages, index layout and configs).

Indices: with output_mode "int", the mask token (if any) is 0; then ``num_oov_indices``
out-of-vocabulary indices, then the vocabulary. In the other modes the mask token has no
index (masked inputs count nowhere). ``adapt`` orders the vocabulary by frequency, ties by
token descending, as Keras. A vocabulary may also be a text file, one token a line. The
lookup runs on the host (NumPy); ``IntegerLookup`` also in graphs (see ``lookup.py``).

>>> layer = IndexLookup(max_tokens=None, num_oov_indices=1, mask_token="", oov_token="[OOV]",
...                     vocabulary_dtype="string", vocabulary=["a", "b"])
>>> layer.get_vocabulary()
['', '[OOV]', 'a', 'b']
>>> layer(["b", "z", ""]).tolist()
[3, 1, 0]
"""

from __future__ import annotations

import collections
import os

import jax.numpy as jnp
import numpy as np

from kgraph.base.layer import Layer
from kgraph.base.tensor_kinds import decoded, dense_only
from kgraph.layers.adapt_data import document_batches
from kgraph.layers.categorical import encode_categorical, encoded_shape
from kgraph.layers.string_hashes import fingerprint64, salt_key, siphash64
from kgraph.saving import scope as saving_scope

__all__ = ["IndexLookup", "LOOKUP_MODES"]

LOOKUP_MODES = ("int", "one_hot", "multi_hot", "count", "tf_idf")
_DROPPED = -1  # a masked token's index outside "int" mode: it encodes as zeros


def _listed(values):
    if values is None:
        return None
    return np.asarray(values).tolist() if not isinstance(values, list) else values


class IndexLookup(Layer):
    """Tokens (strings, or integers with ``vocabulary_dtype="int64"``) to indices, or back
    with ``invert=True``; ``output_mode`` "one_hot", "multi_hot", "count" or "tf_idf"
    encodes the indices (a ``depth`` of the vocabulary size, or ``max_tokens`` with
    ``pad_to_max_tokens``). OOV tokens share ``num_oov_indices`` slots: integers by
    ``value % num_oov_indices`` (``oov_method="floormod"``), strings (and integers with
    ``"farmhash"``) by FarmHash Fingerprint64, or SipHash-2-4 keyed by ``salt``."""

    _keras_name = "IndexLookup"

    def __init__(self, max_tokens, num_oov_indices, mask_token, oov_token, vocabulary_dtype,
                 vocabulary=None, idf_weights=None, invert=False, output_mode="int",
                 sparse=False, pad_to_max_tokens=False, oov_method="floormod", name=None,
                 salt=None, **kwargs):
        if max_tokens is not None and max_tokens <= 1:
            raise ValueError("If set, `max_tokens` must be greater than 1. "
                             f"Received: max_tokens={max_tokens}")
        if pad_to_max_tokens and max_tokens is None:
            raise ValueError("If pad_to_max_tokens is True, must set `max_tokens`. "
                             f"Received: max_tokens={max_tokens}")
        if num_oov_indices < 0:
            raise ValueError("`num_oov_indices` must be greater than or equal to 0. "
                             f"Received: num_oov_indices={num_oov_indices}")
        if oov_method not in ("floormod", "farmhash"):
            raise ValueError(f"{type(self).__name__}: `oov_method` must be 'floormod' or "
                             f"'farmhash', received {oov_method!r}.")
        self._string = np.dtype(str if vocabulary_dtype == "string" else vocabulary_dtype
                                ).kind in "USO"
        if salt is not None and not self._string and oov_method != "farmhash":
            raise ValueError("`salt` can only be used when `oov_method='farmhash'`. "
                             f"Received: oov_method={oov_method}")
        output_mode = {"binary": "multi_hot", "tf-idf": "tf_idf"}.get(output_mode, output_mode)
        if output_mode not in LOOKUP_MODES:
            raise ValueError(f"Unknown value for `output_mode` in {type(self).__name__}: "
                             f"{output_mode!r}; expected one of {LOOKUP_MODES}.")
        if invert and output_mode != "int":
            raise ValueError("`output_mode` must be `'int'` when `invert` is true. "
                             f"Received: output_mode={output_mode}")
        if sparse and output_mode == "int":
            raise ValueError("`sparse` may only be true if `output_mode` is `'one_hot'`, "
                             "`'multi_hot'`, `'count'` or `'tf_idf'`. Received: "
                             f"sparse={sparse} and output_mode={output_mode}")
        dense_only(type(self).__name__, sparse)
        if idf_weights is not None and output_mode != "tf_idf":
            raise ValueError("`idf_weights` should only be set if `output_mode` is "
                             f"`'tf_idf'`. Received: idf_weights={idf_weights} and "
                             f"output_mode={output_mode}")
        frozen_size = kwargs.pop("vocabulary_size", None)
        self._has_input_vocabulary = kwargs.pop("has_input_vocabulary",
                                                vocabulary is not None)
        kwargs.pop("trainable", None)
        kwargs.pop("dtype", None)
        if kwargs:
            raise ValueError(f"Unrecognized keyword argument(s): {kwargs}")
        super().__init__(name=name)
        self.invert, self.max_tokens = bool(invert), max_tokens
        self.num_oov_indices, self.mask_token, self.oov_token = (
            int(num_oov_indices), mask_token, oov_token)
        self.output_mode, self.sparse, self.pad_to_max_tokens = (
            output_mode, False, bool(pad_to_max_tokens))
        self.vocabulary_dtype = "string" if self._string else np.dtype(vocabulary_dtype).name
        self.oov_method, self.salt = oov_method, salt_key(salt, self._keras_name)
        self._frozen_vocab_size = frozen_size
        self.input_vocabulary = vocabulary if not isinstance(vocabulary, str) else None
        self._from_file = isinstance(vocabulary, str)  # its config leaves the vocabulary out
        self.input_idf_weights = idf_weights
        self._vocab, self._table, self.idf_weights = [], None, None
        self._counts, self._document_counts, self._documents = None, None, 0
        if output_mode == "tf_idf" and self._has_input_vocabulary and idf_weights is None:
            raise ValueError("When specifying the `vocabulary` argument, in TF-IDF output "
                             "mode, the `idf_weights` argument must also be provided.")
        if vocabulary is not None:
            self.set_vocabulary(vocabulary, idf_weights)

    # ------------------------------------------------------------------ layout
    def _oov_start_index(self) -> int:
        return 1 if self.mask_token is not None and self.output_mode == "int" else 0

    def _token_start_index(self) -> int:
        return self._oov_start_index() + self.num_oov_indices

    def _special_tokens(self) -> list:
        return [self.mask_token] * self._oov_start_index() + [self.oov_token] * \
            self.num_oov_indices

    def _token(self, value):
        """A token in the vocabulary's Python type (``str`` or ``int``)."""
        if self._string:
            return decoded(value, getattr(self, "encoding", "utf-8")) if isinstance(
                value, bytes) else str(value)
        return int(value)

    # -------------------------------------------------------------- vocabulary
    def get_vocabulary(self, include_special_tokens=True) -> list:
        """The tokens by index (mask and OOV tokens first, as Keras)."""
        tokens = self._special_tokens() + list(self._vocab)
        return tokens if include_special_tokens else tokens[self._token_start_index():]

    def vocabulary_size(self) -> int:
        """The number of indices, mask and OOV ones included."""
        return self._token_start_index() + len(self._vocab)

    def set_vocabulary(self, vocabulary, idf_weights=None):
        """Use ``vocabulary`` (a list, an array, or a text file's path, one token a line);
        it may start with the special tokens, in their order. ``idf_weights`` (one per
        token) are required with output_mode "tf_idf" and refused otherwise."""
        if self.output_mode == "tf_idf":
            if idf_weights is None:
                raise ValueError("`idf_weights` must be set if output_mode is 'tf_idf'.")
        elif idf_weights is not None:
            raise ValueError("`idf_weights` should only be set if output_mode is `'tf_idf'`. "
                             f"Received: output_mode={self.output_mode} and "
                             f"idf_weights={idf_weights}")
        if isinstance(vocabulary, (str, os.PathLike)):
            self._vocabulary_from_file(os.fspath(vocabulary))
            return
        vocabulary = np.asarray(vocabulary)
        if vocabulary.size == 0:
            raise ValueError(f"Cannot set an empty vocabulary. Received: vocabulary="
                             f"{vocabulary}")
        tokens = [self._token(t) for t in vocabulary.reshape(-1).tolist()]
        special = self._special_tokens()
        with_special = tokens[:len(special)] == special
        if with_special:
            tokens = tokens[len(special):]
        repeated = [t for t, n in collections.Counter(tokens).items() if n > 1]
        if repeated:
            raise ValueError("The passed vocabulary has at least one repeated term. Please "
                             f"uniquify your dataset. The repeated terms are: {repeated}")
        for kind, token in (("mask", self.mask_token),
                            ("OOV", self.oov_token if self.invert else None)):
            if token is not None and token in tokens:
                raise ValueError(
                    f"Found reserved {kind} token at unexpected location in `vocabulary`. "
                    "Note that passed `vocabulary` does not need to include the OOV and "
                    "mask tokens. Either remove all mask and OOV tokens, or include them "
                    f"only at the start of the vocabulary in precisely this order: {special}."
                    f" Received: {kind.lower()}_token={token} at vocabulary index "
                    f"{len(special) * with_special + tokens.index(token)}")
        size = self._token_start_index() + len(tokens)
        if self.max_tokens is not None and size > self.max_tokens:
            raise ValueError("Attempted to set a vocabulary larger than the maximum vocab "
                             f"size. Received vocabulary size is {size}; `max_tokens` is "
                             f"{self.max_tokens}.")
        self._use_vocabulary(tokens)
        if self.output_mode == "tf_idf":
            self._use_idf_weights(idf_weights, vocabulary.size, front=not with_special)

    def _vocabulary_from_file(self, path):
        if saving_scope.in_safe_mode():
            raise ValueError(
                "Requested the loading of a vocabulary file outside of the model archive. "
                "This carries a potential risk of loading arbitrary and sensitive files and "
                "thus it is disallowed by default. If you trust the source of the artifact, "
                "you can override this error by passing `safe_mode=False` to the loading "
                "function, or calling `keras.config.enable_unsafe_deserialization()`. "
                f"Vocabulary file: '{path}'")
        if not os.path.exists(path):
            raise ValueError(f"Vocabulary file {path} does not exist.")
        if self.output_mode == "tf_idf":
            raise ValueError("output_mode `'tf_idf'` does not support loading a vocabulary "
                             "from file.")
        with open(path, encoding=getattr(self, "encoding", "utf-8")) as f:
            self._use_vocabulary([self._token(line) for line in f.read().splitlines()])

    def _use_idf_weights(self, idf_weights, vocabulary_size, front):
        weights = np.asarray(idf_weights)
        if len(weights) != vocabulary_size:
            raise ValueError("`idf_weights` must be the same length as vocabulary. "
                             f"len(idf_weights) is {len(weights)}; len(vocabulary) is "
                             f"{vocabulary_size}")
        if weights.ndim != 1:
            raise ValueError("TF-IDF data must be a 1-index array. "
                             f"Received: type(idf_weights)={type(idf_weights)}")
        before = self._token_start_index() if front else 0
        after = (self.max_tokens - before - len(weights)
                 if self.pad_to_max_tokens and self.max_tokens is not None else 0)
        # padded in the given dtype, then cast (Keras's numbers for integer weights too)
        padded = np.pad(weights, (before, after), "constant",
                        constant_values=(np.average(weights) if front else 0, 0))
        self.idf_weights = padded.astype(np.float32)

    def _use_vocabulary(self, tokens):
        self._vocab, self._table = list(tokens), None
        new_size = self.vocabulary_size()
        if (self.output_mode != "int" and not self.pad_to_max_tokens and
                self._frozen_vocab_size is not None and new_size != self._frozen_vocab_size):
            raise RuntimeError(
                f"When using `output_mode={self.output_mode}` and `pad_to_max_tokens=False`, "
                "the vocabulary size cannot be changed after the layer is called. Old vocab "
                f"size is {self._frozen_vocab_size}, new vocab size is {new_size}")
        self._frozen_vocab_size = new_size

    # ------------------------------------------------------------------- adapt
    def adapt(self, data, steps=None):
        """Learn the vocabulary from ``data`` (an array or list: one document per entry;
        or a ``tf.data.Dataset``, generator or other iterable of batches, at most
        ``steps`` of them): tokens by frequency, ties by token descending, at most
        ``max_tokens`` indices in all; "tf_idf" also learns the inverse document
        frequencies."""
        self.reset_state()
        for batch in document_batches(data, steps):
            self.update_state(batch)
        self.finalize_state()

    def reset_state(self):
        if not self._has_input_vocabulary:
            self._counts, self._document_counts = collections.Counter(), collections.Counter()
            self._documents = 0

    def update_state(self, data):
        if self._has_input_vocabulary:
            raise ValueError(f"Cannot adapt layer '{self.name}' after setting a static "
                             "vocabulary via `vocabulary` argument or `set_vocabulary()` "
                             "method.")
        if self._counts is None:
            self.reset_state()
        data = np.asarray(data)
        documents = data.reshape(1, -1) if data.ndim <= 1 else data.reshape(len(data), -1)
        for document in documents.tolist():
            tokens = [self._token(t) for t in document]
            self._counts.update(tokens)
            self._document_counts.update(set(tokens))
        self._documents += len(documents)

    def finalize_state(self):
        if self._has_input_vocabulary or not self._counts:
            return
        for special in (self.mask_token, self.oov_token):
            self._counts.pop(special, None)
        ordered = sorted(self._counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
        if self.max_tokens:
            ordered = ordered[:self.max_tokens - self._token_start_index()]
        tokens = [t for t, _ in ordered]
        self._use_vocabulary(tokens)
        if self.output_mode == "tf_idf":
            idf = np.log(1 + self._documents / (1 + np.array(
                [self._document_counts[t] for t in tokens], np.float64))).astype(np.float32)
            after = (self.max_tokens - self._token_start_index() - len(idf)
                     if self.pad_to_max_tokens and self.max_tokens is not None else 0)
            self.idf_weights = np.pad(idf, (self._token_start_index(), after), "constant",
                                      constant_values=(idf.mean() if len(idf) else 0, 0))
        self.reset_state()

    # -------------------------------------------------------------------- call
    def _token_table(self) -> dict:
        if self._table is None:
            start = self._token_start_index()
            self._table = {t: i + start for i, t in enumerate(self._vocab)}
        return self._table

    def _oov_indices(self, values):
        """Each OOV value's slot: ``floormod`` for integers, else its hash."""
        start = self._oov_start_index()
        if self.num_oov_indices <= 1:
            return np.full(np.shape(values), start, np.int64)
        if not self._string and self.oov_method != "farmhash":
            return start + np.mod(np.asarray(values, np.int64), self.num_oov_indices)
        hashes = np.array([self._hash(v) for v in np.asarray(values).reshape(-1).tolist()],
                          np.uint64).reshape(np.shape(values))
        return start + (hashes % np.uint64(self.num_oov_indices)).astype(np.int64)

    def _hash(self, value) -> int:
        text = str(self._token(value))
        if self.salt is None:
            return fingerprint64(text)
        return siphash64(self.salt, text.encode(getattr(self, "encoding", "utf-8")))

    def _lookup_host(self, values):
        """Indices of ``values`` (a NumPy array), as Keras's table gives them."""
        values = np.asarray(values)
        table, flat = self._token_table(), values.reshape(-1).tolist()
        tokens = [self._token(v) for v in flat]
        out = np.array([table.get(t, -1) for t in tokens], np.int64)
        if self.mask_token is not None:
            mask_index = 0 if self.output_mode == "int" else _DROPPED
            out = np.where([t == self.mask_token for t in tokens], mask_index, out) if \
                tokens else out
        missing = (out == -1) & ~np.array([self.mask_token is not None and t == self.mask_token
                                           for t in tokens], bool)
        if missing.any():
            if self.num_oov_indices == 0:
                raise ValueError(
                    f'Layer "{self.name}": when `num_oov_indices=0` all inputs should be in '
                    f"vocabulary, found OOV values {[flat[i] for i in np.flatnonzero(missing)]}"
                    ", consider setting `num_oov_indices=1`.")
            out = np.where(missing, self._oov_indices(np.asarray(flat, dtype=object)
                                                      if self._string else np.asarray(flat)),
                           out)
        return out.reshape(values.shape)

    def _invert_host(self, indices):
        indices = np.asarray(indices, np.int64)
        start = self._token_start_index()
        vocab = self._vocab
        tokens = [vocab[i - start] if start <= i < start + len(vocab) else
                  self.mask_token if i == 0 and self.mask_token is not None else self.oov_token
                  for i in indices.reshape(-1).tolist()]
        if self._string:
            return np.array(tokens, dtype=object).reshape(indices.shape)
        return jnp.asarray(np.array(tokens, np.int64).reshape(indices.shape), jnp.int32)

    def _depth(self) -> int:
        if self.pad_to_max_tokens:
            return self.max_tokens
        if self._frozen_vocab_size is None:
            raise RuntimeError(
                f"When using `output_mode={self.output_mode}` and `pad_to_max_tokens=False`, "
                "you must set the layer's vocabulary before calling it. Either pass a "
                "`vocabulary` argument to the layer, or call `adapt` with some sample data.")
        return self._frozen_vocab_size

    def _host_values(self, inputs):
        values = np.asarray(inputs)
        return decoded(values, getattr(self, "encoding", "utf-8")) if self._string else values

    def _encode(self, indices):
        if self.output_mode == "int":
            return indices
        depth = self._depth()
        if self.output_mode == "tf_idf":
            counts = encode_categorical(indices, "count", depth, "float32")
            return counts * jnp.asarray(self.idf_weights, jnp.float32)
        return encode_categorical(indices, self.output_mode, depth, "int32")

    def call(self, inputs):
        if self.invert:
            return self._invert_host(self._host_values(inputs))
        if self.output_mode != "int":
            self._depth()
        values = self._host_values(inputs)
        return self._encode(jnp.asarray(self._lookup_host(values), jnp.int32))

    def __call__(self, inputs, *args, **kwargs):
        return self.call(inputs, *args, **kwargs)

    def compute_output_shape(self, input_shape):
        if self.output_mode == "int":
            return tuple(input_shape)
        depth = self.max_tokens if self.pad_to_max_tokens else self._frozen_vocab_size
        return encoded_shape(input_shape, self.output_mode, depth)

    def compute_output_dtype(self, input_dtype):
        return jnp.dtype("int32") if self.output_mode == "int" else jnp.dtype("float32")

    # ----------------------------------------------------------- saving / config
    def save_assets(self, dir_path):
        """Write the vocabulary to ``dir_path/vocabulary.txt`` (a layer whose vocabulary
        came as an argument keeps it in its config instead), as Keras."""
        if self.input_vocabulary is not None:
            return
        with open(os.path.join(dir_path, "vocabulary.txt"), "w",
                  encoding=getattr(self, "encoding", "utf-8")) as f:
            f.write("\n".join(str(t) for t in self.get_vocabulary()))

    def load_assets(self, dir_path):
        """Read the vocabulary ``save_assets`` wrote."""
        if self.input_vocabulary is not None:
            return
        with open(os.path.join(dir_path, "vocabulary.txt"),
                  encoding=getattr(self, "encoding", "utf-8")) as f:
            lines = f.read().splitlines()
        while lines and lines[-1] == "":
            lines.pop()
        idf = None
        if self.output_mode == "tf_idf" and self.idf_weights is not None:
            idf = self.idf_weights
        self.set_vocabulary([self._token(line) for line in lines], idf_weights=idf)

    def get_config(self):
        # a vocabulary read from a file is the layer's asset (``save_assets``), as Keras's;
        # an adapted one is also kept in the config (its clones keep it)
        vocabulary = _listed(self.input_vocabulary) if self.input_vocabulary is not None \
            else None if self._from_file else (
                self.get_vocabulary(include_special_tokens=False) or None)
        idf = _listed(self.input_idf_weights)
        if idf is None and self.idf_weights is not None and self.input_vocabulary is None:
            start = self._token_start_index()
            idf = self.idf_weights[start:start + len(self._vocab)].tolist()
        return {**super().get_config(), "invert": self.invert, "max_tokens": self.max_tokens,
                "num_oov_indices": self.num_oov_indices, "oov_token": self.oov_token,
                "mask_token": self.mask_token, "output_mode": self.output_mode,
                "sparse": self.sparse, "pad_to_max_tokens": self.pad_to_max_tokens,
                "vocabulary_dtype": self.vocabulary_dtype, "idf_weights": idf,
                "vocabulary": vocabulary, "vocabulary_size": self._frozen_vocab_size,
                "oov_method": self.oov_method, "salt": self.salt}
