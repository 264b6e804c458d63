"""``DataLayer``: Keras's base class of preprocessing layers written against ``self.backend``
(``self.backend.numpy.where``, ``self.backend.random.uniform``, ...), so that the same
``call`` runs in a model and in a data pipeline. kgraph has one backend, JAX: ``self.backend``
is kgraph's ops (``numpy``, ``nn``, ``image``, ``linalg``, ``core``, ``random`` and the
top-level ops such as ``shape``), and ``_get_seed_generator`` is the layer's own generator.

>>> import numpy as np
>>> class Double(DataLayer):
...     def call(self, inputs):
...         return self.backend.numpy.multiply(inputs, 2.0)
>>> Double()(np.ones((1, 2))).tolist()
[[2.0, 2.0]]
"""

from __future__ import annotations

import types

from kgraph import ops, random
from kgraph.base.layer import Layer

__all__ = ["DataLayer", "JAX_BACKEND"]

JAX_BACKEND = types.SimpleNamespace(**{
    **{name: getattr(ops, name) for name in dir(ops) if not name.startswith("_")},
    "numpy": ops.numpy, "nn": ops.nn, "image": ops.image, "linalg": ops.linalg,
    "core": ops.core, "random": random, "name": "jax", "_backend": "jax"})


class DataLayer(Layer):
    """A layer whose ``call`` uses ``self.backend``'s ops; randomness comes from the
    ``seed`` and ``generator`` set in ``__init__`` (``self._get_seed_generator()``)."""

    @property
    def backend(self):
        """The ops ``call`` computes with: kgraph's (JAX)."""
        return JAX_BACKEND

    def _get_seed_generator(self, backend=None):
        if not hasattr(self, "seed") or not hasattr(self, "generator"):
            raise ValueError("The `seed` and `generator` variable must be set in the "
                             "`__init__` method before calling `_get_seed_generator()`.")
        return self.generator

    def convert_weight(self, weight):
        """``weight`` as the backend computes with it (kgraph has one backend)."""
        return weight
