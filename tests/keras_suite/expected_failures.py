"""Keras's test cases that fail on kgraph, each with its reason, in two lists.

``DIFFERENCES``: kgraph differs from Keras on purpose, and the README's "Known differences
from Keras" says why (kgraph is right, or Keras's behaviour cannot be kgraph's). ``OPEN``:
defects not fixed yet, each with the error the case gives; the list only shrinks. A case in
either list must still fail (the suite says so when one passes: then it leaves the list).
A Keras file that cannot be imported at all is listed by its path.

    python -m tests.keras_suite.report --failures   # the cases failing now, with errors
"""

from __future__ import annotations

__all__ = ["DIFFERENCES", "OPEN", "expected"]

# case id -> why kgraph differs (README: Known differences from Keras)
DIFFERENCES: dict[str, str] = {
    # image preprocessing layers
    "keras/src/layers/preprocessing/image_preprocessing/random_shear_test.py::RandomShearTest::test_random_shear_bounding_boxes_with_x_shift":
        "RandomShear's boxes move with the images' exact shear; Keras's shear its boxes in "
        "relative coordinates one axis after the other, off the sheared pixels (README)",
    "keras/src/layers/preprocessing/image_preprocessing/random_shear_test.py::RandomShearTest::test_random_shear_bounding_boxes_with_xy_shift":
        "RandomShear's boxes move with the images' exact shear; Keras's shear its boxes in "
        "relative coordinates one axis after the other, off the sheared pixels (README)",
    "keras/src/layers/preprocessing/image_preprocessing/random_shear_test.py::RandomShearTest::test_random_shear_bounding_boxes_with_y_shift":
        "RandomShear's boxes move with the images' exact shear; Keras's shear its boxes in "
        "relative coordinates one axis after the other, off the sheared pixels (README)",
    "keras/src/layers/preprocessing/image_preprocessing/random_crop_test.py::RandomCropTest::test_dict_input":
        "an image layer returns a new dict for Keras's dict form and leaves the one it "
        "was given as it was; Keras's also writes its results into the given dict, which "
        "the case reads back (README)",
}

# case id -> the error it gives now (a defect to fix)
OPEN: dict[str, str] = {
    # image preprocessing layers
    "keras/src/layers/preprocessing/image_preprocessing/center_crop_test.py::CenterCropTest::test_dynamic_spatial_dims":
        "ValueError: Batch 2 from the data iterable does not match the first batch "
        "(predict on batches of changing height and width)",
    # ops.image
    "keras/src/ops/image_test.py::ImageOpsBehaviorTests::test_crop_images_unknown_shape":
        "ValueError not raised: an unknown height without target_height is not detected "
        "(shape inference falls back to concrete sizes)",
    "keras/src/ops/image_test.py::ImageOpsDynamicShapeTest::test_pad_images":
        "ValueError: pad_images: bottom_padding must be >= 0 (images of unknown height and "
        "width padded to a target size: shape inference falls back to concrete sizes)",
    "keras/src/ops/image_test.py::ImageOpsStaticShapeTest::test_gaussian_blur":
        "TypeError: Argument `kernel_size` of ops.gaussian_blur must be a Python value "
        "(a KerasTensor kernel_size and sigma)",
    "keras/src/ops/image_test.py::ImageOpsCorrectnessTest::test_map_coordinates_constant_padding":
        "TypeError: ops.map_coordinates failed ...: Error interpreting argument ... as an "
        "abstract array (TensorFlow eager tensors as an op's inputs)",
}


def expected(cases) -> dict[str, str]:
    """Of ``cases`` (ids), those listed, with their reason."""
    listed = {**OPEN, **DIFFERENCES}
    return {case: listed[case] for case in cases if case in listed}
