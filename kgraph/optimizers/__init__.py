"""``keras.optimizers``: the optimizers of ``runtime.optimizers``, by Keras's names.

Each is an optax ``GradientTransformation``. Loaded on first use of ``kgraph.optimizers``
(``import kgraph`` does not import ``runtime``).

>>> import kgraph as kg, optax
>>> isinstance(kg.optimizers.get("adam"), optax.GradientTransformation)
True
"""

from runtime.optimizers import *  # noqa: F401,F403 - the public catalog
from runtime.optimizers import __all__  # noqa: F401
from kgraph.optimizers import schedules  # noqa: F401,E402
