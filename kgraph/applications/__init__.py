"""``keras.applications``: Keras's model builders, with Keras's layers, names, parameter
counts and weight files (``weights=None``, ``"imagenet"`` from Keras's cache, or a local
``.h5`` / ``.weights.h5`` path). So far: VGG16 and VGG19.

>>> import kgraph as kg
>>> kg.applications.VGG19(weights=None, classes=10, input_shape=(32, 32, 3)).count_params()
38947914
"""

from kgraph.applications import imagenet_utils, vgg16, vgg19
from kgraph.applications.vgg import VGG16, VGG19

__all__ = ["VGG16", "VGG19", "imagenet_utils", "vgg16", "vgg19"]
