"""Global randomness for eager use: weight initial values and eager random layers.

Compiled programs never touch this: ``program.init(key)`` and ``program.apply(..., key=)``
take explicit keys. Eager conveniences (building a layer by calling it on an array, an
eager ``Dropout(training=True)`` call without ``key=``) draw from one seeded stream, so a
notebook is reproducible after ``kgraph.random.set_seed(n)``.

>>> import kgraph as kg
>>> kg.random.set_seed(0)
"""

import jax

_seed = 0
_key = None
_count = 0


def set_seed(seed: int) -> None:
    """Reset the eager stream and the seed eager weight initial values derive from."""
    global _seed, _key, _count
    _seed, _key, _count = int(seed), None, 0


def seed() -> int:
    """The current global seed."""
    return _seed


def next_key():
    """A fresh key from the eager stream."""
    global _key, _count
    with jax.ensure_compile_time_eval():  # concrete even when first drawn inside a trace
        if _key is None:
            _key = jax.random.PRNGKey(_seed)
        _count += 1
        return jax.random.fold_in(_key, _count)


def set_random_seed(seed: int) -> None:
    """Seed everything at once (``keras.utils.set_random_seed``): Python's ``random``,
    NumPy's global generator and kgraph's eager stream."""
    import random as python_random

    import numpy as np

    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ValueError(f"Expected `seed` argument to be an integer. Received: seed={seed!r}")
    python_random.seed(seed)
    np.random.seed(seed)
    set_seed(seed)
