"""``keras.src.legacy.saving``: the legacy HDF5 model file (``legacy_h5_format``)."""

from kgraph.src.legacy.saving import legacy_h5_format

__all__ = ["legacy_h5_format"]
