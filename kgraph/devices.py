"""``keras.device``: run eager work on a named device.

>>> import kgraph as kg, jax.numpy as jnp
>>> with kg.device("cpu:0"):
...     x = jnp.ones(2)
>>> x.devices() == {jax.devices("cpu")[0]}
True
"""

from __future__ import annotations

import jax

__all__ = ["device"]


def device(device_name: str):
    """A context in which new arrays and eager computations go to ``device_name``
    (``"cpu"``, ``"cpu:1"``, ``"gpu:0"``, ``"tpu:3"``; ``jax.default_device``)."""
    kind, _, index = str(device_name).lower().partition(":")
    kind = {"cuda": "gpu"}.get(kind, kind)
    try:
        devices = jax.devices(kind)
    except RuntimeError as error:
        raise ValueError(f"Unknown device {device_name!r}: this machine has no {kind!r} "
                         f"devices (it has {[d.platform for d in jax.devices()]}).") from error
    position = int(index) if index else 0
    if not 0 <= position < len(devices):
        raise ValueError(f"Device {device_name!r} does not exist: there are {len(devices)} "
                         f"{kind} device(s).")
    return jax.default_device(devices[position])
