"""The layer catalog, one module per family (Keras 3 names, arguments and weight names)."""

# base
from kgraph.input_layer import InputLayer
from kgraph.layer import Layer
from kgraph.ops import Operation

# core
from kgraph.layers.core import Activation, Dense, Dropout

# merging
from kgraph.layers.merging import Add, Concatenate

# normalization
from kgraph.layers.normalization import BatchNormalization

# reshaping
from kgraph.layers.reshaping import Flatten, Reshape

# convolution

# pooling

# regularization

# activation layers

# preprocessing

# attention

# recurrent
