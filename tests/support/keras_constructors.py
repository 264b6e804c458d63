"""Arguments that construct Keras's classes, and kgraph's of the same names: a value for
each required argument (by argument name), and per class the arguments made from the
library under test (a wrapped layer, an inner optimizer)."""

from __future__ import annotations

# Values for the required arguments Keras's classes have (by argument name).
REQUIRED = {"units": 2, "rate": 0.5, "filters": 2, "kernel_size": 3, "num_heads": 2,
            "key_dim": 2, "equation": "ab,bc->ac", "output_shape": 2, "input_dim": 5,
            "output_dim": 2, "activation": "relu", "target_shape": (2,), "dims": (1,), "n": 2,
            "num_tokens": 4, "num_bins": 4, "max_tokens": None, "height": 2, "width": 2,
            "factor": 0.1, "sequence_length": 4, "pool_size": 2, "scale": 1.0,
            "num_query_heads": 2, "num_key_value_heads": 1, "head_dim": 2, "mean": 0.0,
            "stddev": 0.1, "bins": 4, "value_range": (0, 1), "max_number": 3,
            "bounding_box_format": "xyxy", "cropping": 1, "padding": 1, "size": 2,
            "function": lambda x: x, "thresholds": 0.5, "recall": 0.5, "precision": 0.5,
            "specificity": 0.5, "sensitivity": 0.5, "num_classes": 2,
            "target_class_ids": [0], "value": 0.5, "filepath": "m.keras", "directory": ".",
            "root": "http://localhost", "schedule": lambda epoch, lr: lr, "output_size": 2,
            "height_factor": 0.1, "width_factor": 0.1, "backup_dir": "backup",
            "filename": "log.csv", "log_dir": "logs", "patience": 1, "learning_rate": 0.01,
            "call_fn": lambda inputs: inputs, "axes": 1}

# Per class: arguments made from the library under test (layers, optimizers) or overriding
# the table above.
SPECIAL = {
    "Bidirectional": lambda lib: {"layer": lib.layers.LSTM(2)},
    "TimeDistributed": lambda lib: {"layer": lib.layers.Dense(2)},
    "RNN": lambda lib: {"cell": lib.layers.SimpleRNNCell(2)},
    "StackedRNNCells": lambda lib: {"cells": [lib.layers.SimpleRNNCell(2)]},
    "Pipeline": lambda lib: {"layers": [lib.layers.Identity()]},
    "InputLayer": lambda lib: {"shape": (3,)},
    "SpectralNormalization": lambda lib: {"layer": lib.layers.Dense(2)},
    "Discretization": lambda lib: {"num_bins": 4},
    "RandomPosterization": lambda lib: {"factor": 4, "value_range": (0, 255)},
    "LossScaleOptimizer": lambda lib: {"inner_optimizer": lib.optimizers.SGD()},
    "OptimizerMap": lambda lib: {"default_optimizer": lib.optimizers.SGD()},
    "MultiOptimizer": lambda lib: {
        "optimizer_map": lib.optimizers.OptimizerMap(default_optimizer=lib.optimizers.SGD())},
}



def constructor_arguments(lib, name, parameters) -> dict:
    """Values for the required arguments of class ``name`` of ``lib`` (Keras or kgraph)."""
    values = {p.name: REQUIRED.get(p.name) for p in parameters.values()
              if p.name != "self" and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)
              and p.default is p.empty}
    return {**values, **SPECIAL.get(name, lambda lib: {})(lib)}
