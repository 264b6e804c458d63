"""Value checks on data (not shapes): eager errors, and opt-in checks under ``jit``.

Shapes and dtypes are checked when a graph is built or traced. Some mistakes are in the
values themselves, e.g. an ``Embedding`` id out of range. On concrete arrays (eager calls,
an un-jitted ``program.apply``) such a check raises a ValueError at once. Under ``jit`` the
values are data the trace cannot see; there the check is off by default (no cost) and
``program.checked_apply`` turns it on, built on ``jax.experimental.checkify``:

>>> import jax, jax.numpy as jnp, kgraph as kg, compiler
>>> ids = kg.Input(shape=(3,), dtype="int32")
>>> program = compiler.compile(kg.Model(ids, kg.layers.Embedding(5, 2, name="emb")(ids)))
>>> params, state = program.init(jax.random.PRNGKey(0))
>>> error, (out, state) = jax.jit(program.checked_apply)(params, state, jnp.array([[1, 7, 2]]))
>>> print(error.get())  # doctest: +ELLIPSIS
Layer "emb" (Embedding): ids must be in [0, 5), received id 7 ...
"""

from __future__ import annotations

import contextlib

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import checkify

__all__ = ["check_index_range", "checked", "checking", "enabled"]


_enabled = [False]


@contextlib.contextmanager
def checking(on: bool = True):
    """Inside this block, value checks in traced code become ``checkify`` checks."""
    saved = _enabled[0]
    _enabled[0] = on
    try:
        yield
    finally:
        _enabled[0] = saved


def enabled() -> bool:
    """Whether traced code should emit ``checkify`` checks (see ``checking``)."""
    return _enabled[0]


def check_index_range(layer, ids, size: int, what: str = "ids") -> None:
    """``0 <= ids < size``: a ValueError now on concrete ids, a checkify check when traced
    inside ``checking()``, nothing otherwise."""
    where = f'Layer "{layer.name}" ({type(layer).__name__})'
    if not isinstance(ids, jax.core.Tracer):
        values = np.asarray(ids)
        bad = values[(values < 0) | (values >= size)]
        if bad.size:
            raise ValueError(f"{where}: {what} must be in [0, {size}), received {what[:-1]} "
                             f"{bad.flat[0]} ({bad.size} out of range).")
        return
    if enabled():
        out_of_range = (ids < 0) | (ids >= size)
        first = jnp.argmax(out_of_range.reshape(-1))
        checkify.check(~jnp.any(out_of_range),
                       f"{where}: {what} must be in [0, {size}), received {what[:-1]} "
                       "{bad} (the first out of range).", bad=ids.reshape(-1)[first])


def checked(fn):
    """``fn`` checkified with value checks on: returns ``(error, fn's result)``."""
    def run(*args, **kwargs):
        with checking():
            return fn(*args, **kwargs)
    return checkify.checkify(run, errors=checkify.user_checks)
