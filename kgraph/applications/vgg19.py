"""``keras.applications.vgg19``: ``VGG19`` and its ImageNet input and output conventions."""

from kgraph.applications import imagenet_utils
from kgraph.applications.vgg import VGG19

__all__ = ["VGG19", "decode_predictions", "preprocess_input"]


def preprocess_input(x, data_format=None):
    """Images as VGG's weights expect them (the "caffe" mode: BGR, mean subtracted)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="caffe")


decode_predictions = imagenet_utils.decode_predictions
