"""``Config``: Keras's dict of named settings, also read and set as attributes, that can be
frozen against changes and written as JSON.

>>> config = Config(learning_rate=0.1)
>>> config.seed = 7
>>> config["learning_rate"], config.seed, sorted(config)
(0.1, 7, ['learning_rate', 'seed'])
>>> config.freeze()
>>> config.seed = 8
Traceback (most recent call last):
ValueError: Cannot mutate attribute(s) because the config is frozen.
"""

from __future__ import annotations

import copy
import difflib
import json

__all__ = ["Config"]


_OWN = frozenset({"_values", "_frozen"})


class Config:
    """Named values as a dict (``config["name"]``) and as attributes (``config.name``)."""

    def __init__(self, **kwargs):
        object.__setattr__(self, "_values", dict(kwargs))
        object.__setattr__(self, "_frozen", False)

    @property
    def frozen(self) -> bool:
        """Whether changes are refused."""
        return self._frozen

    def freeze(self) -> None:
        """Refuse every change from now on."""
        object.__setattr__(self, "_frozen", True)

    def unfreeze(self) -> None:
        object.__setattr__(self, "_frozen", False)

    def _check_open(self) -> None:
        if self._frozen:
            raise ValueError("Cannot mutate attribute(s) because the config is frozen.")

    def as_dict(self) -> dict:
        return copy.copy(self._values)

    def to_json(self) -> str:
        return json.dumps(self._values)

    def keys(self):
        return self._values.keys()

    def values(self):
        return self._values.values()

    def items(self):
        return self._values.items()

    def get(self, keyname, value=None):
        return self._values.get(keyname, value)

    def pop(self, *args):
        self._check_open()
        return self._values.pop(*args)

    def update(self, *args, **kwargs):
        self._check_open()
        return self._values.update(*args, **kwargs)

    def __setattr__(self, name, value):
        if name in _OWN or hasattr(type(self), name):
            raise AttributeError(f"Config attribute {name!r} is reserved.")
        self._check_open()
        self._values[name] = value

    def __getattr__(self, name):
        values = object.__getattribute__(self, "_values")
        if name in values:
            return values[name]
        message = f"Unknown attribute: '{name}'."
        close = difflib.get_close_matches(name, list(values), n=1, cutoff=0.7)
        if close:
            message += f" Did you mean '{close[0]}'?"
        raise AttributeError(message)

    def __setitem__(self, key, value):
        self._check_open()
        self._values[key] = value

    def __getitem__(self, key):
        return self._values[key]

    def __delitem__(self, key):
        self._check_open()
        del self._values[key]

    def __contains__(self, key):
        return key in self._values

    def __iter__(self):
        return iter(sorted(self._values))

    def __len__(self):
        return len(self._values)

    def __repr__(self):
        return f"<Config {self._values}>"
