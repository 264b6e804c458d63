"""Global settings, as ``keras.config``: the fuzz factor, the default float type, the image
layout, dtype policies, safe deserialization and interactive logging.

>>> epsilon(), floatx(), image_data_format(), backend()
(1e-07, 'float32', 'channels_last', 'jax')
"""

from __future__ import annotations

import os

import numpy as np

from kgraph import dtype_policy as _policies

_EPSILON = 1e-7  # keras.config.epsilon()
_FLOATX = "float32"
_IMAGE_DATA_FORMAT = "channels_last"
_INTERACTIVE_LOGGING = True
_UNSAFE_DESERIALIZATION = False
_TRACEBACK_FILTERING = True
_FLASH_ATTENTION = None  # None: automatic, each layer's own choice; False: disabled

__all__ = ["backend", "disable_flash_attention", "disable_interactive_logging",
           "disable_traceback_filtering", "dtype_policy", "enable_flash_attention",
           "enable_interactive_logging", "enable_traceback_filtering",
           "enable_unsafe_deserialization", "epsilon", "floatx", "image_data_format",
           "is_flash_attention_enabled", "is_interactive_logging_enabled",
           "is_traceback_filtering_enabled",
           "is_unsafe_deserialization_enabled", "max_epochs", "max_steps_per_epoch",
           "set_dtype_policy", "set_epsilon", "set_floatx", "set_image_data_format",
           "set_max_epochs", "set_max_steps_per_epoch",
           "standardize_dtype"]  # keras.backend's, kept with the other dtype settings


def backend() -> str:
    """The backend name: always ``"jax"``."""
    return "jax"


def epsilon() -> float:
    """The small constant Keras adds or clips with to avoid dividing by / taking log of 0."""
    return _EPSILON


def set_epsilon(value: float) -> None:
    """Set the fuzz factor ``epsilon()`` used by losses, metrics and normalisation."""
    global _EPSILON
    _EPSILON = float(value)


def floatx() -> str:
    """The default float type of weights and ``Input``s, as a string (``"float32"``)."""
    return _FLOATX


def set_floatx(value: str) -> None:
    """Set the default float type (``"float16"``, ``"bfloat16"``, ``"float32"``, ``"float64"``).

    Layers created afterwards without ``dtype=`` use it (unless a mixed dtype policy is set).

    >>> set_floatx("float16"); floatx()
    'float16'
    >>> set_floatx("float32")
    """
    global _FLOATX
    accepted = ("bfloat16", "float16", "float32", "float64")
    name = str(value)
    if name not in accepted:
        raise ValueError(f"Unknown `floatx` value: {value!r}. Expected one of {accepted}.")
    _FLOATX = name
    if not _policies.global_policy().name.startswith("mixed_"):
        _policies.set_global_policy(name)


def image_data_format() -> str:
    """``"channels_last"`` (the default) or ``"channels_first"``."""
    return _IMAGE_DATA_FORMAT


def set_image_data_format(data_format: str) -> None:
    """Set the image layout layers use when created without ``data_format=``."""
    global _IMAGE_DATA_FORMAT
    value = str(data_format).lower()
    if value not in ("channels_first", "channels_last"):
        raise ValueError("The `data_format` argument must be one of {'channels_first', "
                         f"'channels_last'}}. Received: data_format={data_format!r}")
    _IMAGE_DATA_FORMAT = value


def dtype_policy():
    """The global dtype policy (see ``kgraph.dtype_policy``)."""
    return _policies.global_policy()


def set_dtype_policy(policy) -> None:
    """Set the global dtype policy, e.g. ``"mixed_bfloat16"``."""
    _policies.set_global_policy(policy)


def enable_unsafe_deserialization() -> None:
    """Let configs that carry code (``Lambda`` layers) load without ``safe_mode=False``.

    Only ever do this for files you trust: such configs run Python code when loaded.
    """
    global _UNSAFE_DESERIALIZATION
    _UNSAFE_DESERIALIZATION = True


def is_unsafe_deserialization_enabled() -> bool:
    return _UNSAFE_DESERIALIZATION


def enable_interactive_logging() -> None:
    """Progress bars and ``summary()`` print to stdout (the default)."""
    global _INTERACTIVE_LOGGING
    _INTERACTIVE_LOGGING = True


def disable_interactive_logging() -> None:
    """Silence progress bars (``fit(verbose=...)`` then prints nothing)."""
    global _INTERACTIVE_LOGGING
    _INTERACTIVE_LOGGING = False


def is_interactive_logging_enabled() -> bool:
    return _INTERACTIVE_LOGGING


def enable_traceback_filtering() -> None:
    """Recorded for Keras compatibility; kgraph's errors are raised where they are made."""
    global _TRACEBACK_FILTERING
    _TRACEBACK_FILTERING = True


def disable_traceback_filtering() -> None:
    global _TRACEBACK_FILTERING
    _TRACEBACK_FILTERING = False


def is_traceback_filtering_enabled() -> bool:
    return _TRACEBACK_FILTERING


def enable_flash_attention() -> None:
    """Back to the default, as in Keras: attention layers may use flash attention where
    they can (``is_flash_attention_enabled()`` is then None, "automatic"). Which kernel
    computes attention is XLA's choice either way."""
    global _FLASH_ATTENTION
    _FLASH_ATTENTION = None


def disable_flash_attention() -> None:
    """Attention layers made from now on whose ``flash_attention`` is None take it as
    False."""
    global _FLASH_ATTENTION
    _FLASH_ATTENTION = False


def is_flash_attention_enabled():
    """False once disabled; None ("automatic", each layer's own choice) by default and
    after ``enable_flash_attention()``, as in Keras.

    >>> is_flash_attention_enabled() is None
    True
    """
    return _FLASH_ATTENTION


def _limit_from_environment(name):
    value = os.environ.get(name)
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"The environment variable {name} must be an integer, received "
                         f"{value!r}.") from None


_MAX_EPOCHS = _limit_from_environment("KERAS_MAX_EPOCHS")
_MAX_STEPS_PER_EPOCH = _limit_from_environment("KERAS_MAX_STEPS_PER_EPOCH")


def set_max_epochs(max_epochs) -> None:
    """Cap the epochs of every ``fit`` (for debugging; None: no cap). The environment
    variable ``KERAS_MAX_EPOCHS`` sets it too, to run a script quickly without editing it.

    >>> set_max_epochs(2); max_epochs()
    2
    >>> set_max_epochs(None)
    """
    global _MAX_EPOCHS
    _MAX_EPOCHS = max_epochs


def max_epochs():
    """The cap on ``fit``'s epochs, or None."""
    return _MAX_EPOCHS


def set_max_steps_per_epoch(max_steps_per_epoch) -> None:
    """Cap the steps of each epoch of ``fit`` and of ``evaluate`` / ``predict`` (for
    debugging; None: no cap; also ``KERAS_MAX_STEPS_PER_EPOCH``)."""
    global _MAX_STEPS_PER_EPOCH
    _MAX_STEPS_PER_EPOCH = max_steps_per_epoch


def max_steps_per_epoch():
    """The cap on the steps of an epoch, or None."""
    return _MAX_STEPS_PER_EPOCH


_PYTHON_DTYPES = {bool: "bool", int: "int32", float: "float32", complex: "complex64",
                  str: "string", "int": "int32", "string": "string"}


def standardize_dtype(dtype) -> str:
    """A dtype's canonical name: ``standardize_dtype(np.float32) == "float32"``; None is
    ``floatx()``, Python's ``int`` is ``"int32"`` and ``float`` is ``"float32"`` (Keras on
    JAX)."""
    if dtype is None:
        return floatx()
    if isinstance(dtype, (type, str)) and dtype in _PYTHON_DTYPES:  # a Python type, as Keras on JAX names it
        return _PYTHON_DTYPES[dtype]
    if hasattr(dtype, "name") and not isinstance(dtype, str) and not isinstance(dtype, type):
        return str(dtype.name)
    return np.dtype(dtype).name if str(dtype) != "bfloat16" else "bfloat16"
