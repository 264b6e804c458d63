"""``keras.applications.resnet_v2``: ResNet50V2, ResNet101V2 and ResNet152V2, with their
ImageNet input and output conventions."""

from kgraph.applications.resnets import (ResNet50V2, ResNet101V2, ResNet152V2,
                                         decode_predictions)
from kgraph.applications.resnets import preprocess_input_v2 as preprocess_input

__all__ = ["ResNet50V2", "ResNet101V2", "ResNet152V2", "decode_predictions", "preprocess_input"]
