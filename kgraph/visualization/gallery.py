"""Galleries of images (``keras.visualization.plot_image_gallery``,
``plot_bounding_box_gallery`` and ``plot_segmentation_mask_gallery``) as matplotlib
figures: matplotlib is imported on first use (``pip install matplotlib``).

>>> import matplotlib
>>> matplotlib.use("Agg")
>>> import numpy as np, matplotlib.pyplot as plt
>>> plot_image_gallery(np.zeros((4, 8, 8, 3)), show=False)
>>> len(plt.gcf().axes)
4
>>> plt.close("all")
"""

from __future__ import annotations

import functools
import math

import numpy as np

from kgraph import config
from kgraph.visualization.draw import draw_bounding_boxes, draw_segmentation_masks

__all__ = ["plot_bounding_box_gallery", "plot_image_gallery", "plot_segmentation_mask_gallery"]


def _matplotlib(name):
    try:
        import matplotlib.pyplot as plt
        from matplotlib import patches
    except ImportError:
        raise ImportError(f"{name} needs matplotlib: pip install matplotlib.") from None
    return plt, patches


def _checked_images(name, images, data_format):
    """``images`` as a channels-last NumPy batch."""
    images = np.asarray(images)
    if images.ndim != 4:
        raise ValueError(f"{name}: `images` must be batched 4D tensor. Received: "
                         f"images.shape={images.shape}")
    if (data_format or config.image_data_format()) == "channels_first":
        images = images.transpose(0, 2, 3, 1)
    return images


def _to_pixels(images, value_range):
    """``images`` scaled from ``value_range`` to [0, 255] (as Keras's value-range map)."""
    low, high = value_range
    if (low, high) == (0, 255):
        return images
    images = images.astype("float32")
    return (images - np.float32(low)) / (np.float32(high) - np.float32(low)) * 255.0


def plot_image_gallery(images, y_true=None, y_pred=None, label_map=None, rows=None, cols=None,
                       value_range=(0, 255), scale=2, path=None, show=None, transparent=True,
                       dpi=60, legend_handles=None, data_format=None):
    """A ``rows x cols`` grid of the first images of a batch (Keras's layout: by default
    ``rows = ceil(sqrt(batch))``, ``cols = batch // rows``), titled with ``label_map``'s
    names of ``y_true`` / ``y_pred`` if given; saved to ``path``, or shown (``show``,
    by default when there is no ``path``). Returns None, as Keras.

    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np, matplotlib.pyplot as plt
    >>> plot_image_gallery(np.zeros((2, 4, 4, 3)), y_true=[0, 1], label_map={0: "cat"},
    ...                    rows=1, cols=2, show=False)
    >>> [axis.get_title() for axis in plt.gcf().axes]
    ['Label: cat', 'Label: Unknown']
    >>> plt.close("all")
    """
    plt, _ = _matplotlib("plot_image_gallery")
    if path is not None and show:
        raise ValueError("plot_image_gallery() expects either `path` to be set, or `show` to "
                         f"be true, not both. Received path={path!r}, show={show!r}.")
    if (y_true is not None or y_pred is not None) and label_map is None:
        raise ValueError("plot_image_gallery: if `y_true` or `y_pred` are provided, a "
                         "`label_map` must also be provided.")
    show = show if show is not None else path is None
    images = _checked_images("plot_image_gallery", images, data_format)
    batch_size = images.shape[0]
    rows = rows or int(math.ceil(math.sqrt(batch_size)))
    cols = cols or int(math.ceil(batch_size // rows))
    images = _to_pixels(images[:min(rows * cols, batch_size)], value_range)
    fig, axes = plt.subplots(nrows=rows, ncols=cols, figsize=(cols * scale, rows * scale),
                             frameon=False, layout="tight", squeeze=False, sharex="row",
                             sharey="col")
    fig.subplots_adjust(wspace=0, hspace=0)
    if legend_handles is not None:
        fig.legend(handles=legend_handles, loc="lower center")
    y_true = None if y_true is None else np.asarray(y_true)
    y_pred = None if y_pred is None else np.asarray(y_pred)
    for index, axis in enumerate(axes.ravel()):
        axis.margins(x=0, y=0)
        axis.axis("off")
        if index >= len(images):
            continue
        image = images[index].astype("uint8")
        axis.imshow(image[..., 0] if image.shape[-1] == 1 else image,
                    cmap="gray" if image.shape[-1] == 1 else None)
        title = []
        if y_true is not None and index < len(y_true):
            title.append(f"Label: {label_map.get(y_true[index], 'Unknown')}")
        if y_pred is not None and index < len(y_pred):
            title.append(f"Pred: {label_map.get(y_pred[index], 'Unknown')}")
        if title:
            axis.set_title("  ".join(title), fontsize=8)
    if path is not None:
        plt.savefig(fname=path, pad_inches=0, bbox_inches="tight", transparent=transparent,
                    dpi=dpi)
        plt.close()
    elif show:
        plt.show()
        plt.close()


def plot_bounding_box_gallery(images, bounding_box_format, y_true=None, y_pred=None,
                              value_range=(0, 255), true_color=(0, 188, 212),
                              pred_color=(255, 235, 59), line_thickness=2, font_scale=1.0,
                              text_thickness=None, class_mapping=None,
                              ground_truth_mapping=None, prediction_mapping=None, legend=False,
                              legend_handles=None, rows=None, cols=None, data_format=None,
                              **kwargs):
    """``plot_image_gallery`` of the images with their true boxes (``y_true``, a dict as
    ``draw_bounding_boxes`` takes, in ``true_color``) and predicted ones (``y_pred``, in
    ``pred_color``); ``legend=True`` adds a legend of the two colours. Other keyword
    arguments go to ``plot_image_gallery``.

    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np, matplotlib.pyplot as plt
    >>> boxes = {"boxes": np.array([[[1, 1, 6, 6]]]), "labels": np.array([[0]])}
    >>> plot_bounding_box_gallery(np.zeros((1, 8, 8, 3)), "xyxy", y_true=boxes, legend=True,
    ...                           show=False)
    >>> [text.get_text() for text in plt.gcf().legends[0].get_texts()]
    ['Ground Truth', 'Prediction']
    >>> plt.close("all")
    """
    _, patches = _matplotlib("plot_bounding_box_gallery")
    prediction_mapping = prediction_mapping or class_mapping
    ground_truth_mapping = ground_truth_mapping or class_mapping
    plotted = _checked_images("plot_bounding_box_gallery", images, data_format)
    draw = functools.partial(draw_bounding_boxes, bounding_box_format=bounding_box_format,
                             line_thickness=line_thickness, text_thickness=text_thickness,
                             font_scale=font_scale, data_format="channels_last")
    if y_true is not None:
        plotted = draw(plotted, y_true, color=true_color, class_mapping=ground_truth_mapping)
    if y_pred is not None:
        plotted = draw(plotted, y_pred, color=pred_color, class_mapping=prediction_mapping)
    if legend:
        if legend_handles:
            raise ValueError("plot_bounding_box_gallery: pass `legend` or `legend_handles`, "
                             "not both.")
        legend_handles = [
            patches.Patch(color=np.array(true_color) / 255.0, label="Ground Truth"),
            patches.Patch(color=np.array(pred_color) / 255.0, label="Prediction")]
    return plot_image_gallery(plotted, value_range=value_range, legend_handles=legend_handles,
                              rows=rows, cols=cols, data_format="channels_last", **kwargs)


def plot_segmentation_mask_gallery(images, num_classes, value_range=(0, 255), y_true=None,
                                   y_pred=None, color_mapping=None, blend=True, alpha=0.8,
                                   ignore_index=-1, data_format=None, **kwargs):
    """``plot_image_gallery`` with one row per image: the image, then its true masks
    (``y_true``) and predicted ones (``y_pred``) drawn by ``draw_segmentation_masks``.
    Other keyword arguments go to ``plot_image_gallery``.

    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np, matplotlib.pyplot as plt
    >>> masks = np.zeros((2, 4, 4, 1), "int32")
    >>> plot_segmentation_mask_gallery(np.zeros((2, 4, 4, 3)), 2, y_true=masks,
    ...                                y_pred=masks, show=False)
    >>> len(plt.gcf().axes)  # 2 rows of image, truth, prediction
    6
    >>> plt.close("all")
    """
    _matplotlib("plot_segmentation_mask_gallery")
    first = (data_format or config.image_data_format()) == "channels_first"
    images = _checked_images("plot_segmentation_mask_gallery", images, data_format)
    draw = functools.partial(draw_segmentation_masks, num_classes=num_classes,
                             color_mapping=color_mapping, alpha=alpha,
                             ignore_index=ignore_index, blend=blend,
                             data_format="channels_last")

    def drawn(masks):
        masks = np.asarray(masks)
        masks = masks.transpose(0, 2, 3, 1) if first and masks.ndim == 4 else masks
        return draw(images, masks.astype("int32"))

    columns = [images] + [drawn(m) for m in (y_true, y_pred) if m is not None]
    gallery = np.stack([column[i] for i in range(images.shape[0]) for column in columns])
    return plot_image_gallery(gallery, value_range=value_range, rows=images.shape[0],
                              cols=len(columns), data_format="channels_last", **kwargs)
