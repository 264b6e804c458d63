"""``keras.src.trainers.data_adapters.data_adapter_utils``: per-sample weights from class
weights.

>>> class_weight_to_sample_weights([0, 1, 1], {1: 2.0}).tolist()
[1.0, 2.0, 2.0]
"""

from kgraph.utils.class_weights import class_weights_to_sample_weights as \
    class_weight_to_sample_weights

__all__ = ["class_weight_to_sample_weights"]
