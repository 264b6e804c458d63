"""The layer catalog, one module per family (Keras 3 names, arguments and weight names)."""

# base
from kgraph.base.layer import Layer
from kgraph.graph.input_layer import InputLayer
from kgraph.ops import Operation

# core
from kgraph.layers.core import Activation, Dense, Dropout
from kgraph.layers.core_extra import Identity, Lambda, Masking
from kgraph.layers.einsum_dense import EinsumDense
from kgraph.layers.embedding import Embedding

# merging
from kgraph.layers.merging import (Add, Average, Concatenate, Dot, Maximum, Minimum, Multiply,
                                   Subtract)

# normalization
from kgraph.layers.normalization import (BatchNormalization, GroupNormalization,
                                         LayerNormalization, RMSNormalization,
                                         UnitNormalization)

# reshaping
from kgraph.layers.reshaping import (Cropping1D, Cropping2D, Cropping3D, Flatten, Permute,
                                     RepeatVector, Reshape, UpSampling1D, UpSampling2D,
                                     UpSampling3D, ZeroPadding1D, ZeroPadding2D, ZeroPadding3D)

# convolution
from kgraph.layers.convolution import Conv1D, Conv2D, Conv3D
from kgraph.layers.convolution_separable import (DepthwiseConv1D, DepthwiseConv2D,
                                                 SeparableConv1D, SeparableConv2D)
from kgraph.layers.convolution_transpose import Conv1DTranspose, Conv2DTranspose, Conv3DTranspose

# pooling
from kgraph.layers.pooling import (AveragePooling1D, AveragePooling2D, AveragePooling3D,
                                   GlobalAveragePooling1D, GlobalAveragePooling2D,
                                   GlobalAveragePooling3D, GlobalMaxPooling1D, GlobalMaxPooling2D,
                                   GlobalMaxPooling3D, MaxPooling1D, MaxPooling2D, MaxPooling3D)

# regularization
from kgraph.layers.regularization import (ActivityRegularization, AlphaDropout,
                                         GaussianDropout, GaussianNoise, SpatialDropout1D,
                                         SpatialDropout2D, SpatialDropout3D)

# activation layers
from kgraph.layers.activation_layers import ELU, LeakyReLU, PReLU, ReLU, Softmax

# preprocessing
from kgraph.layers.preprocessing import CenterCrop, Normalization, Rescaling, Resizing

# attention
from kgraph.layers.attention import AdditiveAttention, Attention
from kgraph.layers.multi_head_attention import MultiHeadAttention

# recurrent
from kgraph.layers.recurrent import GRU, LSTM, RNN, SimpleRNN
from kgraph.layers.rnn_cells import GRUCell, LSTMCell, SimpleRNNCell
from kgraph.layers.wrappers import Bidirectional, TimeDistributed

# custom gradients (examples of jax.custom_vjp in a layer)
from kgraph.layers.custom_gradient import ClipGradient, StableNorm
