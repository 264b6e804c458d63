"""Knowledge distillation (``keras.distillation``): a frozen teacher trains a student.

>>> import numpy as np
>>> import kgraph as kg
>>> def mlp(width):
...     x = kg.Input(shape=(4,))
...     h = kg.layers.Dense(width, name="hidden")(x)
...     return kg.Model(x, kg.layers.Dense(3, name="logits")(h))
>>> distiller = kg.distillation.Distiller(
...     teacher=mlp(8), student=mlp(4),
...     distillation_losses=kg.distillation.LogitsDistillation(temperature=2.0))
>>> distiller.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
>>> x, y = np.ones((8, 4), "float32"), np.zeros(8, "int32")
>>> sorted(distiller.fit(x, y, epochs=1, verbose=0).history)
['distillation_loss', 'loss', 'student_loss', 'total_loss']
"""

from __future__ import annotations

from kgraph.distillation.distillation_loss import (DistillationLoss, FeatureDistillation,
                                                   LogitsDistillation)
from kgraph.distillation.distiller import Distiller

__all__ = ["DistillationLoss", "Distiller", "FeatureDistillation", "LogitsDistillation"]
