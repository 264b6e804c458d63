"""Shared fixtures: predictable auto names, a PRNG key, and tree comparison helpers."""

from __future__ import annotations

import jax
import numpy as np
import pytest

import kgraph as kg


@pytest.fixture(autouse=True)
def _fresh_names_and_seed():
    """Every test starts with ``dense``, ``dense_1``, ... and the same eager random stream."""
    kg.reset_names()
    kg.random.set_seed(0)
    yield


@pytest.fixture
def key():
    return jax.random.PRNGKey(0)


def tree_allclose(a, b, rtol=1e-6, atol=1e-6) -> bool:
    """Same pytree structure and every leaf ``allclose`` (shapes must match exactly)."""
    leaves_a, tree_a = jax.tree_util.tree_flatten(a)
    leaves_b, tree_b = jax.tree_util.tree_flatten(b)
    if tree_a != tree_b:
        return False
    for x, y in zip(leaves_a, leaves_b):
        x, y = np.asarray(x), np.asarray(y)
        if x.shape != y.shape or not np.allclose(x, y, rtol=rtol, atol=atol):
            return False
    return True


def tree_equal(a, b) -> bool:
    """Same structure and bitwise-equal leaves."""
    leaves_a, tree_a = jax.tree_util.tree_flatten(a)
    leaves_b, tree_b = jax.tree_util.tree_flatten(b)
    return tree_a == tree_b and all(
        np.asarray(x).shape == np.asarray(y).shape and np.array_equal(x, y)
        for x, y in zip(leaves_a, leaves_b))


def assert_topological(nodes, outputs) -> None:
    """``nodes`` holds each node needed for ``outputs`` exactly once, parents first.

    Reachability is recomputed here independently (seed 004's ``fetch_nodes`` walk, made
    iterative) so the check does not trust the code under test.
    """
    position = {}
    for i, node in enumerate(nodes):
        assert id(node) not in position, f"{node} appears twice in the order"
        position[id(node)] = i
    needed, stack = {}, list(outputs)
    while stack:
        tensor = stack.pop()
        history = tensor._keras_history
        node = history.layer._inbound_nodes[history.node_index]
        if node.is_input or id(node) in needed:
            continue
        needed[id(node)] = node
        stack.extend(node._keras_inputs)
    assert set(position) == set(needed), "order does not hold exactly the needed nodes"
    for node in nodes:
        for tensor in node._keras_inputs:
            history = tensor._keras_history
            parent = history.layer._inbound_nodes[history.node_index]
            if not parent.is_input:
                assert position[id(parent)] < position[id(node)], (
                    f"{node} runs before its parent {parent}")


@pytest.fixture(scope="session", name="tree_allclose")
def _tree_allclose_fixture():
    return tree_allclose


@pytest.fixture(scope="session", name="tree_equal")
def _tree_equal_fixture():
    return tree_equal


@pytest.fixture(scope="session", name="assert_topological")
def _assert_topological_fixture():
    return assert_topological
