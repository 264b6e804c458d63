"""``keras.applications.vgg19``: ``VGG19`` and its ImageNet input and output conventions."""

from kgraph.applications.vgg import VGG19, decode_predictions, preprocess_input

__all__ = ["VGG19", "decode_predictions", "preprocess_input"]
