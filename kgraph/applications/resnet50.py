"""``keras.applications.resnet50``: ResNet50, with their ImageNet input and output
conventions."""

from kgraph.applications.resnets import ResNet50, decode_predictions
from kgraph.applications.resnets import preprocess_input

__all__ = ["ResNet50", "decode_predictions", "preprocess_input"]
