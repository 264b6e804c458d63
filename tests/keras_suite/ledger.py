"""The one list of Keras's test cases that cannot apply to kgraph, each with its reason.

A case is listed only for one of three reasons: it tests another backend (TensorFlow,
PyTorch, NumPy, OpenVINO), it needs TensorFlow itself (a layer run inside a ``tf.data``
pipeline's graph, TensorFlow tensors), or it tests a Keras internal that has no meaning in
kgraph (a private helper of Keras's implementation). Patterns are ``fnmatch`` patterns over
the case's id, ``keras/src/<folder>/<file>_test.py::<Class>::<test>``. A case that fails
because kgraph differs from Keras does not belong here: it is a defect to fix, or a known
difference listed in docs/known-differences.md.
"""

from __future__ import annotations

import dataclasses
import fnmatch

__all__ = ["KINDS", "LEDGER", "Entry", "entry_for", "lists_file"]

OTHER_BACKEND = "another backend"
TENSORFLOW = "TensorFlow itself"
INTERNAL = "a Keras internal"
KINDS = (OTHER_BACKEND, TENSORFLOW, INTERNAL)


@dataclasses.dataclass(frozen=True)
class Entry:
    pattern: str
    kind: str
    reason: str

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"ledger entry {self.pattern!r}: kind must be one of {KINDS}")


LEDGER: list[Entry] = [
    # --- trainers: Keras's data adapters
    *[Entry(f"keras/src/trainers/data_adapters/{name}_test.py::*", INTERNAL,
            f"tests Keras's `{cls}` class, the private machinery Keras's fit reads data "
            "through (its batches, shapes and specs per backend); kgraph's fit reads data "
            "through its own pipeline (`runtime.data`), tested against Keras's fit in "
            "kgraph's suite")
      for name, cls in (("array_data_adapter", "ArrayDataAdapter"),
                        ("generator_data_adapter", "GeneratorDataAdapter"),
                        ("grain_dataset_adapter", "GrainDatasetAdapter"),
                        ("py_dataset_adapter", "PyDatasetAdapter"),
                        ("tf_dataset_adapter", "TFDatasetAdapter"))],
    Entry("keras/src/trainers/data_adapters/torch_data_loader_adapter_test.py::*",
          OTHER_BACKEND, "tests Keras's adapter of PyTorch's DataLoader (PyTorch's tensors)"),
    # --- image preprocessing / augmentation layers (layers/preprocessing/image_preprocessing)
    Entry("keras/src/layers/preprocessing/image_preprocessing/*_test.py::*"
          "::test_tf_data_compatibility", TENSORFLOW,
          "maps the layer over a tf.data pipeline: the layer runs on TensorFlow's symbolic "
          "tensors inside the pipeline's graph (Keras switches its DataLayer to its "
          "TensorFlow backend there); kgraph's layers compute on JAX arrays"),
    Entry("keras/src/layers/preprocessing/image_preprocessing/*_test.py::*"
          "::test_*tf_data_bounding_boxes*", TENSORFLOW,
          "maps the layer (or its transform_bounding_boxes) over a tf.data pipeline: it runs "
          "on TensorFlow's symbolic tensors inside the pipeline's graph"),
    Entry("keras/src/layers/preprocessing/image_preprocessing/max_num_bounding_box_test.py::"
          "MaxNumBoundingBoxesTest::test_output_shapes_with_tf_data", TENSORFLOW,
          "maps the layer over a tf.data pipeline: it runs on TensorFlow's symbolic tensors "
          "inside the pipeline's graph"),
    Entry("keras/src/layers/preprocessing/image_preprocessing/rand_augment_test.py::"
          "RandAugmentTest::test_graph_issue", TENSORFLOW,
          "maps get_random_transformation over a tf.data pipeline: it runs on TensorFlow's "
          "symbolic tensors inside the pipeline's graph"),
    Entry("keras/src/layers/preprocessing/image_preprocessing/random_flip_test.py::"
          "RandomFlipTest::test_random_flip_[hv]*al", INTERNAL,
          "mocks `layer.backend.random.uniform`: `backend` is the DynamicBackend of Keras's "
          "DataLayer (the backend a layer switches to inside a tf.data pipeline), through "
          "which Keras's RandomFlip draws; kgraph's layers always compute with JAX and draw "
          "from their keys, with no backend object to patch"),
    # --- non-image preprocessing layers (layers/preprocessing/*_test.py)
    *[Entry(f"keras/src/layers/preprocessing/{name}_test.py::*::test_tf_data_compatibility",
            TENSORFLOW,
            "maps the layer over a tf.data pipeline: it is called on TensorFlow's symbolic "
            "tensors inside the pipeline's graph (Keras's preprocessing layers switch to their "
            "TensorFlow implementation there); kgraph's layers compute on JAX arrays and "
            "host NumPy values")
      for name in ("category_encoding", "data_layer", "discretization", "hashed_crossing",
                   "hashing", "integer_lookup", "mel_spectrogram", "normalization", "pipeline",
                   "rescaling", "string_lookup", "text_vectorization")],
    Entry("keras/src/layers/preprocessing/text_vectorization_test.py::TextVectorizationTest"
          "::test_static_output_sequence_length_*", TENSORFLOW,
          "calls the layer on TensorFlow's symbolic tensors inside a tf.data map function and "
          "reads the graph tensor's static shape"),
    Entry("keras/src/layers/preprocessing/hashed_crossing_test.py::HashedCrossingTest"
          "::test_static_shape_preserved", TENSORFLOW,
          "calls the layer on TensorFlow's symbolic tensors inside a tf.data map function and "
          "reads the graph tensor's static shape"),
    Entry("keras/src/layers/preprocessing/feature_space_test.py::FeatureSpaceTest"
          "::test_tf_data_async_processing", TENSORFLOW,
          "maps the FeatureSpace over a tf.data pipeline: its layers run on TensorFlow's "
          "symbolic tensors inside the pipeline's graph"),
    Entry("keras/src/layers/preprocessing/index_lookup_test.py::IndexLookupLayerTest"
          "::test_invert", TENSORFLOW,
          "reads the output with .numpy() and decodes bytes: Keras's IndexLookup returns "
          "TensorFlow string tensors on every backend; kgraph's inverted lookup returns a "
          "NumPy array of str"),
    Entry("keras/src/layers/preprocessing/index_lookup_test.py::IndexLookupLayerTest"
          "::test_save_and_load_assets_string_vocab", TENSORFLOW,
          "reads the output with .numpy(): Keras's IndexLookup returns TensorFlow tensors on "
          "every backend; kgraph's returns JAX arrays (its save_assets / load_assets are "
          "covered by the other asset cases)"),
    Entry("keras/src/layers/rnn/bidirectional_test.py::SimpleRNNTest::"
          "test_fused_*_eligibility", INTERNAL,
          "tests `_can_attempt_fused_lstm` / `_can_attempt_fused_gru`, the private checks "
          "by which Keras's Bidirectional chooses its fused cuDNN kernels; kgraph has no such "
          "kernels (both directions are one XLA program on every device)"),
    # callbacks, initializers, constraints, regularizers, activations
    Entry("keras/src/callbacks/orbax_checkpoint_test.py::OrbaxCheckpointTest::"
          "test_checkpoint_with_assets*", TENSORFLOW,
          "a model whose graph takes strings (Input(dtype='string') into StringLookup): "
          "string tensors are TensorFlow's (Keras's lookups run TensorFlow ops on every "
          "backend); JAX has no string arrays, and kgraph looks strings up on the host "
          "before its programs"),
    Entry("keras/src/callbacks/tensorboard_test.py::TestTensorBoardV2::test_custom_summary",
          TENSORFLOW,
          "a layer writing TensorFlow summaries (tf.summary.write) in its call, into the "
          "writer the callback makes TensorFlow's default during the steps: TensorFlow's "
          "summary API inside the model"),
    Entry("keras/src/ops/nn_test.py::NNOpsDtypeTest::test_*_shrink_*", OTHER_BACKEND,
          "computes its expected values with PyTorch (it imports `torch`, which is not "
          "installed); the dtypes kgraph's shrink ops keep are checked against Keras on JAX in "
          "kgraph's suite"),
    Entry("keras/src/ops/nn_test.py::NNOpsDtypeTest::test_threshold_*", OTHER_BACKEND,
          "computes its expected values with PyTorch (it imports `torch`, which is not "
          "installed); the dtypes kgraph's threshold op keeps are checked against Keras on JAX "
          "in kgraph's suite"),
    Entry("keras/src/layers/preprocessing/hashing_test.py::HashingTest::"
          "test_*_output_dtype_*", TENSORFLOW,
          "calls the layer on a symbolic `Input(dtype='string')`: string tensors are "
          "TensorFlow's (Keras's string layers run TensorFlow ops on every backend); JAX has no "
          "string arrays, and kgraph runs its string layers on host NumPy strings before its "
          "programs"),
    Entry("keras/src/layers/preprocessing/string_lookup_test.py::StringLookupTest::"
          "test_one_hot_symbolic_output_shape_nested_input", TENSORFLOW,
          "calls the layer on a symbolic `Input(dtype='string')`: string tensors are "
          "TensorFlow's (Keras's string layers run TensorFlow ops on every backend); JAX has no "
          "string arrays, and kgraph runs its string layers on host NumPy strings before its "
          "programs"),
    Entry("keras/src/trainers/trainer_test.py::TestTrainer::"
          "test_fit_with_data_adapter_torch_dataloader_*", OTHER_BACKEND,
          "fits on a PyTorch DataLoader (PyTorch's tensors and data loading); PyTorch is not "
          "installed with kgraph, which reads arrays, generators, PyDatasets, tf.data and "
          "Grain datasets"),
]


def lists_file(path: str) -> bool:
    """Whether the ledger lists every case of Keras's test file ``path`` (``<path>::*``)."""
    return any(entry.pattern == f"{path}::*" for entry in LEDGER)


def entry_for(nodeid: str) -> Entry | None:
    """The ledger entry that lists case ``nodeid``, if any."""
    for entry in LEDGER:
        if fnmatch.fnmatchcase(nodeid, entry.pattern):
            return entry
    return None
