"""``keras.visualization``: bounding boxes and segmentation masks drawn on images (NumPy;
labels written with Pillow), and galleries of images as matplotlib figures (matplotlib is
imported on first use).

>>> import numpy as np, kgraph as kg
>>> masks = np.ones((1, 2, 2, 1), "int32")
>>> kg.visualization.draw_segmentation_masks(np.zeros((1, 2, 2, 3)), masks, num_classes=2,
...                                          alpha=1.0)[0, 0, 0].tolist()
[1, 127, 31]
"""

from kgraph.visualization.draw import draw_bounding_boxes, draw_segmentation_masks
from kgraph.visualization.gallery import (plot_bounding_box_gallery, plot_image_gallery,
                                          plot_segmentation_mask_gallery)

__all__ = ["draw_bounding_boxes", "draw_segmentation_masks", "plot_bounding_box_gallery",
           "plot_image_gallery", "plot_segmentation_mask_gallery"]
