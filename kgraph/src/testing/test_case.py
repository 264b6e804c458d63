"""``keras.src.testing.TestCase`` on kgraph: Keras's assertions on arrays (tolerances as
Keras's), on dtypes and files, and its two generic conformance checks, a class's config and
serialization round trip (``run_class_serialization_test``) and a layer's whole contract
(``run_layer_test``, in ``kgraph.src.testing.layer_test``).

>>> import numpy as np
>>> case = TestCase()
>>> case.assertAllClose(np.ones(2), [1.0, 1.0 + 1e-7])
>>> case.assertDType(np.zeros(1, "int32"), "int32")
"""

from __future__ import annotations

import json
import pathlib
import shutil
import tempfile

import jax
import numpy as np
from absl.testing import parameterized

from kgraph import backend, config
from kgraph.base.variables import Variable
from kgraph.graph.keras_tensor import KerasTensor
from kgraph.ops import convert_to_numpy, is_tensor
from kgraph.saving import (custom_object_scope, deserialize_keras_object,
                           serialize_keras_object)
from kgraph.src.testing import layer_test

__all__ = ["TestCase", "jax_uses_gpu", "jax_uses_tpu", "tensorflow_uses_gpu",
           "tensorflow_uses_tpu", "to_json_with_tuples", "from_json_with_tuples",
           "torch_uses_gpu", "uses_gpu", "uses_tpu"]


def uses_gpu() -> bool:
    """Whether JAX computes on a GPU."""
    return jax.default_backend() == "gpu"


def uses_tpu() -> bool:
    """Whether JAX computes on a TPU."""
    return jax.default_backend() == "tpu"


jax_uses_gpu, jax_uses_tpu = uses_gpu, uses_tpu


def tensorflow_uses_gpu() -> bool:
    return False  # the backend is JAX


tensorflow_uses_tpu = torch_uses_gpu = tensorflow_uses_gpu


def to_json_with_tuples(value) -> str:
    """``value`` as sorted, indented JSON that keeps tuples apart from lists."""
    def mark(obj):
        if isinstance(obj, tuple):
            return {"__class__": "tuple", "__value__": [mark(e) for e in obj]}
        if isinstance(obj, list):
            return [mark(e) for e in obj]
        if isinstance(obj, dict):
            return {k: mark(v) for k, v in obj.items()}
        return obj
    return json.dumps(mark(value), sort_keys=True, indent=4)


def from_json_with_tuples(text: str):
    """The inverse of ``to_json_with_tuples``."""
    def unmark(obj):
        if set(obj) >= {"__class__", "__value__"}:
            return tuple(obj["__value__"])
        return obj
    return json.loads(text, object_hook=unmark)


class TestCase(parameterized.TestCase):
    """``unittest``'s ``TestCase`` with Keras's assertions; every test starts with a fresh
    session (automatic names count from 1 again)."""

    maxDiff = None

    def setUp(self):
        backend.clear_session(free_memory=False)
        if config.is_traceback_filtering_enabled():
            config.disable_traceback_filtering()

    def get_temp_dir(self) -> str:
        """A new folder, removed when the test ends."""
        folder = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, folder, ignore_errors=True)
        return folder

    def convert_to_numpy(self, x):
        if isinstance(x, np.ndarray):
            return x
        if is_tensor(x) or isinstance(x, Variable):
            return convert_to_numpy(x)
        return np.array(x)

    def assertAllClose(self, actual, desired, atol=1e-6, rtol=1e-6, tpu_atol=None,
                       tpu_rtol=None, msg=None):
        if uses_tpu():
            atol = atol if tpu_atol is None else tpu_atol
            rtol = rtol if tpu_rtol is None else tpu_rtol
        np.testing.assert_allclose(self.convert_to_numpy(actual), self.convert_to_numpy(desired),
                                   atol=atol, rtol=rtol, err_msg=msg or "")

    def assertNotAllClose(self, x1, x2, atol=1e-6, rtol=1e-6, msg=None):
        try:
            self.assertAllClose(x1, x2, atol=atol, rtol=rtol)
        except AssertionError:
            return
        raise AssertionError(f"The two values are close at all elements. \n{msg or ''}.\n"
                             f"Values: {x1}")

    def assertAlmostEqual(self, actual, desired, decimal=3, tpu_decimal=None, msg=None):
        if uses_tpu() and tpu_decimal is not None:
            decimal = tpu_decimal
        np.testing.assert_almost_equal(self.convert_to_numpy(actual),
                                       self.convert_to_numpy(desired), decimal=decimal,
                                       err_msg=msg or "")

    def assertAllEqual(self, actual, desired, msg=None):
        np.testing.assert_array_equal(self.convert_to_numpy(actual),
                                      self.convert_to_numpy(desired), err_msg=msg or "")

    def assertLen(self, iterable, expected_len, msg=None):
        self.assertEqual(len(iterable), expected_len, msg=msg)

    def assertSparse(self, x, sparse=True):
        if isinstance(x, KerasTensor):
            self.assertEqual(getattr(x, "sparse", False), sparse)
        else:
            from jax.experimental import sparse as jax_sparse
            self.assertEqual(isinstance(x, jax_sparse.JAXSparse), sparse)

    def assertRagged(self, x, ragged=True):
        if isinstance(x, KerasTensor):
            self.assertEqual(getattr(x, "ragged", False), ragged)
        else:
            self.assertFalse(ragged, "Backend jax does not support ragged tensors")

    def assertDType(self, x, dtype, msg=None):
        found = backend.standardize_dtype(x.dtype if hasattr(x, "dtype") else type(x))
        expected = backend.standardize_dtype(dtype)
        self.assertEqual(found, expected, msg=msg or (
            "The dtype of x does not match the expected one. "
            f"Received: x.dtype={found} and dtype={dtype}"))

    def assertFileExists(self, path):
        if not pathlib.Path(path).is_file():
            raise AssertionError(f"File {path} does not exist")

    def run_class_serialization_test(self, instance, custom_objects=None):
        """``get_config`` / ``from_config`` and ``serialize`` / ``deserialize`` round trips
        give the same config (as JSON, tuples kept) and an object with the same attributes."""
        cls = type(instance)
        # Keras's deserialization finds a class of its own modules (its test files' too, for
        # the object and the layers it holds, e.g. an RNN's cell) by importing the module
        # its config names; kgraph's imports nothing, so such classes are given by name,
        # as Keras would find them
        own = [type(obj) for obj in ([instance] + (instance._flatten_layers(False)
                                                   if hasattr(instance, "_flatten_layers")
                                                   else []))]
        found = {c.__name__: c for c in own if c.__module__.startswith("keras.")}
        if found:
            custom_objects = {**found, **(custom_objects or {})}
        config_json = to_json_with_tuples(instance.get_config())
        attributes = set(dir(instance)) - {"__annotations__"}
        with custom_object_scope(custom_objects):
            revived = cls.from_config(instance.get_config())
        self.assertEqual(config_json, to_json_with_tuples(revived.get_config()))
        self.assertEqual(attributes, set(dir(revived)) - {"__annotations__"})

        serialized = to_json_with_tuples(serialize_keras_object(instance))
        with custom_object_scope(custom_objects):
            revived = deserialize_keras_object(from_json_with_tuples(serialized))
        self.assertEqual(config_json, to_json_with_tuples(revived.get_config()))
        self.assertEqual(attributes, set(dir(revived)) - {"__annotations__"})
        return revived

    def run_layer_test(self, layer_cls, init_kwargs, **kwargs):
        """Keras's conformance test of a layer class (see ``layer_test.run_layer_test``)."""
        layer_test.run_layer_test(self, layer_cls, init_kwargs, **kwargs)
