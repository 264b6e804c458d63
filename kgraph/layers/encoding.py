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

from kgraph.base.layer import Layer
from kgraph.base.tensor_kinds import dense_only
from kgraph.layers.lookup import _batches, encode_counts
from kgraph.layers.string_hashes import fingerprint64 as _fingerprint64, salt_key, siphash64

__all__ = ["CategoryEncoding", "Discretization", "Hashing"]


class CategoryEncoding(Layer):
    """Integer ids in ``[0, num_tokens)`` to one-hot, multi-hot or count vectors."""

    def __init__(self, num_tokens=None, output_mode="multi_hot", sparse=False, **kwargs):
        super().__init__(**kwargs)
        if output_mode == "binary":
            output_mode = "multi_hot"
        if output_mode not in ("one_hot", "multi_hot", "count"):
            raise ValueError(f"Unknown arg for output_mode: {output_mode}")
        if num_tokens is None or num_tokens < 1:
            raise ValueError(f"`num_tokens` must be >= 1. Received: num_tokens={num_tokens}.")
        if sparse:
            raise ValueError(f'Layer "{self.name}": sparse=True is not supported.')
        self.num_tokens, self.output_mode, self.sparse = num_tokens, output_mode, False

    def call(self, inputs, count_weights=None):
        inputs = jnp.asarray(inputs).astype(jnp.int32)
        if self.output_mode == "one_hot":
            if inputs.ndim > 1 and inputs.shape[-1] == 1:
                inputs = inputs[..., 0]
            return (inputs[..., None] == jnp.arange(self.num_tokens)).astype(jnp.float32)
        if inputs.ndim == 1:
            inputs = inputs[:, None]
        if count_weights is not None:
            hits = (inputs[..., None] == jnp.arange(self.num_tokens)).astype(jnp.float32)
            return jnp.sum(hits * jnp.asarray(count_weights, jnp.float32)[..., None], axis=-2)
        return encode_counts(inputs, self.num_tokens, self.output_mode)

    def compute_output_shape(self, input_shape):
        if self.output_mode == "one_hot":
            base = input_shape[:-1] if len(input_shape) > 1 and input_shape[-1] == 1 \
                else input_shape
            return tuple(base) + (self.num_tokens,)
        return (tuple(input_shape[:-1]) if len(input_shape) > 1 else tuple(input_shape)) + (
            self.num_tokens,)

    def compute_output_dtype(self, input_dtype):
        return jnp.dtype("float32")

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
        if output_mode not in ("int", "one_hot", "multi_hot", "count"):
            raise ValueError(f"Unknown output_mode {output_mode!r}.")
        if bin_boundaries is not None and num_bins is not None:
            raise ValueError("Both `num_bins` and `bin_boundaries` should not be set. "
                             f"Received: num_bins={num_bins} and "
                             f"bin_boundaries={bin_boundaries}")
        self.bin_boundaries = None if bin_boundaries is None else [float(b) for b in
                                                                    bin_boundaries]
        dense_only(f'Layer "{self.name}"', sparse)
        self.num_bins, self.epsilon, self.output_mode, self.sparse = (num_bins, epsilon,
                                                                      output_mode, False)

    def adapt(self, data, steps=None):
        """Boundaries at the ``1/num_bins`` ... quantiles of ``data`` (an array or an
        iterable of batches), estimated as Keras does: a weighted summary of each batch
        within ``epsilon``, merged batch by batch, then cut into ``num_bins`` bins."""
        if self.num_bins is None:
            raise ValueError("Cannot adapt a Discretization layer that has been initialized "
                             "with `bin_boundaries`, use `num_bins` instead.")
        summary = np.zeros((2, 0), np.float32)
        for step, batch in enumerate(_batches(data)):
            if steps is not None and step >= steps:
                break
            merged = np.concatenate([_summarize(batch, self.epsilon), summary], axis=1)
            summary = _compress(merged[:, np.argsort(merged[0])], self.epsilon)
        self.bin_boundaries = _compress(summary, 1.0 / self.num_bins)[0, :-1].tolist()

    def call(self, inputs):
        if self.bin_boundaries is None:
            raise ValueError(f'Layer "{self.name}" has no bin boundaries: pass bin_boundaries '
                             "or call adapt() first.")
        boundaries = jnp.asarray(self.bin_boundaries, jnp.float32)
        indices = jnp.searchsorted(boundaries, jnp.asarray(inputs, jnp.float32),
                                   side="right").astype(jnp.int32)
        if self.output_mode == "int":
            return indices
        return encode_counts(indices, len(self.bin_boundaries) + 1, self.output_mode)

    def compute_output_dtype(self, input_dtype):
        return jnp.dtype("int32") if self.output_mode == "int" else jnp.dtype("float32")

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
        if output_mode == "int" and not kwargs.get("dtype"):
            kwargs["dtype"] = "int64"  # Keras's dtype of integer buckets
        super().__init__(**kwargs)
        if num_bins is None or num_bins <= 0:
            raise ValueError(f"The `num_bins` for `Hashing` cannot be `None` or non-positive "
                             f"values. Received: num_bins={num_bins}.")
        if output_mode not in ("int", "one_hot", "multi_hot", "count"):
            raise ValueError(f"Unknown output_mode {output_mode!r}.")
        dense_only(f'Layer "{self.name}"', sparse)
        self.num_bins, self.mask_value = num_bins, mask_value
        self.salt = salt_key(salt, "Hashing")
        self.output_mode, self.sparse = output_mode, False

    def _buckets(self, values):
        masked = self.mask_value is not None
        bins = self.num_bins - 1 if masked else self.num_bins
        buckets = _buckets_host(values, bins, self.salt)
        if masked:
            buckets = np.where(np.asarray(values) == self.mask_value, 0, buckets + 1)
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
        return encode_counts(buckets, self.num_bins, self.output_mode)

    def __call__(self, *args, **kwargs):
        if args and isinstance(args[0], (np.ndarray, list)) and np.asarray(
                args[0]).dtype.kind in "USO":
            return self.call(np.asarray(args[0]))
        return super().__call__(*args, **kwargs)

    def compute_output_dtype(self, input_dtype):
        return jnp.dtype("int32") if self.output_mode == "int" else jnp.dtype("float32")

    def get_config(self):
        return {**super().get_config(), "num_bins": self.num_bins,
                "mask_value": self.mask_value, "salt": self.salt,
                "output_mode": self.output_mode, "sparse": self.sparse}
