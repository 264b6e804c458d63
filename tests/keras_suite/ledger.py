"""The one list of Keras's test cases that cannot apply to kgraph, each with its reason.

A case is listed only for one of three reasons: it tests another backend (TensorFlow,
PyTorch, NumPy, OpenVINO), it needs TensorFlow itself (a layer run inside a ``tf.data``
pipeline's graph, TensorFlow tensors), or it tests a Keras internal that has no meaning in
kgraph (a private helper of Keras's implementation). Patterns are ``fnmatch`` patterns over
the case's id, ``keras/src/<folder>/<file>_test.py::<Class>::<test>``. A case that fails
because kgraph differs from Keras does not belong here: it is a defect to fix, or a known
difference listed in the README.
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
