"""Keras's test cases that fail on kgraph, each with its reason, in three lists.

``DIFFERENCES``: kgraph differs from Keras on purpose (kgraph is right, or Keras's behaviour
cannot be kgraph's); each difference is said in one sentence, which docs/known-differences.md
lists word for word (generated from this list: ``python docs/hooks.py``; the site's build
and a test check it). ``OPEN_DEFECTS``
(``open_defects/``, by Keras folder): defects not fixed yet, each with the error the case
gives; the list only shrinks. ``FAILING_UNDER_KERAS``: cases that fail under Keras itself,
run from its installed wheel (a test checks they do). A case in any list must still fail (the suite says so when
one passes: then it leaves the list). A Keras file that cannot be imported at all is listed
by its path.

    python -m tests.keras_suite.report --failures   # the cases failing now, with errors
"""

from __future__ import annotations

import dataclasses

from tests.keras_suite.open_defects import OPEN_DEFECTS

__all__ = ["DIFFERENCES", "Difference", "FAILING_UNDER_KERAS", "expected"]


@dataclasses.dataclass(frozen=True)
class Difference:
    """A way kgraph differs from Keras on purpose, and Keras's cases that pin Keras's way."""

    why: str
    cases: tuple[str, ...]


_LOSSES = "keras/src/losses/losses_test.py::"
_IMAGE = "keras/src/layers/preprocessing/image_preprocessing/"
_BACKUP = "keras/src/callbacks/backup_and_restore_test.py::BackupAndRestoreCallbackTest::"
_NN = "keras/src/ops/nn_test.py::"
_NUMPY = "keras/src/ops/numpy_test.py::"

DIFFERENCES: list[Difference] = [
    Difference("`Huber` and `CosineSimilarity` keep `delta` and `axis` in their config; "
               "Keras's `get_config` leaves them out, so a Keras loss reloaded from its config "
               "falls back to the defaults.",
               (f"{_LOSSES}HuberLossTest::test_config",
                f"{_LOSSES}CosineSimilarityTest::test_config")),
    Difference("`SparseCategoricalCrossentropy(axis=...)` takes the class axis anywhere, as "
               "Keras on PyTorch; Keras on JAX refuses any axis but the last (a shape error).",
               (f"{_LOSSES}SparseCategoricalCrossentropyTest::"
                "test_binary_segmentation_different_axis",
                f"{_LOSSES}SparseCategoricalCrossentropyTest::"
                "test_multi_class_segmentation_different_axis")),
    Difference("An image layer given Keras's dict form returns a new dict and leaves the one "
               "it was given as it was; Keras's also writes its results into the given dict.",
               (f"{_IMAGE}random_crop_test.py::RandomCropTest::test_dict_input",)),
    Difference("`RandomShear` moves boxes by the images' exact shear; Keras's shears them in "
               "relative coordinates, one axis after the other, which leaves them off the "
               "sheared pixels.",
               tuple(f"{_IMAGE}random_shear_test.py::RandomShearTest::"
                     f"test_random_shear_bounding_boxes_with_{axis}_shift"
                     for axis in ("x", "xy", "y"))),
    Difference("A `Normalization` that was neither adapted nor given `mean` and `variance` "
               "raises when called (a forgotten `adapt`); Keras's normalizes with mean 0 and "
               "variance 1.",
               ("keras/src/layers/preprocessing/normalization_test.py::NormalizationTest"
                "::test_normalization_basics",)),
    Difference("`BackupAndRestore` writes each backup after the other callbacks have run the "
               "same hook (so it holds their progress of that epoch or batch: EarlyStopping's, "
               "the History's), and a run resumed from a backup made inside an epoch continues "
               "at the next batch; Keras's saves in list order (listed first, before a callback "
               "raises an error in that hook) and restarts the epoch from its first batch, "
               "training again on the batches before the backup.",
               (f"{_BACKUP}test_best_case_epoch", f"{_BACKUP}test_best_case_step",
                f"{_BACKUP}test_backup_corrupted")),
    Difference("An optimizer made without `name=` is named after its class alone (`adam`, "
               "`adam_w`) however many were made before in the process, so its config and "
               "its variables' paths do not depend on what ran before; Keras numbers them per "
               "process (`adam_1`, `adam_2`).",
               ("keras/src/optimizers/optimizer_test.py::OptimizerTest::"
                "test_optimizer_auto_naming",
                "keras/src/models/variable_mapping_test.py::VariableMappingTest::test_basics")),
    Difference("A `Lambda` layer loads only under `safe_mode=False`, and then takes its "
               "function from `custom_objects` or the registered objects by name: kgraph never "
               "imports a module named in a config nor runs bytecode stored in one (a Python "
               "lambda is saved by name only). Keras loads a function named by its module in "
               "safe mode too, and saves a lambda's bytecode, which it runs when loaded under "
               "`safe_mode=False`.",
               ("keras/src/layers/core/lambda_layer_test.py::LambdaTest::test_lambda_basics",
                "keras/src/layers/core/lambda_layer_test.py::LambdaTest::test_correctness",
                "keras/src/layers/core/lambda_layer_test.py::LambdaTest::"
                "test_correctness_lambda_shape",
                "keras/src/models/sequential_test.py::SequentialTest::"
                "test_serialization_with_lambda_layer",
                "keras/src/saving/serialization_lib_test.py::SerializationLibTest::"
                "test_lambda_layer",
                "keras/src/saving/serialization_lib_test.py::SerializationLibTest::"
                "test_lambda_fn",
                "keras/src/saving/serialization_lib_test.py::SerializationLibTest::"
                "test_safe_mode_scope",
                "keras/src/saving/saving_lib_test.py::SavingAPITest::test_safe_mode")),
    Difference("`fit` on a generator refuses a batch whose inputs and targets have different "
               "numbers of samples (it pads partial batches by rows, so a model without a batch "
               "axis cannot be trained by `fit`); Keras's generator adapter passes such a batch "
               "through.",
               ("keras/src/layers/preprocessing/mel_spectrogram_test.py::MelSpectrogramTest::"
                "test_mel_spectrogram_basics",)),
    Difference("A save that fails leaves no file behind: kgraph writes to a temporary file that "
               "is renamed into place once complete; Keras leaves a `.keras` file without its "
               "weights.",
               tuple(f"keras/src/saving/saving_lib_test.py::SavingTest::"
                     f"test_save_model_exception_raised_{memory}_memory_config"
                     for memory in ("high", "low"))),
    Difference("Saving to a legacy `.h5` file warns through Python's `warnings` (a `UserWarning` "
               "with Keras's text); Keras logs it through absl's logging.",
               ("keras/src/saving/saving_api_test.py::SaveModelTests::test_save_h5_format",)),
    Difference("kgraph works out an op's output on KerasTensors by the op's own shape rules, "
               "so a symbolic call on shapes the op cannot compute with raises when the graph "
               "is built (`psnr` of `(1, 2, 3)` and `(5, 6, 7)`, `polar` of `(1, 2)` and "
               "`(3, 4)`, attention with 8 query heads over 6 key/value heads, "
               "`layer_normalization` with a `gamma` of `(2, 16)` for inputs `(2, 8, 16)`, "
               "`ctc_loss` with a rank-2 `output`, `einsum(\"ii\", ...)` of a `(2, 3)` tensor); "
               "Keras's symbolic ops return an output spec without checking those shapes, and "
               "the same call fails only when run.",
               (*(f"{_NN}NNOps{kind}ShapeTest::test_{name}"
                  for kind, names in (("Dynamic", ("psnr", "dot_product_attention",
                                                   "layer_normalization")),
                                      ("Static", ("psnr", "polar", "dot_product_attention",
                                                  "layer_normalization", "ctc_loss")))
                  for name in names),
                f"{_NUMPY}NumpyTwoInputOpsStaticShapeTest::test_einsum")),
    Difference("kgraph's tensors are dense JAX arrays: `sparse=True` (`KerasTensor`, "
               "`convert_to_tensor`, `one_hot`, `multi_hot`) and `ragged=True` are refused with "
               "a ValueError, so no op gives a sparse result; Keras on JAX has sparse "
               "KerasTensors, whose values are `jax.experimental.sparse` BCOO arrays.",
               (f"{_NN}NNOpsDynamicShapeTest::test_one_hot",
                f"{_NN}NNOpsDynamicShapeTest::test_multi_hot",
                f"{_NN}NNOpsStaticShapeTest::test_one_hot",
                "keras/src/ops/core_test.py::CoreOpsStaticShapeTest::test_convert_to_tensor",
                f"{_NUMPY}NumpyOneInputOpsDynamicShapeTest::test_concatenate_sparse",
                f"{_NUMPY}NumpyTwoInputOpsStaticShapeTest::test_matmul_sparse")),
    Difference("`ops.ndim` of a KerasTensor, and `ops.size` of one whose shape is known, are "
               "Python ints (known when the graph is built, as `ops.shape`'s tuple); Keras's are "
               "KerasTensors, and the one of `ndim` has shape `(rank,)`, not that of the scalar "
               "it computes.",
               (f"{_NUMPY}NumpyOneInputOpsDynamicShapeTest::test_ndim",
                f"{_NUMPY}NumpyOneInputOpsStaticShapeTest::test_ndim",
                f"{_NUMPY}NumpyOneInputOpsStaticShapeTest::test_size")),
    Difference("`ops.where(condition)` on a KerasTensor gives what it computes, a tuple of index "
               "tensors of unknown length, one per axis (as `ops.nonzero`); Keras's gives one "
               "tensor of the condition's shape.",
               (f"{_NUMPY}NumpyTwoInputOpsDynamicShapeTest::test_where",
                f"{_NUMPY}NumpyTwoInputOpsStaticShapeTest::test_where")),
    Difference("On KerasTensors, `ops.corrcoef` of an `(n, m)` tensor gives `(n, n)`, "
               "`ops.slogdet` gives a sign of the batch's shape, and `ops.searchsorted` on a "
               "sequence of unknown length gives int32 indices: the shapes and dtypes of the "
               "values they compute on JAX; Keras's symbolic results say `(n, m)`, `()` and "
               "int64.",
               (f"{_NUMPY}NumpyOneInputOpsDynamicShapeTest::test_corrcoef",
                f"{_NUMPY}NumpyOneInputOpsCorrectnessTest::test_slogdet",
                f"{_NUMPY}NumpyTwoInputOpsDynamicShapeTest::test_searchsorted")),
    Difference("`ops.concatenate(xs, axis=None)` on KerasTensors joins the flattened inputs, as "
               "it does on arrays; Keras's symbolic call raises a ValueError.",
               (f"{_NUMPY}NumpyOneInputOpsDynamicShapeTest::test_concatenate",
                f"{_NUMPY}NumpyOneInputOpsStaticShapeTest::test_concatenate")),
    Difference("Arguments that fix an array's shape (`ops.reshape`'s `newshape`, "
               "`ops.image.gaussian_blur`'s `kernel_size`) must be Python values: JAX compiles "
               "only shapes known when it traces; Keras's symbolic calls take KerasTensors there "
               "and record a node that does not even take them as inputs, so its graph cannot "
               "run.",
               (f"{_NUMPY}NumpyOneInputOpsCorrectnessTest::test_reshape_symbolic_tensor_shape",
                "keras/src/ops/image_test.py::ImageOpsStaticShapeTest::test_gaussian_blur")),
]

FAILING_UNDER_KERAS: dict[str, str] = {
    "keras/src/saving/saving_lib_test.py::SavingBattleTest::"
    "test_legacy_load_skips_missing_nested_containers":
        "asserts that a file Keras's wheel does not ship exists (its fixture "
        "saving/test_data/pre_pr22362_nested_container.keras)",
}


def expected(cases) -> dict[str, str]:
    """Of ``cases`` (ids), those listed, with their reason."""
    listed = {case: d.why for d in DIFFERENCES for case in d.cases}
    listed.update(OPEN_DEFECTS)
    listed.update(FAILING_UNDER_KERAS)
    return {case: listed[case] for case in cases if case in listed}
