"""The layer catalog, one module per family (Keras 3 names, arguments and weight names)."""

# base
from kgraph.base.layer import Layer
from kgraph.graph.input_layer import InputLayer
from kgraph.ops import Operation

# core
from kgraph.layers.core import Activation, Dense, Dropout
from kgraph.layers.core_extra import Identity, Lambda, Masking
from kgraph.layers.einsum_dense import EinsumDense
from kgraph.layers.jax_layer import FlaxLayer, JaxLayer
from kgraph.layers.mel_spectrogram import MelSpectrogram
from kgraph.layers.stft_spectrogram import STFTSpectrogram
from kgraph.layers.embedding import Embedding, ReversibleEmbedding

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
from kgraph.layers.pooling_adaptive import (AdaptiveAveragePooling1D, AdaptiveAveragePooling2D,
                                            AdaptiveAveragePooling3D, AdaptiveMaxPooling1D,
                                            AdaptiveMaxPooling2D, AdaptiveMaxPooling3D)

# regularization
from kgraph.layers.regularization import (ActivityRegularization, AlphaDropout,
                                         GaussianDropout, GaussianNoise, SpatialDropout1D,
                                         SpatialDropout2D, SpatialDropout3D)

# activation layers
from kgraph.layers.activation_layers import ELU, LeakyReLU, PReLU, ReLU, Softmax

# preprocessing
from kgraph.layers.preprocessing import CenterCrop, Normalization, Rescaling, Resizing
from kgraph.layers.encoding import CategoryEncoding, Discretization, Hashing
from kgraph.layers.hashed_crossing import HashedCrossing
from kgraph.layers.lookup import IntegerLookup, StringLookup
from kgraph.layers.pipeline import Pipeline
from kgraph.layers.text_vectorization import TextVectorization
from kgraph.layers.augmentation_color import (AutoContrast, RandomColorDegeneration,
                                              RandomGaussianBlur, RandomGrayscale, RandomHue,
                                              RandomColorJitter, RandomInvert,
                                              RandomPosterization, RandomSaturation,
                                              RandomSharpness, Solarization)
from kgraph.layers.augmentation_histogram import (
    ContrastLimitedAdaptiveHistogramEqualization, Equalization)
from kgraph.layers.augmentation_mixing import CutMix, MixUp, RandomErasing
from kgraph.layers.augmentation import (RandomBrightness, RandomContrast, RandomCrop,
                                        RandomFlip, RandomRotation, RandomTranslation,
                                        RandomZoom)
from kgraph.layers.augmentation_warp import (RandomElasticTransform, RandomPerspective,
                                             RandomShear)
from kgraph.layers.augmentation_policies import AugMix, RandAugment
from kgraph.layers.max_num_bounding_boxes import MaxNumBoundingBoxes

# attention
from kgraph.layers.attention import AdditiveAttention, Attention
from kgraph.layers.grouped_query_attention import GroupedQueryAttention, GroupQueryAttention
from kgraph.layers.multi_head_attention import MultiHeadAttention

# recurrent
from kgraph.layers.recurrent import GRU, LSTM, RNN, SimpleRNN
from kgraph.layers.rnn_cells import GRUCell, LSTMCell, SimpleRNNCell
from kgraph.layers.rnn_stacked import StackedRNNCells
from kgraph.layers.conv_lstm import ConvLSTM1D, ConvLSTM2D, ConvLSTM3D
from kgraph.layers.wrappers import Bidirectional, TimeDistributed, Wrapper
from kgraph.layers.spectral_normalization import SpectralNormalization

# custom gradients (examples of jax.custom_vjp in a layer)
from kgraph.layers.custom_gradient import ClipGradient, StableNorm

# Keras's functional forms, the input helpers, and Keras's alternative class names
from kgraph.base.input_spec import InputSpec
from kgraph.graph.input_layer import Input
from kgraph.layers.merging_functions import (add, average, concatenate, dot, maximum, minimum,
                                             multiply, subtract)
from kgraph.saving import deserialize_layer as deserialize, serialize_layer as serialize

AvgPool1D, AvgPool2D, AvgPool3D = AveragePooling1D, AveragePooling2D, AveragePooling3D
MaxPool1D, MaxPool2D, MaxPool3D = MaxPooling1D, MaxPooling2D, MaxPooling3D
GlobalAvgPool1D, GlobalAvgPool2D, GlobalAvgPool3D = (
    GlobalAveragePooling1D, GlobalAveragePooling2D, GlobalAveragePooling3D)
GlobalMaxPool1D, GlobalMaxPool2D, GlobalMaxPool3D = (
    GlobalMaxPooling1D, GlobalMaxPooling2D, GlobalMaxPooling3D)
Convolution1D, Convolution2D, Convolution3D = Conv1D, Conv2D, Conv3D
Convolution1DTranspose, Convolution2DTranspose, Convolution3DTranspose = (
    Conv1DTranspose, Conv2DTranspose, Conv3DTranspose)
SeparableConvolution1D, SeparableConvolution2D = SeparableConv1D, SeparableConv2D
