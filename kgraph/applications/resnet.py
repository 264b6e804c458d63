"""``keras.applications.resnet``: ResNet50, ResNet101 and ResNet152, with their ImageNet input and output
conventions."""

from kgraph.applications.resnets import ResNet50, ResNet101, ResNet152, decode_predictions
from kgraph.applications.resnets import preprocess_input

__all__ = ["ResNet50", "ResNet101", "ResNet152", "decode_predictions", "preprocess_input"]
