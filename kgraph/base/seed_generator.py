"""``SeedGenerator``: a seed that advances at every draw (``keras.random.SeedGenerator``).

Its ``state`` is a non-trainable ``Variable`` holding ``[seed, count]`` (uint32), as in
Keras: a layer that holds a generator lists that state among its ``variables`` and
``non_trainable_variables`` (not among its ``weights``; it is not saved). Where a draw's
key comes from:

- **Inside a run that has a key** (``program.apply(..., key=)``, ``fit``, an eager call
  given ``key=``): from that key, folded with the layer's path and a per-call count (and
  the generator's seed, when one was given). Compiled programs never read the state, so
  the same key gives the same numbers; the state is left as it is.
- **Otherwise** (an eager call; ``stateless_call`` given the state among its
  ``non_trainable_variables``): the state itself is the key, and the draw advances it by
  one, so draws differ and the sequence is Keras's for the same seed.

>>> gen = SeedGenerator(42)
>>> gen.state.value.tolist()
[42, 0]
>>> first, second = gen.next(), gen.next()
>>> first.tolist(), second.tolist(), gen.state.value.tolist()
([42, 0], [42, 1], [42, 2])
"""

from __future__ import annotations

import random as python_random

import jax
import jax.numpy as jnp
import numpy as np

from kgraph.base import naming, seed_stream
from kgraph.base.name_scope import name_scope
from kgraph.base.variables import Variable
from kgraph.interpreter import context

__all__ = ["SEED_DTYPE", "SeedGenerator"]

#: Keras's ``random_seed_dtype()`` on JAX: seeds and states are uint32 pairs.
SEED_DTYPE = "uint32"


@seed_stream.register_seed_generator
class SeedGenerator:
    """A seed that advances at every draw (see the module docstring).

    In a layer: ``self.seed_generator = SeedGenerator(1337)`` in ``__init__``, then
    ``kg.random.normal(shape, seed=self.seed_generator)`` in ``call``.
    """

    def __init__(self, seed=None, name=None, **kwargs):
        if kwargs:
            raise ValueError(f"Unrecognized keyword arguments: {kwargs}")
        self.name = name or naming.unique_name("seed_generator")
        self._initial_seed = seed
        if seed is None:
            seed = python_random.randint(1, int(1e9))
        if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
            raise ValueError(f"Argument `seed` must be an integer. Received: seed={seed!r}")
        self._seed = int(seed) & 0xFFFFFFFF
        with name_scope(self.name, caller=self):
            self.state = Variable(np.array([self._seed, 0], SEED_DTYPE),
                                  trainable=False, name="seed_generator_state")

    @property
    def seed(self) -> int:
        """The seed the state started from."""
        return self._seed

    def next(self, ordered=True):
        """The key of the next draw (see the module docstring): ``ordered`` advances the
        count by one; otherwise the state moves to a near-unique other value (Keras's)."""
        ctx = context.current()
        if (ctx is not None and not ctx.weights.maps(self.state)
                and (ctx.keys.key is not None or ctx.keys.required)):
            # the layer running (the generator's owner) names the key's path and errors
            key = ctx.next_key(ctx.path[-1] if ctx.path else self.name)
            if self._initial_seed is not None:
                key = jax.random.fold_in(key, self._initial_seed)
            return key
        with jax.ensure_compile_time_eval():  # an eager state stays concrete under a trace
            state = self.state.value
            if ordered:
                advanced = state + jnp.array([0, 1], SEED_DTYPE)
            else:
                advanced = ((state + 1) * 5387 % 933199).astype(SEED_DTYPE)
            self.state.assign(advanced)
            return state

    def get_config(self):
        return {"seed": self._initial_seed, "name": self.name}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        return f"<SeedGenerator {self.name} seed={self.seed}>"
