"""A padded batch with a ``sample_mask`` gives its real rows what the unpadded batch gives.

The trainer pads the last partial batch of an epoch to the full batch size; padding rows
must change nothing: not the real rows' outputs, not BatchNormalization's moving
statistics, not the activity penalties.
"""

import jax
import jax.numpy as jnp
import numpy as np

import compiler
import kgraph as kg
from kgraph import layers
from kgraph.interpreter import context

REAL, PADDED = 5, 8


def padded(rng, x):
    """``x`` with PADDED - REAL rows of large junk appended, and the sample mask."""
    junk = 100.0 * rng.normal(size=(PADDED - REAL, *x.shape[1:])).astype(x.dtype)
    mask = jnp.asarray([1.0] * REAL + [0.0] * (PADDED - REAL))
    return np.concatenate([x, junk]), mask


def assert_tree_close(a, b, atol=1e-6):
    leaves_a, leaves_b = jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)
    assert len(leaves_a) == len(leaves_b)
    for x, y in zip(leaves_a, leaves_b):
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=1e-6, atol=atol)


def dense_bn_model():
    x = kg.Input(shape=(3,))
    h = layers.Dense(4, activity_regularizer="l2", name="dense")(x)
    h = layers.BatchNormalization(momentum=0.5, name="bn")(h)
    h = layers.ActivityRegularization(l1=0.1, name="act_reg")(h)
    return kg.Model(x, layers.Dense(2, activity_regularizer="l1", name="out")(h))


def test_padded_batch_matches_unpadded_through_apply(rng):
    program = compiler.compile(dense_bn_model())
    params, state = program.init(jax.random.PRNGKey(0))
    x = rng.normal(size=(REAL, 3)).astype(np.float32)
    x_pad, mask = padded(rng, x)
    out, new_state, loss = program.apply(params, state, x, training=True, return_losses=True)
    out_pad, new_state_pad, loss_pad = jax.jit(
        lambda p, s, xs, m: program.apply(p, s, xs, training=True, return_losses=True,
                                          sample_mask=m))(params, state, x_pad, mask)
    assert_tree_close(out_pad[:REAL], out)
    assert_tree_close(new_state_pad, new_state)
    assert_tree_close(loss_pad, loss)
    assert float(loss) > 0
    # Without the mask the junk rows do change the statistics.
    _, unmasked_state = program.apply(params, state, x_pad, training=True)
    assert not np.allclose(unmasked_state["bn"]["moving_mean"], new_state["bn"]["moving_mean"])


def run_eager(model, x, sample_mask=None):
    """An eager training run in a context like ``program.apply`` sets up."""
    ctx = context.CallContext(training=True, key=jax.random.PRNGKey(0),
                              collect_assignments=True, sample_mask=sample_mask)
    with ctx:
        out = model(x)
    return out, dict(ctx.weights.assignments), sum(jnp.sum(v) for v in ctx.losses)


def test_padded_batch_matches_unpadded_in_an_eager_context(rng):
    model = dense_bn_model()
    x = rng.normal(size=(REAL, 3)).astype(np.float32)
    x_pad, mask = padded(rng, x)
    out, updates, loss = run_eager(model, x)
    out_pad, updates_pad, loss_pad = run_eager(model, x_pad, mask)
    assert_tree_close(out_pad[:REAL], out)
    assert sorted(updates) == sorted(updates_pad) and len(updates) == 2
    assert_tree_close([updates_pad[k] for k in sorted(updates)],
                      [updates[k] for k in sorted(updates)])
    assert_tree_close(loss_pad, loss)


def test_sample_mask_combines_with_the_keras_mask_in_batch_normalization():
    tokens = kg.Input(shape=(4,), dtype="int32")
    h = layers.Embedding(10, 3, mask_zero=True, name="emb")(tokens)
    model = kg.Model(tokens, layers.BatchNormalization(name="bn")(h))
    x = np.array([[1, 2, 0, 0], [3, 4, 5, 0], [6, 0, 0, 0], [7, 8, 9, 1], [2, 2, 0, 0]],
                 np.int32)
    x_pad = np.concatenate([x, np.array([[9, 9, 9, 9]] * (PADDED - REAL), np.int32)])
    mask = jnp.asarray([1.0] * REAL + [0.0] * (PADDED - REAL))
    out, updates, _ = run_eager(model, x)
    out_pad, updates_pad, _ = run_eager(model, x_pad, mask)
    assert_tree_close(out_pad[:REAL], out)
    assert_tree_close([updates_pad[k] for k in sorted(updates)],
                      [updates[k] for k in sorted(updates)])


def test_time_distributed_inner_layer_sees_the_sample_mask_per_time_step(rng):
    x_in = kg.Input(shape=(3, 2))
    model = kg.Model(x_in, layers.TimeDistributed(
        layers.BatchNormalization(name="bn"), name="td")(x_in))
    x = rng.normal(size=(REAL, 3, 2)).astype(np.float32)
    x_pad, mask = padded(rng, x)
    out, updates, _ = run_eager(model, x)
    out_pad, updates_pad, _ = run_eager(model, x_pad, mask)
    assert_tree_close(out_pad[:REAL], out)
    assert_tree_close([updates_pad[k] for k in sorted(updates)],
                      [updates[k] for k in sorted(updates)])


class PerSampleLoss(kg.Layer):
    """Adds each sample's squared norm as a per-sample loss vector."""

    def call(self, inputs):
        self.add_loss(jnp.sum(jnp.square(inputs), axis=-1))
        return inputs


def test_per_sample_add_loss_ignores_padding_rows(rng):
    x_in = kg.Input(shape=(3,))
    model = kg.Model(x_in, PerSampleLoss()(x_in))
    x = rng.normal(size=(REAL, 3)).astype(np.float32)
    x_pad, mask = padded(rng, x)
    _, _, loss = run_eager(model, x)
    _, _, loss_pad = run_eager(model, x_pad, mask)
    np.testing.assert_allclose(loss_pad, loss, rtol=1e-6)
    np.testing.assert_allclose(loss, np.sum(np.square(x)), rtol=1e-5)


def test_sample_mask_for_applies_only_to_arrays_with_the_batch_axis():
    assert context.sample_mask_for(jnp.zeros((3, 2))) is None  # no context
    ctx = context.CallContext(sample_mask=jnp.array([1.0, 0.0, 1.0]))
    with ctx:
        np.testing.assert_array_equal(context.sample_mask_for(jnp.zeros((3, 2))), [1, 0, 1])
        assert context.sample_mask_for(jnp.zeros((4, 3))) is None
        assert context.sample_mask_for(jnp.zeros(())) is None
        with context.sample_mask_scope(jnp.ones(4)):
            assert context.sample_mask_for(jnp.zeros((4, 3))) is not None
        assert ctx.options.sample_mask.shape == (3,)
