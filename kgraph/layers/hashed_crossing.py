"""``HashedCrossing`` (Keras 3's): crosses of categorical features by the hashing trick,
with Keras's numbers. The bin of a row is TensorFlow's ``sparse.cross_hashed``: starting
from the key ``0xDECAFCAFFE``, each feature (a string's FarmHash Fingerprint64, an
integer's own 64 bits) is chained in with ``FingerprintCat64``, and the result is taken
modulo ``num_bins``.

>>> import numpy as np
>>> layer = HashedCrossing(num_bins=5)
>>> layer((np.array(["A", "B", "A", "B", "A"]), np.array([101, 101, 101, 102, 102]))).tolist()
[1, 4, 1, 1, 3]
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from kgraph.base.layer import Layer
from kgraph.base.tensor_kinds import dense_only
from kgraph.graph.keras_tensor import KerasTensor
from kgraph.layers.string_hashes import fingerprint64

__all__ = ["HashedCrossing", "cross_hashed"]

_HASH_KEY = 0xDECAFCAFFE  # TensorFlow's default key of sparse.cross_hashed
_MUL = np.uint64(0xC6A4A7935BD1E995)
_SHIFT = np.uint64(47)


def _shift_mix(value):
    return value ^ (value >> _SHIFT)


def _fingerprint_cat(first, second):
    """TensorFlow's ``FingerprintCat64`` on uint64 arrays (wrapping arithmetic)."""
    result = first ^ _MUL
    result ^= _shift_mix(second * _MUL) * _MUL
    result *= _MUL
    return _shift_mix(_shift_mix(result) * _MUL)


def _is_text(values) -> bool:
    if values.dtype.kind in "US":
        return True
    return values.dtype == object and all(isinstance(v, (str, bytes)) for v in values.flat)


def _features(values):
    """A column's uint64 features: Fingerprint64 of strings (UTF-8), integers' bits."""
    values = np.asarray(values)
    if _is_text(values):
        return np.fromiter((fingerprint64(v) for v in values.reshape(-1).tolist()),
                           np.uint64, values.size).reshape(values.shape)
    return values.astype(np.int64).view(np.uint64)


def cross_hashed(columns, num_bins):
    """The bins (int64) of the crosses of equally shaped ``columns`` (NumPy arrays of
    strings or integers, crossed element by element, in order)."""
    with np.errstate(over="ignore"):
        hashed = np.full(np.shape(columns[0]), _HASH_KEY, np.uint64)
        for column in columns:
            hashed = _fingerprint_cat(hashed, _features(column))
    return (hashed % np.uint64(num_bins)).astype(np.int64)


def _is_traced(value) -> bool:
    return isinstance(value, jax.core.Tracer)


class HashedCrossing(Layer):
    """Crosses of two or more categorical features (strings or integers, each of shape
    ``()``, ``(batch,)`` or ``(batch, 1)``) hashed into ``num_bins`` bins, as Keras (see the
    module docstring): ``output_mode="int"`` gives the bins (in the inputs' shape),
    ``"one_hot"`` their one-hot vectors ``(batch, num_bins)``.

    Strings are hashed on the host (call the layer on NumPy arrays before the model);
    integers also inside models and under ``jit`` (through ``jax.pure_callback``).

    >>> import numpy as np
    >>> layer = HashedCrossing(num_bins=4, output_mode="one_hot")
    >>> layer([np.array([[3], [7]]), np.array([["x"], ["y"]])]).tolist()
    [[0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 1.0, 0.0]]
    """

    autocast = False  # the inputs are categories: never cast to the (output) dtype

    def __init__(self, num_bins, output_mode="int", sparse=False, name=None, dtype=None,
                 **kwargs):
        if output_mode == "int" and dtype is None:
            dtype = "int64"
        super().__init__(name=name, dtype=dtype, **kwargs)
        owner = self._owner()
        if not isinstance(num_bins, (int, np.integer)) or isinstance(num_bins, bool) \
                or num_bins < 1:
            raise ValueError(f"{owner}: `num_bins` should be a positive integer. "
                             f"Received: num_bins={num_bins!r}")
        if output_mode not in ("int", "one_hot"):
            raise ValueError(f"{owner}: unknown value for `output_mode` argument. Allowed "
                             f"values are: ('int', 'one_hot'). Received: "
                             f"output_mode={output_mode!r}")
        dense_only(owner, sparse)
        self.num_bins = int(num_bins)
        self.output_mode = output_mode
        self.sparse = False

    # ------------------------------------------------------------------ checks
    def _owner(self):
        return f'Layer "{self.name}" (HashedCrossing)'

    def _check_inputs_list(self, inputs):
        if not isinstance(inputs, (list, tuple)):
            raise ValueError(f"{self._owner()} should be called on a list or tuple of "
                             f"inputs. Received: inputs={inputs!r:.200}")
        if len(inputs) < 2:
            raise ValueError(f"{self._owner()} should be called on at least two inputs. "
                             f"Received: {len(inputs)} input(s)")

    def _check_shapes(self, shapes):
        first = tuple(shapes[0])
        if len(first) > 2 or (len(first) == 2 and first[-1] != 1):
            raise ValueError(f"{self._owner()}: all inputs should have shape `()`, "
                             f"`(batch_size)` or `(batch_size, 1)`. Received shapes: "
                             f"{[tuple(s) for s in shapes]}")
        if any(tuple(s) != first for s in shapes[1:]):
            raise ValueError(f"{self._owner()}: all inputs should have equal shape. "
                             f"Received shapes: {[tuple(s) for s in shapes]}")

    def _check_dtypes(self, inputs):
        for value in inputs:
            dtype = np.dtype(value.dtype)
            if dtype.kind in "iu" or (dtype.kind in "USO" and _is_text(np.asarray(value))):
                continue
            raise ValueError(f"{self._owner()}: all inputs should have an integer or string "
                             f"dtype. Received dtypes: {[str(v.dtype) for v in inputs]}")

    # -------------------------------------------------------------------- call
    def __call__(self, inputs, *args, **kwargs):
        self._check_inputs_list(inputs)
        if any(isinstance(v, KerasTensor) for v in inputs):
            if any(np.dtype(v.dtype).kind in "USO" for v in inputs
                   if isinstance(v, KerasTensor)):
                raise TypeError(f"{self._owner()} hashes strings on the host: call it on NumPy "
                                "arrays of strings before the model, and give the model its "
                                "integer outputs.")
            return super().__call__(list(inputs), *args, **kwargs)
        if any(_is_traced(v) for v in inputs):  # inside a compiled program: integers only
            return super().__call__(list(inputs), *args, **kwargs)
        kwargs.pop("training", None)  # no training-time behaviour
        return self.call(inputs, *args, **kwargs)  # host values (strings, int64): hashed now

    def call(self, inputs):
        self._check_inputs_list(inputs)
        traced = any(_is_traced(v) for v in inputs)
        inputs = [v if traced and isinstance(v, jax.Array) else np.asarray(v) for v in inputs]
        self._check_shapes([v.shape for v in inputs])
        self._check_dtypes(inputs)
        if traced and any(np.dtype(v.dtype).kind in "USO" for v in inputs):
            raise TypeError(f"{self._owner()} hashes strings on the host, not inside a "
                            "compiled program: call it on NumPy arrays of strings.")
        dtype = jax.dtypes.canonicalize_dtype(self.compute_dtype)
        if self.output_mode == "int" and jnp.iinfo(dtype).max < self.num_bins - 1:
            raise ValueError(f"{self._owner()}: num_bins={self.num_bins} does not fit the "
                             f"output dtype {dtype.name}.")
        if traced:
            shape = jax.ShapeDtypeStruct(jnp.shape(inputs[0]), jnp.int32)
            bins = jax.pure_callback(
                lambda *columns: cross_hashed(columns, self.num_bins).astype(np.int32),
                shape, *inputs, vmap_method="broadcast_all")
        else:
            bins = jnp.asarray(cross_hashed(inputs, self.num_bins).astype(
                np.int32 if self.num_bins <= 2 ** 31 else np.int64))
        if self.output_mode == "int":
            return bins.astype(dtype)
        if bins.ndim == 0:
            bins = bins[None]
        elif bins.ndim == 2:
            bins = bins[:, 0]
        return jax.nn.one_hot(bins, self.num_bins, dtype=dtype)

    def compute_output_shape(self, input_shape):
        if not isinstance(input_shape, (list, tuple)) or len(input_shape) < 2 or \
                not all(isinstance(s, (list, tuple)) for s in input_shape):
            raise ValueError(f"{self._owner()}: expected as input a list/tuple of at least "
                             f"2 tensors. Received: input_shape={input_shape}")
        self._check_shapes(input_shape)
        first = tuple(input_shape[0])
        if self.output_mode == "int":
            return first
        if not first:
            return (1, self.num_bins)
        return (first[:-1] if first[-1] == 1 else first) + (self.num_bins,)

    def compute_output_dtype(self, input_dtype):
        return jax.dtypes.canonicalize_dtype(self.compute_dtype)

    def get_config(self):
        return {"num_bins": self.num_bins, "output_mode": self.output_mode,
                "sparse": self.sparse, "name": self.name,
                "dtype": jnp.dtype(self.dtype).name}  # as Keras: the variable dtype
