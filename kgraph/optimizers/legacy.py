"""``keras.optimizers.legacy``: names kept so that old code fails clearly. As in Keras 3,
making any of them raises ``ImportError`` pointing at the current optimizers.

>>> try:
...     Adam(0.001)
... except ImportError as error:
...     print(str(error).split(",")[0])
`keras.optimizers.legacy` is not supported in Keras 3
"""

from __future__ import annotations

__all__ = ["Adagrad", "Adam", "Ftrl", "LegacyOptimizerWarning", "Optimizer", "RMSprop", "SGD"]


class LegacyOptimizerWarning:
    """Stands for every ``keras.optimizers.legacy`` class; making one raises."""

    def __init__(self, *args, **kwargs):
        raise ImportError("`keras.optimizers.legacy` is not supported in Keras 3, nor in "
                          "kgraph: use the optimizers of `keras.optimizers` (for example "
                          "`keras.optimizers.Adam`), which take the same arguments.")


Adagrad = Adam = Ftrl = Optimizer = RMSprop = SGD = LegacyOptimizerWarning
