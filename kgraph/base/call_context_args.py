"""Keras's call-context arguments: arguments such as ``training`` that a layer's call
passes on to the layers it calls without naming them.

A layer registers more of them with ``_register_call_context_args("foo_mode")`` (before it
is first called). Calling it with ``foo_mode=...`` sets the value for every layer called
inside that call; a layer that registered the argument too and whose ``call`` takes it
receives it (its explicit argument wins), whatever the layers in between. ``training``
is always one (``Layer.__call__`` resolves it).

>>> import jax.numpy as jnp, kgraph as kg
>>> class Inner(kg.layers.Layer):
...     def __init__(self):
...         super().__init__()
...         self._register_call_context_args("foo_mode")
...     def call(self, x, foo_mode=None):
...         return x + (1 if foo_mode else 0)
>>> class Outer(kg.layers.Layer):
...     def __init__(self):
...         super().__init__()
...         self._register_call_context_args("foo_mode")
...         self.inner = Inner()
...     def call(self, x):
...         return self.inner(x)
>>> int(Outer()(jnp.array(0), foo_mode=True))
1
"""

from __future__ import annotations

import functools
import inspect

__all__ = ["CallContextArgs", "resolve"]


class CallContextArgs:
    """``_call_context_args`` and ``_register_call_context_args``, as Keras's ``Layer``
    has them (a base of ``kgraph.base.layer.Layer``)."""

    @property
    def _call_context_args(self) -> set:
        """The call-context arguments this layer resolves: ``training`` and those it
        registered."""
        return {"training", *self.__dict__.get("_registered_context_args", ())}

    def _register_call_context_args(self, *names) -> None:
        """Make ``names`` call-context arguments of this layer (see the module docstring);
        only before its first call."""
        if self.__dict__.get("_called", False):
            raise RuntimeError(f'Layer "{self.name}": Cannot add call-context args after the '
                               "layer has been called.")
        registered = self.__dict__.get("_registered_context_args", ())
        self.__dict__["_registered_context_args"] = tuple(
            dict.fromkeys([*registered, *names]))


@functools.lru_cache(maxsize=None)
def _call_defaults(call) -> dict:
    """The defaults of a layer class's ``call`` parameters (read once per class)."""
    return {name: parameter.default
            for name, parameter in inspect.signature(call).parameters.items()
            if parameter.default is not inspect.Parameter.empty}


def _default(layer, name):
    return _call_defaults(type(layer).call).get(name)


def resolve(layer, kwargs, given, options, accepted, var_kw) -> dict | None:
    """Resolve ``layer``'s registered call-context arguments for this call, in place: the
    value given to the call (in ``kwargs``, or in ``given`` when ``call`` does not take
    it), else the enclosing calls', else ``call``'s default; record it in
    ``options.context_args`` for the layers called inside, and pass it to ``call`` in
    ``kwargs`` when it takes it. Returns the previous ``context_args`` (to restore after
    the call), or None when the layer registered none."""
    names = layer.__dict__.get("_registered_context_args")
    if not names:
        return None
    previous = dict(options.context_args)
    for name in names:
        takes = name in accepted or var_kw
        if name in kwargs or name in given:
            value = kwargs[name] if name in kwargs else given[name]
        elif options.context_args.get(name) is not None:
            value = options.context_args[name]
        else:
            value = _default(layer, name)
        options.context_args[name] = value
        if takes and value is not None:
            kwargs[name] = value
    return previous
