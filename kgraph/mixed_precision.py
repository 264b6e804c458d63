"""``keras.mixed_precision``: the global dtype policy (``"mixed_bfloat16"``, ...).

>>> set_global_policy("mixed_float16"); global_policy().name
'mixed_float16'
>>> set_global_policy("float32")
"""

import importlib

from kgraph.dtype_policy import DTypePolicy, global_policy, set_global_policy

Policy = DTypePolicy
dtype_policy = global_policy
set_dtype_policy = set_global_policy

__all__ = ["DTypePolicy", "LossScaleOptimizer", "Policy", "dtype_policy", "global_policy",
           "set_dtype_policy", "set_global_policy"]


def __getattr__(name):
    if name == "LossScaleOptimizer":  # with the optimizers, loaded on first use
        return importlib.import_module("kgraph.optimizers.loss_scale_optimizer").__dict__[name]
    raise AttributeError(f"module 'kgraph.mixed_precision' has no attribute {name!r}")
