"""Vocabulary lookups (Keras 3's names, arguments, index layout and configs):
``StringLookup`` and ``IntegerLookup``, both ``IndexLookup``s (``index_lookup.py``).

Strings stay on the host: ``StringLookup`` maps NumPy string arrays (or lists) to integer
arrays before the compiled program (calling it on a KerasTensor is an error). Integer
lookups also run inside a graph and under ``jit`` (a sorted table and ``searchsorted``).
The vocabulary is part of the layer's config, so it persists with the model.

>>> StringLookup(vocabulary=["a", "b", "c"])(np.array([["a", "c", "z"]])).tolist()
[[1, 3, 0]]
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from kgraph.base.tensor_kinds import dense_only
from kgraph.graph.keras_tensor import KerasTensor
from kgraph.layers.index_lookup import IndexLookup

__all__ = ["IntegerLookup", "StringLookup"]


class StringLookup(IndexLookup):
    """Strings to indices (or back, with ``invert``); runs on the host (NumPy)."""

    _keras_name = "StringLookup"

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token="[UNK]",
                 vocabulary=None, idf_weights=None, invert=False, output_mode="int",
                 pad_to_max_tokens=False, sparse=False, encoding="utf-8", name=None,
                 salt=None, **kwargs):
        dense_only("StringLookup", sparse)
        kwargs.pop("vocabulary_dtype", None)
        self.encoding = encoding
        super().__init__(max_tokens=max_tokens, num_oov_indices=num_oov_indices,
                         mask_token=mask_token, oov_token=oov_token, vocabulary=vocabulary,
                         vocabulary_dtype="string", idf_weights=idf_weights, invert=invert,
                         output_mode=output_mode, sparse=sparse,
                         pad_to_max_tokens=pad_to_max_tokens, name=name, salt=salt, **kwargs)

    def __call__(self, inputs, *args, **kwargs):
        if isinstance(inputs, KerasTensor):
            raise TypeError(
                f'Layer "{self.name}" (StringLookup) works on strings, which stay on the host: '
                "call it on NumPy arrays of strings before the model (e.g. ids = layer(texts); "
                "model.fit(ids, y)), and give the model integer inputs.")
        return super().__call__(inputs, *args, **kwargs)

    def get_config(self):
        config = {**super().get_config(), "encoding": self.encoding}
        config.pop("vocabulary_dtype")  # not among Keras's StringLookup arguments
        return config


class IntegerLookup(IndexLookup):
    """Integers to indices (or back, with ``invert``); in graphs and under ``jit`` too."""

    _keras_name = "IntegerLookup"

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token=-1,
                 vocabulary=None, vocabulary_dtype="int64", idf_weights=None, invert=False,
                 output_mode="int", sparse=False, pad_to_max_tokens=False,
                 oov_method="floormod", salt=None, name=None, **kwargs):
        if max_tokens is not None and max_tokens <= 1:
            raise ValueError("If `max_tokens` is set for `IntegerLookup`, it must be greater "
                             f"than 1. Received: max_tokens={max_tokens}")
        if num_oov_indices < 0:
            raise ValueError("The value of `num_oov_indices` argument for `IntegerLookup` "
                             f"must >= 0. Received: num_oov_indices={num_oov_indices}")
        dense_only("IntegerLookup", sparse)
        if vocabulary_dtype != "int64":
            raise ValueError("Only `vocabulary_dtype='int64'` is supported at this time. "
                             f"Received: vocabulary_dtype={vocabulary_dtype}")
        super().__init__(max_tokens=max_tokens, num_oov_indices=num_oov_indices,
                         mask_token=mask_token, oov_token=oov_token, vocabulary=vocabulary,
                         vocabulary_dtype=vocabulary_dtype, idf_weights=idf_weights,
                         invert=invert, output_mode=output_mode, sparse=sparse,
                         pad_to_max_tokens=pad_to_max_tokens, oov_method=oov_method,
                         salt=salt, name=name, **kwargs)

    def __call__(self, inputs, *args, **kwargs):
        if self.invert or isinstance(inputs, (np.ndarray, list, tuple, int, np.integer)):
            return self.call(inputs)
        return super(IndexLookup, self).__call__(inputs, *args, **kwargs)

    def call(self, inputs):
        if self.invert or not isinstance(inputs, (jax.Array, jax.core.Tracer)):
            return super().call(inputs)
        return self._encode(self._indices_in_graph(inputs))

    def _indices_in_graph(self, inputs):
        """The lookup on a JAX array (also traced): a sorted table and ``searchsorted``."""
        values = jnp.asarray(inputs).astype(jnp.int32)
        vocab = np.asarray(self._vocab, np.int64)
        order = np.argsort(vocab, kind="stable")
        keys = jnp.asarray(vocab[order] if len(vocab) else np.zeros(1, np.int64), jnp.int32)
        slots = jnp.asarray(order + self._token_start_index() if len(vocab)
                            else np.zeros(1, np.int64), jnp.int32)
        position = jnp.clip(jnp.searchsorted(keys, values), 0, keys.shape[0] - 1)
        found = (keys[position] == values) & (len(vocab) > 0)
        oov = self._oov_start_index()
        if self.num_oov_indices > 1 and self.oov_method == "farmhash":  # hashed on the host
            oov = jax.pure_callback(lambda v: self._oov_indices(v).astype(np.int32),
                                    jax.ShapeDtypeStruct(values.shape, jnp.int32), values,
                                    vmap_method="expand_dims")
        elif self.num_oov_indices > 1:  # Keras's floormod slots
            oov = oov + jnp.mod(values, self.num_oov_indices)
        indices = jnp.where(found, slots[position], oov)
        if self.mask_token is not None:
            masked = 0 if self.output_mode == "int" else -1
            indices = jnp.where(values == self.mask_token, masked, indices)
        return indices

    def get_config(self):
        config = super().get_config()
        for key in ("oov_token", "mask_token"):
            if config[key] is not None:
                config[key] = int(config[key])
        if config["vocabulary"] is not None:
            config["vocabulary"] = [int(v) for v in config["vocabulary"]]
        return config
