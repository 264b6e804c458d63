"""The state of one top-level serialization or deserialization: shared layers, config paths.

A layer used at two nesting levels (in a model and in a model nested in it, or in two
nested models) appears once in each level's config. Serializing, every layer config is
marked with its object; at the end of the top-level call, configs of objects seen more than
once keep a ``"shared_object_id"`` (numbered 1, 2, ... in order of appearance, Keras 3's
key) and the others lose the mark. Deserializing, the first config with an id builds the
layer and later ones reuse it, so the rebuilt model shares exactly what the original did.

Inside ``ObjectSharingScope()`` (Keras's), the shared objects span every call made in it,
and objects that are not layers (any object with ``get_config``) are shared too: a config
rebuilt in one call is reused by the later configs of the same id (each call is still
checked whole before anything is built). An object first serialized alone in an earlier
call of the scope is not marked there retroactively.

The first deserialization call (``deserialize_layer``, ``functional_from_config``) checks
the whole config (``validation.check_config_tree``) before anything is built; nested calls
run inside it and report errors at their full config path.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools

from kgraph import config as config_lib
from kgraph.saving import validation

__all__ = ["SHARED_KEY", "ObjectSharingScope", "SafeModeScope", "at", "in_safe_mode", "loading",
           "mark", "object_sharing", "record", "safe_mode_scope", "shared_object", "sharing"]


_SAVING = contextvars.ContextVar("kgraph_saving_shared", default=None)
_LOADING = contextvars.ContextVar("kgraph_loading_shared", default=None)
_PATH = contextvars.ContextVar("kgraph_config_path", default="config")
_SAFE_MODE = contextvars.ContextVar("kgraph_safe_mode", default=None)
# an open ObjectSharingScope's state: {"saving": marks, "numbers": ids, "loading": objects}
_SHARING_SCOPE = contextvars.ContextVar("kgraph_object_sharing", default=None)

SHARED_KEY = "shared_object_id"


# ---------------------------------------------------------------------- saving
def sharing(serialize):
    """Decorate a function returning a config: the outermost call numbers shared objects."""

    @functools.wraps(serialize)
    def wrapper(*args, **kwargs):
        if _SAVING.get() is not None:
            return serialize(*args, **kwargs)
        shared = _SHARING_SCOPE.get()
        seen, numbers = (shared["saving"], shared["numbers"]) if shared else ({}, {})
        token = _SAVING.set(seen)
        try:
            config = serialize(*args, **kwargs)
        finally:
            _SAVING.reset(token)
        return _number_shared(config, seen, numbers)

    return wrapper


def mark(obj, config: dict) -> None:
    """Record that ``config`` serializes ``obj`` (inside a ``sharing`` call)."""
    seen = _SAVING.get()
    if seen is not None:
        seen.setdefault(id(obj), [obj, 0])[1] += 1
        config[SHARED_KEY] = id(obj)


def object_sharing() -> bool:
    """Whether an ``ObjectSharingScope`` is open (objects other than layers are shared)."""
    return _SHARING_SCOPE.get() is not None


def _number_shared(config, seen, numbers):
    """Keep the marks of objects serialized more than once, numbered in order; drop others."""
    stack = [config]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            mark_id = value.get(SHARED_KEY)
            if mark_id in seen:
                if seen[mark_id][1] > 1:
                    value[SHARED_KEY] = numbers.setdefault(mark_id, len(numbers) + 1)
                else:
                    del value[SHARED_KEY]
            stack.extend(reversed(list(value.values())))
        elif isinstance(value, (list, tuple)):
            stack.extend(reversed(value))
    return config


# --------------------------------------------------------------------- loading
def in_safe_mode():
    """Whether the deserialization running now refuses configs that carry code: its
    ``safe_mode`` (False once ``config.enable_unsafe_deserialization()`` was called), None
    outside any deserialization. Keras's ``serialization_lib.in_safe_mode``.

    >>> in_safe_mode() is None
    True
    """
    if config_lib.is_unsafe_deserialization_enabled():
        return False
    return _SAFE_MODE.get()


@contextlib.contextmanager
def safe_mode_scope(safe_mode):
    """Inside, ``in_safe_mode()`` reports ``safe_mode`` (None: the enclosing one's)."""
    token = _SAFE_MODE.set(safe_mode) if safe_mode is not None else None
    try:
        yield
    finally:
        if token is not None:
            _SAFE_MODE.reset(token)


@contextlib.contextmanager
def loading(config, kind, safe_mode=None):
    """Enter a deserialization; the outermost one checks ``config`` (of ``kind``) first.
    ``safe_mode`` (None: the enclosing one's) is what ``in_safe_mode()`` reports inside.

    Yields the config path of ``config`` (``"config"`` at the top).
    """
    path = _PATH.get()
    with safe_mode_scope(safe_mode):
        if _LOADING.get() is not None:
            yield path
            return
        validation.check_config_tree(config, path, kind)
        shared = _SHARING_SCOPE.get()
        token = _LOADING.set(shared["loading"] if shared else {})
        try:
            yield path
        finally:
            _LOADING.reset(token)


@contextlib.contextmanager
def at(path):
    """Deserialize nested configs as found at ``path`` (for error messages)."""
    token = _PATH.set(path)
    try:
        yield
    finally:
        _PATH.reset(token)


def _loading_shared():
    shared = _LOADING.get()
    if shared is None and _SHARING_SCOPE.get() is not None:
        shared = _SHARING_SCOPE.get()["loading"]
    return shared


def shared_object(config):
    """The object already built for ``config``'s shared id in this deserialization, or None."""
    shared = _loading_shared()
    if shared is None or config.get(SHARED_KEY) is None:
        return None
    return shared.get(config[SHARED_KEY])


def record(config, obj) -> None:
    """Remember ``obj`` as the object of ``config``'s shared id (if it has one)."""
    shared = _loading_shared()
    if shared is not None and config.get(SHARED_KEY) is not None:
        shared[config[SHARED_KEY]] = obj


# ------------------------------------------------------------ Keras's scope classes
class SafeModeScope:
    """``with SafeModeScope(safe_mode):`` deserializations inside use ``safe_mode`` (Keras's
    ``serialization_lib.SafeModeScope``; ``in_safe_mode()`` reports it)."""

    def __init__(self, safe_mode=True):
        self.safe_mode = safe_mode
        self._token = None

    def __enter__(self):
        self._token = _SAFE_MODE.set(self.safe_mode)
        return self

    def __exit__(self, *exc_info):
        _SAFE_MODE.reset(self._token)


class ObjectSharingScope:
    """``with ObjectSharingScope():`` objects serialized or rebuilt by the calls inside are
    shared across them (Keras's ``serialization_lib.ObjectSharingScope``; see the module
    docstring). Nested scopes are one scope."""

    def __init__(self):
        self._token = None

    def __enter__(self):
        if _SHARING_SCOPE.get() is None:
            self._token = _SHARING_SCOPE.set({"saving": {}, "numbers": {}, "loading": {}})
        return self

    def __exit__(self, *exc_info):
        if self._token is not None:
            _SHARING_SCOPE.reset(self._token)
            self._token = None
