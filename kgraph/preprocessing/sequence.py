"""``keras.preprocessing.sequence``: ``pad_sequences``."""

from kgraph.utils.data_utils import pad_sequences

__all__ = ["pad_sequences"]
