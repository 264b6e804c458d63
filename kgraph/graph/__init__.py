"""The symbolic graph: ``KerasTensor``, ``Node`` / ``KerasHistory`` and ``Input``."""
