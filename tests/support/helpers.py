"""Helpers shared by the test files: tree comparisons, mask-making layers, a small
classifier and its data, a stand-in fit loop for callbacks, and the Graphviz skip."""

from __future__ import annotations

import shutil

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import kgraph as kg
from kgraph.callbacks import CallbackList
from runtime.trainer import TrainState

needs_dot = pytest.mark.skipif(
    shutil.which("dot") is None,
    reason="needs the Graphviz `dot` program (apt-get install graphviz; .ci/run installs it)")


# ---------------------------------------------------------------------------- test data
def read_only(array):
    """``array`` made read-only: data shared by a module's tests cannot be changed by one."""
    array = np.asarray(array)
    array.setflags(write=False)
    return array


def fixed_normal(seed, *shape):
    """Standard normal float32 data of ``shape`` from its own generator (``seed``), read-only.

    For constants that a module's parametrized cases close over; tests draw their other data
    from the ``rng`` fixture."""
    return read_only(np.random.default_rng(seed).normal(size=shape).astype(np.float32))


# ------------------------------------------------------------------------------ pytrees
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
        if getattr(node.layer, "is_input_layer", False) or id(node) in needed:
            continue
        needed[id(node)] = node
        stack.extend(node._keras_inputs)
    assert set(position) == set(needed), "order does not hold exactly the needed nodes"
    for node in nodes:
        for tensor in node._keras_inputs:
            history = tensor._keras_history
            parent = history.layer._inbound_nodes[history.node_index]
            if not getattr(parent.layer, "is_input_layer", False):
                assert position[id(parent)] < position[id(node)], (
                    f"{node} runs before its parent {parent}")


# ------------------------------------------------------------------------------- masks
class MakeMask(kg.Layer):
    """Passes its input through and masks the steps whose first feature is zero
    (as ``Masking(0.0)`` would for one-feature steps)."""

    def call(self, inputs):
        return inputs

    def compute_mask(self, inputs, mask=None):
        return inputs[..., 0] != 0


class MaskedSum(kg.Layer):
    """Sums over time, counting only unmasked steps (no mask: every step)."""

    def call(self, inputs, mask=None):
        if mask is None:
            return inputs.sum(axis=1)
        return (inputs * mask[..., None].astype(inputs.dtype)).sum(axis=1)


class MaskedMean(kg.Layer):
    """Means over time, counting only unmasked steps (GlobalAveragePooling1D's masked mean)."""

    def call(self, inputs, mask=None):
        if mask is None:  # shape inference runs without masks
            return inputs.mean(axis=1)
        weights = mask[..., None].astype(inputs.dtype)
        return (inputs * weights).sum(axis=1) / weights.sum(axis=1)


# ------------------------------------------------------------------ a small classifier
def classifier(dropout=0.0, batchnorm=False):
    """6 features -> Dense(16, relu) [-> BatchNorm] [-> Dropout] -> 3 logits."""
    x = kg.Input(shape=(6,), name="x")
    h = kg.layers.Dense(16, activation="relu", name="hidden")(x)
    if batchnorm:
        h = kg.layers.BatchNormalization(name="bn")(h)
    if dropout:
        h = kg.layers.Dropout(dropout, name="drop")(h)
    return kg.Model(x, kg.layers.Dense(3, name="out")(h))


def classification_data(n=32, seed=0):
    """``(x, y)``: ``n`` rows of 6 normal features and labels in 0..2, fixed by ``seed``."""
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, 6)).astype(np.float32), rng.integers(0, 3, n).astype(np.int32)


# ------------------------------------------------------------ a stand-in fit loop
STEPS = 3  # batches per epoch in drive_fit


class FakeLoop:
    """The loop interface callbacks see: train_state, learning_rate, stop_training, ..."""

    def __init__(self, learning_rate=0.1, injectable=True):
        params = {"dense": {"kernel": jnp.zeros((2, 2)), "bias": jnp.zeros((2,))}}
        state = {"norm": {"moving_mean": jnp.zeros((2,))}}
        self.train_state = TrainState(params, state, None, jnp.zeros((), jnp.int32),
                                      jax.random.PRNGKey(0))
        self._learning_rate = learning_rate
        self._injectable = injectable
        self.stop_training = False
        self.epoch = 0
        self.global_step = 0

    @property
    def learning_rate(self):
        if not self._injectable:
            raise ValueError("The optimizer has no injectable learning rate; build it with "
                             "optax.inject_hyperparams(optax.adam)(learning_rate=1e-3).")
        return self._learning_rate

    @learning_rate.setter
    def learning_rate(self, value):
        _ = self.learning_rate
        self._learning_rate = float(value)

    def step(self):
        """One 'train step': every weight + 1; the old buffers are deleted (donated)."""
        old = self.train_state
        new = jax.tree_util.tree_map(lambda a: a + 1, (old.params, old.state))
        jax.tree_util.tree_map(lambda a: a.delete(), (old.params, old.state))
        self.train_state = old._replace(params=new[0], state=new[1], step=old.step + 1)
        self.global_step += 1


def drive_fit(callbacks, loop, epoch_logs, batch_losses=None, model=None):
    """Run the hooks as the fit loop does; returns the number of epochs run.

    ``epoch_logs[e]`` are epoch e's logs; ``batch_losses[e][b]`` the loss of batch b.
    """
    cbs = CallbackList(callbacks, model=model, loop=loop, verbose=0,
                       epochs=len(epoch_logs), steps=STEPS)
    batch_hooks = cbs.needs_batch_hooks("train")
    cbs.on_train_begin()
    epochs_run = 0
    for epoch, logs in enumerate(epoch_logs):
        loop.epoch = epoch
        cbs.on_epoch_begin(epoch)
        for batch in range(STEPS):
            if batch_hooks:
                cbs.on_train_batch_begin(batch)
            loop.step()
            if batch_hooks:
                loss = batch_losses[epoch][batch] if batch_losses else 0.5
                cbs.on_train_batch_end(batch, {"loss": jnp.asarray(loss, jnp.float32)})
        cbs.on_epoch_end(epoch, logs)
        epochs_run += 1
        if loop.stop_training or (model is not None and model.stop_training):
            break
    cbs.on_train_end()
    return epochs_run


class ResidualBlock(kg.layers.Layer):
    """Dense, Dropout, an activity loss and BatchNormalization, with a residual: a block
    that repeated blocks (``compiler.scan_blocks``) are tested with."""

    def __init__(self, units=16, flip=False, **kwargs):
        super().__init__(**kwargs)
        self.units, self.flip = units, flip  # ``flip`` is deliberately not in the config
        self.up = kg.layers.Dense(units * 2, activation="relu", activity_regularizer="l2")
        self.drop = kg.layers.Dropout(0.3)
        self.down = kg.layers.Dense(units)
        self.norm = kg.layers.BatchNormalization()

    def call(self, x, training=None):
        h = self.down(self.drop(self.up(x), training=training))
        return self.norm(x - h if self.flip else x + h, training=training)

    def get_config(self):
        return {**super().get_config(), "units": self.units}


def close_relative(a, b, tolerance):
    """Assert max|a - b| <= tolerance * max(max|b|, 1), leaf by leaf."""
    for x, y in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)):
        scale = max(float(jnp.max(jnp.abs(y))), 1.0)
        assert float(jnp.max(jnp.abs(x - y))) <= tolerance * scale


def assert_keyed_in_a_program(model, images):
    """A random layer's training outputs in ``model``'s compiled program: the same for the
    same key, different for another (its draws come from the program's key)."""
    import compiler

    program = compiler.compile(model)
    params, state = program.init(jax.random.PRNGKey(0))
    run = jax.jit(lambda key: program.apply(params, state, images, training=True,
                                            key=key)[0])
    a, b = np.asarray(run(jax.random.PRNGKey(1))), np.asarray(run(jax.random.PRNGKey(2)))
    np.testing.assert_array_equal(a, np.asarray(run(jax.random.PRNGKey(1))))
    assert not np.allclose(a, b)
