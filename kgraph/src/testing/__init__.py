"""``keras.src.testing``: Keras's ``TestCase`` contract on kgraph (the assertions Keras's own
test files use, ``run_layer_test`` and ``run_class_serialization_test`` included) and
``test_utils``, so that test files written for Keras run against kgraph unchanged.

Needs ``absl-py`` (its ``parameterized.TestCase`` is the base, as in Keras).
"""

from kgraph.src.testing import test_utils
from kgraph.src.testing.test_case import (TestCase, jax_uses_gpu, jax_uses_tpu,
                                          tensorflow_uses_gpu, tensorflow_uses_tpu,
                                          torch_uses_gpu, uses_gpu, uses_tpu)

__all__ = ["TestCase", "jax_uses_gpu", "jax_uses_tpu", "tensorflow_uses_gpu",
           "tensorflow_uses_tpu", "test_utils", "torch_uses_gpu", "uses_gpu", "uses_tpu"]
