"""Randomness: ``keras.random``'s functions and ``SeedGenerator``, and the eager stream.

Where a draw's key comes from (``seed=``):

- **Inside a layer's call under** ``program.apply(..., key=)`` (and so in ``fit`` and any
  jitted step): from the call's key, folded with the layer's path and a per-call count,
  whatever ``seed`` is (None, an int or a ``SeedGenerator``). The same key gives the same
  numbers; every call and step differs. Hidden global state is never read there.
- **Eagerly** (no compiled program): ``seed=None`` draws from kgraph's eager stream
  (``next_key``, reset by ``set_seed``); an int seed gives the same numbers every call; a
  ``SeedGenerator(seed)`` draws with its state, ``[seed, count]``, and advances it, so calls
  differ and the sequence is Keras's for the same seed (``kgraph.base.seed_generator``).

Compiled programs never touch the eager stream: ``program.init(key)`` and
``program.apply(..., key=)`` take explicit keys.

>>> import kgraph as kg
>>> kg.random.set_seed(0)
>>> gen = kg.random.SeedGenerator(42)
>>> a, b = kg.random.normal((2,), seed=gen), kg.random.normal((2,), seed=gen)
>>> bool((a != b).all()), kg.random.uniform((3,), seed=1).shape
(True, (3,))
"""

import jax
import jax.numpy as jnp

from kgraph import config
from kgraph.base.seed_generator import SeedGenerator
from kgraph.interpreter import context

from kgraph.base.seed_stream import next_key, seed, set_seed  # noqa: F401 - keras.random's

__all__ = [
    "seed",  # kgraph.base.seed_stream's, re-exported
    "SeedGenerator", "beta", "binomial", "categorical", "draw_key", "dropout", "gamma",
    "normal", "randint", "set_random_seed", "shuffle", "truncated_normal", "uniform"
]


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


def draw_key(seed=None):
    """The PRNG key for a draw with Keras's ``seed`` argument (see the module docstring)."""
    ctx = context.current()
    if isinstance(seed, SeedGenerator):
        return seed.next()
    if ctx is not None and (ctx.keys.key is not None or ctx.keys.required):
        return ctx.next_key("random")
    if seed is None:
        return next_key()
    if isinstance(seed, int) and not isinstance(seed, bool):
        return jax.random.PRNGKey(seed)
    if isinstance(seed, (jax.Array,)) and seed.shape == (2,):
        return seed
    raise ValueError(f"Argument `seed` must be None, an integer, a SeedGenerator or a key. "
                     f"Received: seed={seed!r}")


def _float(dtype):
    return jnp.dtype(dtype or config.floatx())


def normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Samples of a normal distribution."""
    return mean + stddev * jax.random.normal(draw_key(seed), tuple(shape), _float(dtype))


def uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    """Samples uniform in ``[minval, maxval)``."""
    return jax.random.uniform(draw_key(seed), tuple(shape), _float(dtype), minval, maxval)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Normal samples within two standard deviations of the mean."""
    values = jax.random.truncated_normal(draw_key(seed), -2.0, 2.0, tuple(shape),
                                         _float(dtype))
    return mean + stddev * values


def randint(shape, minval, maxval, dtype="int32", seed=None):
    """Integers uniform in ``[minval, maxval)``."""
    return jax.random.randint(draw_key(seed), tuple(shape), minval, maxval, jnp.dtype(dtype))


def dropout(inputs, rate, noise_shape=None, seed=None):
    """``inputs`` with each entry zeroed with probability ``rate`` and the rest scaled by
    ``1 / (1 - rate)``; ``noise_shape`` broadcasts the mask."""
    inputs = jnp.asarray(inputs)
    shape = inputs.shape if noise_shape is None else tuple(
        d if d is not None else inputs.shape[i] for i, d in enumerate(noise_shape))
    keep = jax.random.bernoulli(draw_key(seed), 1.0 - rate, shape)
    return jnp.where(keep, inputs / (1.0 - rate), jnp.zeros((), inputs.dtype))


def shuffle(x, axis=0, seed=None):
    """``x`` with its entries along ``axis`` in a random order."""
    return jax.random.permutation(draw_key(seed), jnp.asarray(x), axis=axis, independent=False)


def categorical(logits, num_samples, dtype="int32", seed=None):
    """``num_samples`` class indices per row of ``logits`` (batch, classes)."""
    logits = jnp.asarray(logits)
    samples = jax.random.categorical(draw_key(seed), logits[:, None, :], axis=-1,
                                     shape=(logits.shape[0], num_samples))
    return samples.astype(dtype)


def gamma(shape, alpha, dtype=None, seed=None):
    """Samples of a gamma distribution with concentration ``alpha``."""
    return jax.random.gamma(draw_key(seed), alpha, tuple(shape), _float(dtype))


def beta(shape, alpha, beta, dtype=None, seed=None):  # noqa: A002 - keras name
    """Samples of a beta distribution."""
    return jax.random.beta(draw_key(seed), alpha, beta, tuple(shape), _float(dtype))


def binomial(shape, counts, probabilities, dtype=None, seed=None):
    """Samples of a binomial distribution."""
    values = jax.random.binomial(draw_key(seed), counts, probabilities, tuple(shape))
    return values.astype(_float(dtype))
