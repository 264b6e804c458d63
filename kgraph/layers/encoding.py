"""Numeric preprocessing in the graph (Keras 3's arguments and configs):
``CategoryEncoding``, ``Discretization`` (with ``adapt``) and ``Hashing``.

>>> import jax.numpy as jnp
>>> CategoryEncoding(num_tokens=4)(jnp.array([[0, 1], [3, 3]])).tolist()
[[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]]
>>> Discretization(bin_boundaries=[0.0, 1.0])(jnp.array([-1.0, 0.5, 2.0])).tolist()
[0, 1, 2]
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from kgraph import config
from kgraph.base.layer import Layer
from kgraph.base.tensor_kinds import dense_only
from kgraph.graph.keras_tensor import KerasTensor
from kgraph.layers.adapt_data import adapt_batches
from kgraph.layers.categorical import CATEGORICAL_MODES, encode_categorical, encoded_shape
from kgraph.layers.string_hashes import fingerprint64 as _fingerprint64, salt_key, siphash64

__all__ = ["CategoryEncoding", "Discretization", "Hashing"]


class CategoryEncoding(Layer):
    """Integer ids in ``[0, num_tokens)`` to one-hot, multi-hot or count vectors (``count``
    may weigh each occurrence by ``count_weights``)."""

    def __init__(self, num_tokens=None, output_mode="multi_hot", sparse=False, **kwargs):
        super().__init__(**kwargs)
        if output_mode == "binary":
            output_mode = "multi_hot"
        if output_mode not in CATEGORICAL_MODES:
            raise ValueError(f"Unknown arg for output_mode: {output_mode}")
        if num_tokens is None:
            raise ValueError("num_tokens must be set to use this layer. If the number of "
                             "tokens is not known beforehand, use the IntegerLookup layer "
                             "instead.")
        if num_tokens < 1:
            raise ValueError(f"`num_tokens` must be >= 1. Received: num_tokens={num_tokens}.")
        dense_only(f'Layer "{self.name}"', sparse)
        self.num_tokens, self.output_mode, self.sparse = num_tokens, output_mode, False

    def _encode(self, inputs, count_weights=None):
        return encode_categorical(jnp.asarray(inputs), self.output_mode, self.num_tokens,
                                  self.compute_dtype, count_weights)

    def call(self, inputs, count_weights=None):
        if count_weights is not None:
            if self.output_mode != "count":
                raise ValueError("`count_weights` is not used when `output_mode` is not "
                                 f"`'count'`. Received `count_weights={count_weights}`.")
            count_weights = jnp.asarray(count_weights, self.compute_dtype)
        return self._encode(inputs, count_weights)

    def compute_output_shape(self, input_shape):
        return encoded_shape(input_shape, self.output_mode, self.num_tokens)

    def compute_output_dtype(self, input_dtype):
        return jnp.dtype(self.compute_dtype)

    def get_config(self):
        return {**super().get_config(), "num_tokens": self.num_tokens,
                "output_mode": self.output_mode, "sparse": self.sparse}


def _summarize(values, epsilon):
    """A sorted batch as ``[values; weights]``: about ``1/epsilon`` evenly spaced values,
    each weighing the count it stands for (every value, weight 1, for small batches)."""
    values = np.sort(np.asarray(values, np.float32).reshape(-1))
    step = max(values.size * epsilon, 1)
    kept = values[int(step - 1)::int(step)]
    return np.stack([kept, np.full(kept.shape, step, kept.dtype)])


def _compress(summary, epsilon):
    """A summary cut to ``1/epsilon`` points by interpolating its cumulative weights."""
    if summary.shape[1] * epsilon < 1:
        return summary
    percents = epsilon + np.arange(0.0, 1.0, epsilon)
    cumulative = summary[1].cumsum()
    fractions = cumulative / cumulative[-1]
    points = np.interp(percents, fractions, summary[0])
    cumulative = np.interp(percents, fractions, cumulative)
    weights = cumulative - np.concatenate([[0.0], cumulative[:-1]])
    return np.stack([points, weights]).astype(np.float32)


class Discretization(Layer):
    """Bucket indices of values: bucket ``i`` holds ``boundaries[i-1] <= x < boundaries[i]``
    (``adapt`` finds ``num_bins`` quantile boundaries); or one-hot/multi-hot/count of them."""

    def __init__(self, bin_boundaries=None, num_bins=None, epsilon=0.01, output_mode="int",
                 sparse=False, dtype=None, name=None, **kwargs):
        super().__init__(name=name, dtype=dtype, **kwargs)
        dense_only(f'Layer "{self.name}"', sparse)
        if output_mode not in ("int",) + CATEGORICAL_MODES:
            raise ValueError(f"Unknown value for `output_mode` in Discretization: "
                             f"{output_mode!r}; expected one of {('int',) + CATEGORICAL_MODES}.")
        if num_bins is not None and num_bins < 0:
            raise ValueError("`num_bins` must be greater than or equal to 0. "
                             f"Received: `num_bins={num_bins}`")
        if bin_boundaries is not None and num_bins is not None:
            raise ValueError("Both `num_bins` and `bin_boundaries` should not be set. "
                             f"Received: `num_bins={num_bins}` and "
                             f"`bin_boundaries={bin_boundaries}`")
        if num_bins is None and bin_boundaries is None:
            raise ValueError("You need to set either `num_bins` or `bin_boundaries`.")
        self.bin_boundaries = None if bin_boundaries is None else [float(b) for b in
                                                                    bin_boundaries]
        self.num_bins, self.epsilon, self.output_mode, self.sparse = (num_bins, epsilon,
                                                                      output_mode, False)

    @property
    def input_dtype(self):
        return config.floatx()

    @property
    def output_dtype(self):
        """``int32`` bucket indices, or encodings in the compute dtype (as Keras)."""
        return self.compute_dtype if self.output_mode != "int" else "int32"

    def adapt(self, data, steps=None):
        """Boundaries at the ``1/num_bins`` ... quantiles of ``data`` (an array or an
        iterable of batches), estimated as Keras does: a weighted summary of each batch
        within ``epsilon``, merged batch by batch, then cut into ``num_bins`` bins."""
        if self.num_bins is None:
            raise ValueError("Cannot adapt a Discretization layer that has been initialized "
                             "with `bin_boundaries`, use `num_bins` instead.")
        summary = np.zeros((2, 0), np.float32)
        for batch in adapt_batches(data, steps):
            merged = np.concatenate([_summarize(batch, self.epsilon), summary], axis=1)
            summary = _compress(merged[:, np.argsort(merged[0])], self.epsilon)
        self.bin_boundaries = _compress(summary, 1.0 / self.num_bins)[0, :-1].tolist()

    def call(self, inputs):
        if self.bin_boundaries is None:
            raise ValueError("You need to either pass the `bin_boundaries` argument at "
                             "construction time or call `adapt(dataset)` before you can start "
                             f'using the `Discretization` layer "{self.name}".')
        boundaries = jnp.asarray(self.bin_boundaries, jnp.float32)
        indices = jnp.searchsorted(boundaries, jnp.asarray(inputs, jnp.float32),
                                   side="right").astype(jnp.int32)
        return encode_categorical(indices, self.output_mode, len(self.bin_boundaries) + 1,
                                  self.output_dtype)

    def compute_output_shape(self, input_shape):
        depth = self.num_bins if self.bin_boundaries is None else len(self.bin_boundaries) + 1
        return encoded_shape(input_shape, self.output_mode, depth)

    def compute_output_dtype(self, input_dtype):
        return jnp.dtype(self.output_dtype)

    @classmethod
    def from_config(cls, config):
        """An adapted layer's config holds both ``bin_boundaries`` and ``num_bins`` (as
        Keras's): build from the boundaries, then keep ``num_bins``."""
        config = dict(config)
        num_bins = config.pop("num_bins", None) if config.get("bin_boundaries") is not None \
            else None
        layer = cls(**config)
        if num_bins is not None:
            layer.num_bins = num_bins
        return layer

    def get_config(self):
        config = super().get_config()
        config.pop("trainable", None)  # not one of Keras's Discretization arguments
        return {**config, "bin_boundaries": self.bin_boundaries,
                "num_bins": self.num_bins, "epsilon": self.epsilon,
                "output_mode": self.output_mode, "sparse": self.sparse}


def _buckets_host(values, num_bins, salt):
    """FarmHash Fingerprint64 of each value's text (Keras's ``to_hash_bucket_fast``), or
    with a ``salt`` (``[k0, k1]``) SipHash-2-4 keyed by it (``to_hash_bucket_strong``),
    modulo ``num_bins``."""
    values = np.asarray(values)

    def bucket(value):
        text = value.decode() if isinstance(value, bytes) else str(value)
        if salt is None:
            return _fingerprint64(text) % num_bins
        return siphash64(salt, text.encode()) % num_bins

    return np.vectorize(bucket, otypes=[np.int64])(values) if values.size else \
        values.astype(np.int64)


class Hashing(Layer):
    """Values to ``num_bins`` buckets: FarmHash Fingerprint64 of each value's text modulo
    the bins, Keras's numbers (``mask_value`` goes to bucket 0, the rest to 1..). A ``salt``
    (one integer, or two) switches to SipHash-2-4 keyed by it, as Keras.
    Strings are hashed on the host; integers also inside graphs and under ``jit`` (through
    ``jax.pure_callback``)."""

    autocast = False  # the inputs are categories: never cast to the (int64) dtype

    def __init__(self, num_bins, mask_value=None, salt=None, output_mode="int", sparse=False,
                 **kwargs):
        if not kwargs.get("dtype"):  # Keras's dtypes: int64 buckets, or floatx encodings
            kwargs["dtype"] = "int64" if output_mode == "int" else config.floatx()
        super().__init__(**kwargs)
        if num_bins is None or num_bins <= 0:
            raise ValueError(f"The `num_bins` for `Hashing` cannot be `None` or non-positive "
                             f"values. Received: num_bins={num_bins}.")
        if output_mode == "int" and self.dtype_policy.name not in ("int32", "int64"):
            raise ValueError('When `output_mode="int"`, `dtype` should be an integer type, '
                             f"'int32' or 'in64'. Received: dtype={kwargs['dtype']}")
        if output_mode not in ("int",) + CATEGORICAL_MODES:
            raise ValueError("Invalid value for argument `output_mode`. Expected one of "
                             f"{('int',) + CATEGORICAL_MODES}. Received: "
                             f"output_mode={output_mode}")
        if sparse and output_mode == "int":
            raise ValueError('`sparse` may only be true if `output_mode` is `"one_hot"`, '
                             f'`"multi_hot"`, or `"count"`. Received: sparse={sparse} and '
                             f"output_mode={output_mode}")
        dense_only(f'Layer "{self.name}"', sparse)
        self.num_bins, self.mask_value = num_bins, mask_value
        self.salt = salt_key(salt, "Hashing")
        self.output_mode, self.sparse = output_mode, False

    def _buckets(self, values):
        values = np.asarray(values)
        if values.dtype.kind == "f":  # Keras hashes a float's integer part's text
            values = values.astype(np.int64)
        masked = self.mask_value is not None and self.num_bins > 1
        bins = self.num_bins - 1 if masked else self.num_bins
        buckets = _buckets_host(values, bins, self.salt)
        if masked:
            buckets = np.where(values == self.mask_value, 0, buckets + 1)
        return buckets.astype(np.int32)

    def call(self, inputs):
        if not isinstance(inputs, (jax.Array, jax.core.Tracer)):  # host values: hash now
            buckets = jnp.asarray(self._buckets(np.asarray(inputs)))
        else:
            shape = jax.ShapeDtypeStruct(jnp.shape(inputs), jnp.int32)
            buckets = jax.pure_callback(lambda v: self._buckets(np.asarray(v)), shape, inputs,
                                        vmap_method="expand_dims")
        if self.output_mode == "int":
            return buckets
        return encode_categorical(buckets, self.output_mode, self.num_bins, self.compute_dtype)

    def __call__(self, inputs, *args, **kwargs):
        if not isinstance(inputs, (jax.Array, jax.core.Tracer, KerasTensor)):
            return self.call(np.asarray(inputs))  # host values (strings too): hashed now
        return super().__call__(inputs, *args, **kwargs)

    def compute_output_shape(self, input_shape):
        return encoded_shape(input_shape, self.output_mode, self.num_bins)

    def compute_output_dtype(self, input_dtype):
        return jnp.dtype(self.compute_dtype)

    def get_config(self):
        return {**super().get_config(), "num_bins": self.num_bins,
                "mask_value": self.mask_value, "salt": self.salt,
                "output_mode": self.output_mode, "sparse": self.sparse}
