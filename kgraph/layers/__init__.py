"""The layer catalog."""

from kgraph.input_layer import InputLayer
from kgraph.layer import Layer
from kgraph.layers.core import Activation, Dense, Dropout
from kgraph.layers.merging import Add, Concatenate
from kgraph.layers.normalization import BatchNormalization
from kgraph.layers.reshaping import Flatten, Reshape
from kgraph.ops import Operation

__all__ = ["Activation", "Add", "BatchNormalization", "Concatenate", "Dense", "Dropout",
           "Flatten", "InputLayer", "Layer", "Operation", "Reshape"]
