"""kgraph's eager random stream: where eager draws and eager initial values get their keys
(``kgraph.random`` re-exports it; ``set_random_seed`` resets it). Compiled programs never
read it: ``program.init(key)`` and ``program.apply(..., key=)`` take explicit keys.

>>> set_seed(3)
>>> bool((next_key() != next_key()).any())
True
"""

import jax

__all__ = ["next_key", "register_seed_generator", "seed", "seed_generator_class", "set_seed"]

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
