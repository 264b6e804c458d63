"""``keras.src.ops.image``'s operation classes (``Resize``, ``MapCoordinates``, ...): each is
made with its op's static arguments (Keras's constructor: the function's parameters after
its tensors, in order) and called on the tensors, computing at once on arrays and adding a
graph node on KerasTensors; ``symbolic_call`` is the call on KerasTensors. The ops are
``kgraph.ops.image``'s; its functions are this module's other names.

>>> import numpy as np
>>> Resize((2, 2))(np.ones((1, 4, 4, 3), "float32")).shape
(1, 2, 2, 3)
>>> MapCoordinates(1).get_config()["kwargs"]
{'order': 1}
"""

from __future__ import annotations

import inspect

from kgraph.ops.registry import Operation, get_impl

__all__ = [
    "AffineTransform", "CropImages", "ElasticTransform", "ExtractPatches", "ExtractPatches3D",
    "GaussianBlur", "HSVToRGB", "MapCoordinates", "PadImages", "PerspectiveTransform",
    "RGBToGrayscale", "RGBToHSV", "Resize", "SSIM", "ScaleAndTranslate", "SobelEdges",
    "operation_class"
]


def operation_class(class_name: str, op_name: str, tensors: int = 1) -> type:
    """Keras's operation class of the op ``op_name`` whose first ``tensors`` parameters
    are tensors: ``Class(*static_args, name=None, **static_kwargs)(*tensors)``."""
    impl = get_impl(op_name)
    statics = list(inspect.signature(impl).parameters)[tensors:]

    def __init__(self, *args, name=None, **kwargs):
        if len(args) > len(statics):
            raise TypeError(f"{class_name} takes at most {len(statics)} positional arguments "
                            f"({', '.join(statics)}); received {len(args)}.")
        unknown = sorted(set(kwargs) - set(statics))
        if unknown:
            raise TypeError(f"{class_name} got unexpected arguments {unknown}; it takes "
                            f"{statics}.")
        Operation.__init__(self, impl, name=name, **dict(zip(statics, args)), **kwargs)

    def symbolic_call(self, *args):
        """The call on KerasTensors: the output's KerasTensor."""
        return self(*args)

    return type(class_name, (Operation,), {
        "__init__": __init__, "symbolic_call": symbolic_call, "__module__": __name__,
        "__doc__": f"Keras's ``{class_name}`` operation: ``ops.image.{op_name}`` with its "
                   f"static arguments ({', '.join(statics)}) given when made."})


RGBToGrayscale = operation_class("RGBToGrayscale", "rgb_to_grayscale")
RGBToHSV = operation_class("RGBToHSV", "rgb_to_hsv")
HSVToRGB = operation_class("HSVToRGB", "hsv_to_rgb")
Resize = operation_class("Resize", "resize")
AffineTransform = operation_class("AffineTransform", "affine_transform", tensors=2)
ExtractPatches = operation_class("ExtractPatches", "extract_patches")
ExtractPatches3D = operation_class("ExtractPatches3D", "extract_patches_3d")
MapCoordinates = operation_class("MapCoordinates", "map_coordinates", tensors=2)
PadImages = operation_class("PadImages", "pad_images")
CropImages = operation_class("CropImages", "crop_images")
PerspectiveTransform = operation_class("PerspectiveTransform", "perspective_transform",
                                       tensors=3)
GaussianBlur = operation_class("GaussianBlur", "gaussian_blur")
ElasticTransform = operation_class("ElasticTransform", "elastic_transform")
ScaleAndTranslate = operation_class("ScaleAndTranslate", "scale_and_translate", tensors=4)
SobelEdges = operation_class("SobelEdges", "sobel_edges")
SSIM = operation_class("SSIM", "ssim", tensors=2)
