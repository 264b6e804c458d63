"""kgraph: Keras-style functional graphs that compile to pure JAX functions.

>>> import kgraph as kg
>>> x = kg.Input(shape=(4,))
>>> model = kg.Model(x, kg.layers.Dense(2)(x))
>>> model.count_params()
10
"""

from kgraph import (activations, config, constraints, datasets, dtype_policy, initializers, layers,
                    ops, random, regularizers)
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
from kgraph.models.functional import Functional
from kgraph.models.model import Model
from kgraph.models.sequential import Sequential
from kgraph.saving import model_from_json, register_layer

__all__ = ["Functional", "Input", "InputLayer", "InputSpec", "KerasHistory", "KerasTensor",
           "Layer", "Model", "Node", "Variable", "activations", "config", "constraints",
           "datasets", "dtype_policy", "initializers", "is_keras_tensor", "layers", "ops", "random",
           "regularizers", "reset_names"]
__all__ += ["Sequential", "model_from_json", "model_to_dot", "plot_model", "plotting",
            "register_layer", "saving"]
__version__ = "0.1.0"
