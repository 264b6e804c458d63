"""kgraph's eager random stream: where eager draws and eager initial values get their keys
(``kgraph.random`` re-exports it; ``set_random_seed`` resets it). Compiled programs never
read it: ``program.init(key)`` and ``program.apply(..., key=)`` take explicit keys.

>>> set_seed(3)
>>> bool((next_key() != next_key()).any())
True
"""

import jax
import numpy as np

__all__ = ["next_key", "register_seed_generator", "seed", "seed_generator_class", "set_seed"]

_seed = 0
_count = 0


def set_seed(seed: int) -> None:
    """Reset the eager stream and the seed eager weight initial values derive from."""
    global _seed, _count
    _seed, _count = int(seed), 0


def seed() -> int:
    """The current global seed."""
    return _seed


def next_key():
    """A fresh key from the eager stream: the ``count``-th of ``seed``, a raw ``uint32[2]``
    key as ``jax.random.PRNGKey`` makes, its bits drawn by NumPy's ``SeedSequence`` from the
    pair (no JAX random op runs, so none is compiled: a process's first eager call pays no
    key-derivation compile)."""
    global _count
    _count += 1
    bits = np.random.SeedSequence([_seed % 2 ** 64, _count]).generate_state(2, np.uint32)
    with jax.ensure_compile_time_eval():  # concrete even when first drawn inside a trace
        return jax.numpy.asarray(bits)


# The class of seed objects, ``SeedGenerator`` (``kgraph.base.seed_generator``), registered by
# its module: the initializers beneath it take one as their seed, while its state is a
# Variable, made with initializers.
_seed_generator_class = None


def register_seed_generator(cls) -> type:
    """Make ``cls`` the class of seed objects (``seed_generator_class``); returns ``cls``."""
    global _seed_generator_class
    _seed_generator_class = cls
    return cls


def seed_generator_class() -> type:
    """``SeedGenerator``, the class of seed objects (registered when kgraph is imported)."""
    return _seed_generator_class
