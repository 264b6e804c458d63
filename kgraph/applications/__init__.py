"""``keras.applications``: Keras's model builders, with Keras's layers, names, parameter
counts and weight files (``weights=None``, ``"imagenet"`` from Keras's cache, or a local
``.h5`` / ``.weights.h5`` path): VGG16, VGG19, ResNet50/101/152 and their V2s, MobileNet,
MobileNetV2, MobileNetV3Small/Large, DenseNet121/169/201, Xception, InceptionV3,
InceptionResNetV2, EfficientNetB0 to B7, EfficientNetV2B0 to B3, S, M and L, ConvNeXt Tiny
to XLarge, NASNetMobile and NASNetLarge.

>>> import kgraph as kg
>>> kg.applications.VGG19(weights=None, classes=10, input_shape=(32, 32, 3)).count_params()
38947914
"""

from kgraph.applications import (convnext, densenet, efficientnet, efficientnet_v2,
                                 imagenet_utils, inception_resnet_v2, inception_v3, mobilenet,
                                 mobilenet_v2, mobilenet_v3, nasnet, resnet, resnet50,
                                 resnet_v2, vgg16, vgg19, xception)
from kgraph.applications.convnext import (ConvNeXtBase, ConvNeXtLarge, ConvNeXtSmall,
                                          ConvNeXtTiny, ConvNeXtXLarge)
from kgraph.applications.densenet import DenseNet121, DenseNet169, DenseNet201
from kgraph.applications.efficientnet import (EfficientNetB0, EfficientNetB1, EfficientNetB2,
                                              EfficientNetB3, EfficientNetB4, EfficientNetB5,
                                              EfficientNetB6, EfficientNetB7)
from kgraph.applications.efficientnet_v2 import (EfficientNetV2B0, EfficientNetV2B1,
                                                 EfficientNetV2B2, EfficientNetV2B3,
                                                 EfficientNetV2L, EfficientNetV2M,
                                                 EfficientNetV2S)
from kgraph.applications.inception_resnet_v2 import InceptionResNetV2
from kgraph.applications.inception_v3 import InceptionV3
from kgraph.applications.mobilenet import MobileNet
from kgraph.applications.mobilenet_v2 import MobileNetV2
from kgraph.applications.mobilenet_v3 import MobileNetV3Large, MobileNetV3Small
from kgraph.applications.nasnet import NASNetLarge, NASNetMobile
from kgraph.applications.resnets import (ResNet50, ResNet50V2, ResNet101, ResNet101V2,
                                         ResNet152, ResNet152V2)
from kgraph.applications.vgg import VGG16, VGG19
from kgraph.applications.xception import Xception

__all__ = ["ConvNeXtBase", "ConvNeXtLarge", "ConvNeXtSmall", "ConvNeXtTiny", "ConvNeXtXLarge",
           "DenseNet121", "DenseNet169", "DenseNet201", "EfficientNetB0", "EfficientNetB1",
           "EfficientNetB2", "EfficientNetB3", "EfficientNetB4", "EfficientNetB5",
           "EfficientNetB6", "EfficientNetB7", "EfficientNetV2B0", "EfficientNetV2B1",
           "EfficientNetV2B2", "EfficientNetV2B3", "EfficientNetV2L", "EfficientNetV2M",
           "EfficientNetV2S", "InceptionResNetV2", "InceptionV3", "MobileNet", "MobileNetV2",
           "MobileNetV3Large", "MobileNetV3Small", "NASNetLarge", "NASNetMobile", "ResNet50",
           "ResNet50V2", "ResNet101", "ResNet101V2", "ResNet152", "ResNet152V2", "VGG16",
           "VGG19", "Xception", "convnext", "densenet", "efficientnet", "efficientnet_v2",
           "imagenet_utils", "inception_resnet_v2", "inception_v3", "mobilenet", "mobilenet_v2",
           "mobilenet_v3", "nasnet", "resnet", "resnet50", "resnet_v2", "vgg16", "vgg19",
           "xception"]
