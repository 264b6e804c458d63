"""``keras.legacy``: the serialization format of Keras 2 (``keras.legacy.saving``)."""

from kgraph.legacy import saving  # noqa: F401

__all__ = ["saving"]
