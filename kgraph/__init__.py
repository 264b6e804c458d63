"""kgraph: Keras-style functional graphs that compile to pure JAX functions.

>>> import kgraph as kg
>>> x = kg.Input(shape=(4,))
>>> model = kg.Model(x, kg.layers.Dense(2)(x))
>>> model.count_params()
10
"""

import importlib as _importlib

from kgraph import (activations, backend, config, constraints, datasets, dtype_policies,
                    dtype_policy, initializers, layers, mixed_precision, ops, random,
                    regularizers, tree, utils)
from kgraph import saving
from kgraph.base.input_spec import InputSpec
from kgraph.base.layer import Layer
from kgraph.base.naming import reset_names
from kgraph.base.variables import Variable
from kgraph.display import plotting
from kgraph.display.plotting import model_to_dot, plot_model
from kgraph.graph.input_layer import Input, InputLayer
from kgraph.graph.keras_tensor import KerasTensor, is_keras_tensor
from kgraph.graph.node import KerasHistory, Node
from kgraph.models.function import Function
from kgraph.models.functional import Functional
from kgraph.models.model import Model
from kgraph.models.sequential import Sequential
from kgraph.saving import load_model, model_from_json, register_layer
from kgraph.dtype_policy import DTypePolicy
from kgraph.initializers import KerasInitializer as Initializer
from kgraph.ops import Operation
from kgraph.regularizers import Regularizer
from kgraph.devices import device
from kgraph.base.remat_scope import RematScope, remat
from kgraph.interpreter.stateless_scope import StatelessScope
from kgraph.base.name_scope import name_scope
from kgraph.base.symbolic_scope import SymbolicScope

__all__ = ["Functional", "Input", "InputLayer", "InputSpec", "KerasHistory", "KerasTensor",
           "Layer", "Model", "Node", "Variable", "activations", "config", "constraints",
           "datasets", "dtype_policy", "initializers", "is_keras_tensor", "layers", "ops", "random",
           "regularizers", "reset_names"]
__all__ += ["Sequential", "load_model", "model_from_json", "model_to_dot", "plot_model", "plotting",
            "register_layer", "saving"]
__version__ = "0.1.0"
FloatDTypePolicy = DTypePolicy
__all__ += ["DTypePolicy", "FloatDTypePolicy", "Initializer", "Operation", "Regularizer",
            "device", "dtype_policies", "mixed_precision", "version", "StatelessScope",
            "SymbolicScope", "Function", "RematScope", "remat", "name_scope"]


def version() -> str:
    """kgraph's version (``keras.version()``)."""
    return __version__

# Keras's training and data modules, loaded on first use so that ``import kgraph`` stays
# light: ``kg.optimizers``, ``kg.losses``, ``kg.preprocessing``, ...
_TRAINING_MODULES = ("applications", "callbacks", "compat", "distillation", "distribution",
                     "legacy", "losses",
                     "metrics", "optimizers", "preprocessing", "quantizers", "visualization",
                     "wrappers")
_TRAINING_NAMES = {"Loss": "losses", "Metric": "metrics", "Optimizer": "optimizers",
                   "Quantizer": "quantizers"}
__all__ += ["backend", "tree", "utils", *_TRAINING_MODULES, *_TRAINING_NAMES]


def __getattr__(name):
    if name in _TRAINING_MODULES:
        return _importlib.import_module(f"kgraph.{name}")
    if name in _TRAINING_NAMES:
        return getattr(_importlib.import_module(f"kgraph.{_TRAINING_NAMES[name]}"), name)
    raise AttributeError(f"module 'kgraph' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
