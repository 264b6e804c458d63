"""``keras.applications.vgg16``: ``VGG16`` and its ImageNet input and output conventions."""

from kgraph.applications import imagenet_utils
from kgraph.applications.vgg import VGG16

__all__ = ["VGG16", "decode_predictions", "preprocess_input"]


def preprocess_input(x, data_format=None):
    """Images as VGG's weights expect them (the "caffe" mode: BGR, mean subtracted)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="caffe")


decode_predictions = imagenet_utils.decode_predictions
