"""What kgraph's tensors are: dense JAX arrays of numbers. Arguments asking for another
kind (``sparse=True``, ``ragged=True``) are refused, and text arrives as ``str``.

>>> decoded(b"naive")
'naive'
>>> dense_only("ops.bincount", sparse=True)
Traceback (most recent call last):
...
ValueError: ops.bincount: sparse=True is not supported (kgraph's tensors are dense JAX arrays); leave sparse=False.
"""

from __future__ import annotations

import numpy as np

__all__ = ["decoded", "dense_only"]


def dense_only(owner: str, sparse=False, ragged=False) -> None:
    """A ValueError if ``sparse`` or ``ragged`` output is asked for: kgraph has neither kind
    of tensor, and a dense one in its place would be a silent change."""
    for name, value in (("sparse", sparse), ("ragged", ragged)):
        if value:
            raise ValueError(f"{owner}: {name}=True is not supported (kgraph's tensors are "
                             f"dense JAX arrays); leave {name}=False.")


def decoded(values, encoding="utf-8"):
    """Text as ``str``: ``bytes`` (NumPy ``S`` arrays, byte strings) decoded with
    ``encoding``, as Keras's string layers read them."""
    if isinstance(values, bytes):
        return values.decode(encoding)
    array = np.asarray(values)
    if array.dtype.kind == "S" or (array.dtype == object and array.size and isinstance(
            array.reshape(-1)[0], bytes)):
        return np.vectorize(lambda v: v.decode(encoding) if isinstance(v, bytes) else v,
                            otypes=[object])(array).astype(str)
    return values
