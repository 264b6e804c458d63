"""``keras.preprocessing.image``: image files and arrays (``kgraph.utils.image_utils``)."""

from kgraph.utils.image_utils import (array_to_img, img_to_array, load_img, save_img,
                                      smart_resize)

__all__ = ["array_to_img", "img_to_array", "load_img", "save_img", "smart_resize"]
