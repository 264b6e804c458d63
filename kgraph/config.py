"""Global numeric settings, as ``keras.config``: ``epsilon()`` is Keras's fuzz factor.

>>> epsilon()
1e-07
"""

_EPSILON = 1e-7  # keras.config.epsilon()


def epsilon() -> float:
    """The small constant Keras adds or clips with to avoid dividing by / taking log of 0."""
    return _EPSILON
