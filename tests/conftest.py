"""Shared fixtures: predictable auto names, a PRNG key, a seeded generator, and the tree
comparison helpers of ``tests/support/helpers.py`` as fixtures."""

from __future__ import annotations

import os
import shutil
import tempfile

# The suite compiles without XLA:CPU's backend optimisations (tests/support/xla_flags.py; kgraph's
# own one-off init functions then follow this level). Set before JAX starts; subprocesses
# inherit it.
from tests.support.xla_flags import with_fast_compile  # noqa: E402

os.environ["XLA_FLAGS"] = with_fast_compile(os.environ.get("XLA_FLAGS", ""))

# Keras (the oracle many tests compare with) runs on JAX, set once here for every test module.
os.environ.setdefault("KERAS_BACKEND", "jax")
# The test extra installs libtpu (runtime.planning compiles for TPU topologies with it): JAX
# would otherwise look for TPU chips in every process, and its processes would contend for
# libtpu's lock. The suite runs on the CPU; subprocesses inherit it.
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import kgraph as kg  # noqa: E402
from tests.support.helpers import assert_topological, tree_allclose, tree_equal  # noqa: E402

# One XLA compilation cache for the run, shared by its workers (made by the process that
# starts them, which they inherit it from, and removed when it ends): a program compiled
# again (after a module's caches are dropped, or in the other worker) is read back instead.
# It holds only this run's programs, so no test depends on an earlier run.
_CACHE_VARIABLE = "KGRAPH_TEST_COMPILE_CACHE"
_OWN_CACHE = None
if _CACHE_VARIABLE not in os.environ:
    _OWN_CACHE = tempfile.mkdtemp(prefix="kgraph-test-xla-cache-")
    os.environ[_CACHE_VARIABLE] = _OWN_CACHE
jax.config.update("jax_compilation_cache_dir", os.environ[_CACHE_VARIABLE])
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)  # every entry


def pytest_unconfigure(config):
    if _OWN_CACHE is not None:
        shutil.rmtree(_OWN_CACHE, ignore_errors=True)


@pytest.fixture(autouse=True)
def _fresh_names_and_seed():
    """Every test starts with ``dense``, ``dense_1``, ... and the same eager random stream."""
    kg.reset_names()
    kg.random.set_seed(0)
    yield


@pytest.fixture(autouse=True, scope="module")
def _release_compiled_programs():
    """After each module, drop JAX's caches of traced and compiled functions: a worker that
    keeps every program of the thousands of tests before slows down as it ages (late tests
    ran up to 10x slower than alone); recompiling the few shared ones costs less."""
    yield
    jax.clear_caches()


@pytest.fixture
def key():
    return jax.random.PRNGKey(0)


@pytest.fixture
def rng():
    """A numpy generator seeded afresh for each test: its data does not depend on test order."""
    return np.random.default_rng(0)


@pytest.fixture(scope="session", name="tree_allclose")
def _tree_allclose_fixture():
    return tree_allclose


@pytest.fixture(scope="session", name="tree_equal")
def _tree_equal_fixture():
    return tree_equal


@pytest.fixture(scope="session", name="assert_topological")
def _assert_topological_fixture():
    return assert_topological


def pytest_addoption(parser):
    parser.addoption("--scan-models", type=int, default=None,
                     help="how many random models tests/interpreter/test_scan_property.py "
                          "checks (default: its MODELS)")
    parser.addoption("--differential-scripts", type=int, default=None,
                     help="how many generated training scripts tests/keras_compat/test_keras_differential.py "
                          "runs under Keras and kgraph (default: its SCRIPTS)")
