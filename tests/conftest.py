"""Shared fixtures: predictable auto names, a PRNG key, a seeded generator, and the tree
comparison helpers of ``tests/helpers.py`` as fixtures."""

from __future__ import annotations

import jax
import numpy as np
import pytest

import kgraph as kg
from tests.helpers import assert_topological, tree_allclose, tree_equal


@pytest.fixture(autouse=True)
def _fresh_names_and_seed():
    """Every test starts with ``dense``, ``dense_1``, ... and the same eager random stream."""
    kg.reset_names()
    kg.random.set_seed(0)
    yield


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
