"""``keras.applications.vgg16``: ``VGG16`` and its ImageNet input and output conventions."""

from kgraph.applications.vgg import VGG16, decode_predictions, preprocess_input

__all__ = ["VGG16", "decode_predictions", "preprocess_input"]
