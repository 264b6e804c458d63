"""``keras.metrics``: the metrics of ``runtime.metrics``, by Keras's names.

Loaded on first use of ``kgraph.metrics`` (``import kgraph`` does not import ``runtime``).

>>> import kgraph as kg, jax.numpy as jnp
>>> m = kg.metrics.MeanAbsoluteError()
>>> float(m.result(m.update(m.init(), jnp.zeros((2, 1)), jnp.ones((2, 1)))))
1.0
"""

from runtime.metrics import *  # noqa: F401,F403 - the public catalog
from runtime.metrics import __all__  # noqa: F401
