"""Recurrent layers, cells and wrappers: values against NumPy loops, masks, states, errors."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import compiler
import kgraph as kg
from kgraph import layers
from tests.support.helpers import fixed_normal, MakeMask, MaskedMean, read_only

X = fixed_normal(0, 2, 5, 3)
MASK = read_only(np.array([[1, 1, 0, 1, 0], [0, 1, 1, 1, 1]], bool))


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def np_rnn(step, x, states, mask=None, go_backwards=False, zero_output_for_mask=False):
    """Keras's time loop in NumPy: masked steps keep states and repeat the last output."""
    x = np.asarray(x, np.float64)
    order = range(x.shape[1])[::-1] if go_backwards else range(x.shape[1])
    outputs = []
    for t in order:
        out, new = step(x[:, t], states)
        if mask is not None:
            m = mask[:, t][:, None]
            out = np.where(m, out, 0.0 if zero_output_for_mask else states[0])
            new = [np.where(m, n, s) for n, s in zip(new, states)]
        outputs.append(out)
        states = new
    return np.stack(outputs, axis=1), states


def lstm_step(kernel, rk, bias):
    def step(x_t, states):
        h, c = states
        z = x_t @ kernel + h @ rk + bias
        i, f, g, o = np.split(z, 4, axis=-1)
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        h = sigmoid(o) * np.tanh(c)
        return h, [h, c]
    return step


def gru_step(kernel, rk, bias, reset_after):
    u = rk.shape[0]

    def step(x_t, states):
        h = states[0]
        if reset_after:
            xz = x_t @ kernel + bias[0]
            inner = h @ rk + bias[1]
            z = sigmoid(xz[:, :u] + inner[:, :u])
            r = sigmoid(xz[:, u:2 * u] + inner[:, u:2 * u])
            hh = np.tanh(xz[:, 2 * u:] + r * inner[:, 2 * u:])
        else:
            xz = x_t @ kernel + bias
            z = sigmoid(xz[:, :u] + h @ rk[:, :u])
            r = sigmoid(xz[:, u:2 * u] + h @ rk[:, u:2 * u])
            hh = np.tanh(xz[:, 2 * u:] + (r * h) @ rk[:, 2 * u:])
        h = z * h + (1 - z) * hh
        return h, [h]
    return step


def weights_of(layer):
    return [np.asarray(w, np.float64) for w in layer.get_weights()]


# ------------------------------------------------------------------------ values
@pytest.mark.parametrize("mask,go_backwards", [(None, False), (MASK, True)])
def test_lstm_matches_numpy_loop(mask, go_backwards, rng):
    layer = layers.LSTM(4, return_sequences=True, return_state=True, go_backwards=go_backwards)
    h0 = rng.normal(size=(2, 4)).astype(np.float32)
    c0 = rng.normal(size=(2, 4)).astype(np.float32)
    out, h, c = layer(X, initial_state=[h0, c0], mask=mask)
    expected, (eh, ec) = np_rnn(lstm_step(*weights_of(layer)), X, [h0, c0], mask, go_backwards)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(h, eh, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(c, ec, rtol=1e-5, atol=1e-5)
    assert out.shape == (2, 5, 4)


@pytest.mark.parametrize("reset_after", [True, False])
def test_gru_matches_numpy_loop(reset_after):
    layer = layers.GRU(4, return_sequences=True, reset_after=reset_after,
                       bias_initializer="random_normal")
    out = layer(X, mask=MASK)
    kernel, rk, bias = weights_of(layer)
    assert bias.shape == ((2, 12) if reset_after else (12,))
    expected, _ = np_rnn(gru_step(kernel, rk, bias, reset_after), X, [np.zeros((2, 4))], MASK)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


def test_simple_rnn_matches_numpy_and_zero_output_for_mask():
    layer = layers.SimpleRNN(4, activation="relu", return_sequences=True,
                             zero_output_for_mask=True)
    out = layer(X, mask=MASK)
    kernel, rk, bias = weights_of(layer)

    def step(x_t, states):
        h = np.maximum(x_t @ kernel + states[0] @ rk + bias, 0)
        return h, [h]

    expected, _ = np_rnn(step, X, [np.zeros((2, 4))], MASK, zero_output_for_mask=True)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)
    assert np.all(np.asarray(out)[~MASK] == 0)


def test_last_output_and_states_skip_masked_steps():
    layer = layers.LSTM(3, return_state=True)
    out, h, c = layer(X, mask=MASK)
    # Row 0's last valid step is t=3; dropping the masked tail changes nothing.
    out_trim, h_trim, _ = layer(X[:1, :4], mask=MASK[:1, :4])
    np.testing.assert_allclose(out[:1], out_trim, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(h, out, rtol=0, atol=0)
    # A fully unmasked sequence ignores an all-True mask.
    np.testing.assert_allclose(layer(X)[0], layer(X, mask=np.ones((2, 5), bool))[0], atol=1e-6)


def test_cell_step_equals_one_step_layer():
    layer = layers.LSTM(4, return_state=True)
    out, h, c = layer(X[:, :1])
    step_out, (h2, c2) = layer.cell(X[:, 0], [jnp.zeros((2, 4)), jnp.zeros((2, 4))])
    np.testing.assert_allclose(out, step_out, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(c, c2, rtol=1e-6, atol=1e-6)


class TanhCell(kg.Layer):
    """A user cell: the generic (non-fast-path) scan."""

    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.state_size = units

    def build(self, input_shape):
        self.kernel = self.add_weight((input_shape[-1], self.units), name="kernel")
        self.recurrent_kernel = self.add_weight((self.units, self.units), name="recurrent_kernel")
        self.built = True

    def call(self, inputs, states):
        h = jnp.tanh(inputs @ self.kernel + states[0] @ self.recurrent_kernel)
        return h, h


def test_generic_rnn_with_user_cell_equals_simple_rnn():
    custom = layers.RNN(TanhCell(4), return_sequences=True, go_backwards=True)
    builtin = layers.SimpleRNN(4, use_bias=False, return_sequences=True, go_backwards=True)
    custom(X)
    builtin(X)
    builtin.set_weights(custom.get_weights())
    np.testing.assert_allclose(custom(X, mask=MASK), builtin(X, mask=MASK), rtol=1e-5,
                               atol=1e-6)


# ------------------------------------------------------------------- weights
def test_weight_paths_order_and_unit_forget_bias():
    x = kg.Input(shape=(5, 3))
    model = kg.Model(x, layers.LSTM(4, name="lstm")(x))
    params, _ = compiler.variables(model)
    assert {k: v.shape for k, v in params["lstm"]["lstm_cell"].items()} == {
        "kernel": (3, 16), "recurrent_kernel": (4, 16), "bias": (16,)}
    layer = model.get_layer("lstm")
    assert [w.name for w in layer.weights] == ["kernel", "recurrent_kernel", "bias"]
    bias = np.asarray(layer.cell.bias)
    np.testing.assert_array_equal(bias, np.r_[np.zeros(4), np.ones(4), np.zeros(8)])
    rk = np.asarray(layer.cell.recurrent_kernel)  # orthogonal: rows orthonormal
    np.testing.assert_allclose(rk @ rk.T, np.eye(4), atol=1e-5)


def test_two_layers_and_bidirectional_halves_start_from_different_weights():
    a, b = layers.LSTM(3), layers.LSTM(3)
    a(X), b(X)
    assert not np.allclose(a.get_weights()[0], b.get_weights()[0])
    bi = layers.Bidirectional(layers.GRU(3))
    bi(X)
    w = bi.get_weights()
    assert not np.allclose(w[0], w[3])


# --------------------------------------------------------------- graph & masks
def test_masks_flow_through_graph_into_and_out_of_rnns():
    data = X.copy()
    data[:, :, 0] = np.where(MASK, data[:, :, 0], 0.0)
    x = kg.Input(shape=(5, 3))
    seq = layers.GRU(4, return_sequences=True, name="gru")(MakeMask()(x))
    model = kg.Model(x, MaskedMean()(seq))
    gru = model.get_layer("gru")
    eager_seq = np.asarray(gru(data, mask=MASK))
    m = MASK[..., None]
    expected = (eager_seq * m).sum(1) / m.sum(1)
    np.testing.assert_allclose(model(data), expected, rtol=1e-5)
    out, _ = jax.jit(compiler.compile(model).apply)(*compiler.variables(model), data)
    np.testing.assert_allclose(out, expected, rtol=1e-5)
    assert gru.compute_mask(data, MASK) is MASK
    assert layers.GRU(4).compute_mask(data, MASK) is None
    state_masks = layers.GRU(4, return_sequences=True, return_state=True).compute_mask(data, MASK)
    assert state_masks[0] is MASK and state_masks[1] is None


def test_initial_state_from_graph_inputs_and_return_state(rng):
    x = kg.Input(shape=(5, 3))
    h0, c0 = kg.Input(shape=(4,)), kg.Input(shape=(4,))
    out, h, c = layers.LSTM(4, return_state=True, name="lstm")(x, initial_state=[h0, c0])
    assert out.shape == h.shape == c.shape == (None, 4)
    model = kg.Model([x, h0, c0], [out, h, c])
    init = [rng.normal(size=(2, 4)).astype(np.float32) for _ in range(2)]
    program = compiler.compile(model)
    got, _ = jax.jit(program.apply)(*compiler.variables(model), [X] + init)
    expected = model.get_layer("lstm")(X, initial_state=init)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)
    assert not np.allclose(got[0], model.get_layer("lstm")(X))


def test_dropout_only_in_training_and_keyed():
    layer = layers.LSTM(4, dropout=0.5, recurrent_dropout=0.5, return_sequences=True)
    base = layer(X)
    np.testing.assert_array_equal(base, layer(X, training=False))
    k1, k2 = jax.random.PRNGKey(1), jax.random.PRNGKey(2)
    t1 = layer(X, training=True, key=k1)
    np.testing.assert_array_equal(t1, layer(X, training=True, key=k1))
    assert not np.allclose(t1, base)
    assert not np.allclose(t1, layer(X, training=True, key=k2))


def test_gradients_under_jit():
    layer = layers.GRU(4, return_sequences=True)
    layer(X)

    def loss(x):
        return jnp.sum(layer(x, mask=MASK) ** 2)

    grad = jax.jit(jax.grad(loss))(jnp.asarray(X))
    assert grad.shape == X.shape and np.all(np.isfinite(grad))
    eps = 1e-3
    bumped = X.copy()
    bumped[0, 1, 2] += eps
    numeric = (loss(jnp.asarray(bumped)) - loss(jnp.asarray(X))) / eps
    np.testing.assert_allclose(grad[0, 1, 2], numeric, rtol=2e-2, atol=1e-3)
    assert np.all(np.asarray(grad)[~MASK] == 0)  # masked steps do not feed the outputs


def test_bfloat16_close_to_float32():
    ref = layers.LSTM(4, return_sequences=True)
    low = layers.LSTM(4, return_sequences=True, dtype="mixed_bfloat16")
    ref(X), low(X)
    low.set_weights(ref.get_weights())
    out = low(X)
    assert out.dtype == jnp.bfloat16
    np.testing.assert_allclose(np.asarray(out, np.float32), ref(X), atol=5e-2)


# ------------------------------------------------------------------- wrappers
def test_bidirectional_is_forward_plus_flipped_backward():
    bi = layers.Bidirectional(layers.LSTM(4, return_sequences=True, name="enc"),
                              merge_mode="concat")
    out = bi(X, mask=MASK)
    fwd, bwd = bi.forward_layer, bi.backward_layer
    assert (fwd.name, bwd.name) == ("forward_enc", "backward_enc")
    assert bwd.go_backwards and not fwd.go_backwards
    assert fwd.zero_output_for_mask and bwd.zero_output_for_mask  # forced for sequences
    expected = np.concatenate([fwd(X, mask=MASK), np.flip(bwd(X, mask=MASK), 1)], -1)
    np.testing.assert_allclose(out, expected, rtol=1e-6)
    x = kg.Input(shape=(5, 3))
    params, _ = compiler.variables(kg.Model(x, bi(x)))
    assert set(params[bi.name]) == {"forward_enc", "backward_enc"}


@pytest.mark.parametrize("merge_mode", ["sum", "mul", "ave", None])
def test_bidirectional_merge_modes_and_states(merge_mode):
    bi = layers.Bidirectional(layers.GRU(3, return_state=True), merge_mode=merge_mode)
    result = bi(X)
    y = bi.forward_layer(X)[0]
    y_rev = bi.backward_layer(X)[0]
    if merge_mode is None:
        assert len(result) == 4
        np.testing.assert_allclose(result[0], y, rtol=1e-6)
        np.testing.assert_allclose(result[1], y_rev, rtol=1e-6)
    else:
        assert len(result) == 3
        expected = {"sum": y + y_rev, "mul": y * y_rev, "ave": (y + y_rev) / 2}[merge_mode]
        np.testing.assert_allclose(result[0], expected, rtol=1e-6)
    np.testing.assert_allclose(result[-2], y, rtol=1e-6)  # forward final state
    np.testing.assert_allclose(result[-1], y_rev, rtol=1e-6)
    symbolic = bi(kg.Input(shape=(5, 3)))
    assert [t.shape for t in symbolic] == [r.shape[:0] + (None,) + r.shape[1:] for r in result]


def test_bidirectional_config_round_trip_and_errors():
    bi = layers.Bidirectional(layers.LSTM(3, return_sequences=True), merge_mode="ave")
    bi(X)
    config = bi.get_config()
    assert config["layer"]["class_name"] == "LSTM"
    assert config["backward_layer"]["config"]["go_backwards"] is True
    clone = layers.Bidirectional.from_config(config)
    assert clone.get_config() == config
    clone(X)
    clone.set_weights(bi.get_weights())
    np.testing.assert_allclose(clone(X), bi(X), rtol=1e-6)
    with pytest.raises(ValueError, match="Invalid merge mode"):
        layers.Bidirectional(layers.LSTM(3), merge_mode="max")
    with pytest.raises(ValueError, match="go_backwards"):
        layers.Bidirectional(layers.LSTM(3), backward_layer=layers.LSTM(3))
    with pytest.raises(ValueError, match="return_sequences"):
        layers.Bidirectional(layers.LSTM(3), backward_layer=layers.LSTM(
            3, go_backwards=True, return_sequences=True))
    with pytest.raises(ValueError, match="Layer"):
        layers.Bidirectional("lstm")


class MaskAware(kg.Layer):
    """Zeroes masked rows (checks TimeDistributed folds the mask with the batch)."""

    def call(self, inputs, mask=None):
        return inputs * mask[:, None].astype(inputs.dtype)


def test_time_distributed_matches_per_step_and_folds_masks():
    td = layers.TimeDistributed(layers.Dense(2))
    out = td(X)
    dense = td.layer
    expected = np.stack([dense(X[:, t]) for t in range(5)], axis=1)
    np.testing.assert_allclose(out, expected, rtol=1e-6)
    assert td(kg.Input(shape=(5, 3))).shape == (None, 5, 2)
    assert td.compute_output_shape((None, 5, 3)) == (None, 5, 2)
    masked = layers.TimeDistributed(MaskAware())(X, mask=MASK)
    np.testing.assert_array_equal(np.asarray(masked)[~MASK], 0)
    np.testing.assert_array_equal(np.asarray(masked)[MASK], X[MASK])
    assert td.compute_mask(X, MASK) is MASK
    x = kg.Input(shape=(5, 3))
    params, _ = compiler.variables(kg.Model(x, td(x)))
    assert set(params[td.name]) == {dense.name}
    with pytest.raises(ValueError, match=td.name):
        layers.TimeDistributed(layers.Dense(2), name=td.name + "_x")(X[:, 0])
    with pytest.raises(ValueError):
        layers.TimeDistributed("dense")


# --------------------------------------------------------------------- errors
def test_argument_errors():
    with pytest.raises(ValueError, match="units"):
        layers.GRU(0)
    with pytest.raises(ValueError, match="use_cudnn"):
        layers.GRU(3, use_cudnn="yes")
    with pytest.raises(ValueError, match="state_size"):
        layers.RNN(layers.Dense(3))
    with pytest.raises(ValueError, match="initial state"):
        layers.LSTM(3)(X, initial_state=[np.zeros((2, 3), np.float32)])
    with pytest.raises(ValueError, match='"gru_x"'):
        layers.GRU(3, name="gru_x")(X[:, 0])


def test_configs_round_trip_with_keras_keys():
    layer = layers.GRU(3, reset_after=False, go_backwards=True, dropout=0.2, seed=3)
    config = layer.get_config()
    assert "cell" not in config
    assert {"units", "reset_after", "recurrent_activation", "zero_output_for_mask", "unroll",
            "recurrent_initializer", "seed"} <= set(config)
    clone = layers.GRU.from_config(config)
    assert clone.get_config() == config and clone.cell.name == "gru_cell"
    rnn = layers.RNN(layers.LSTMCell(3), return_sequences=True)
    config = rnn.get_config()
    assert config["cell"]["class_name"] == "LSTMCell"
    assert layers.RNN.from_config(config).get_config() == config


def np_gated_loop(kind, x, weights, dp, rdp, units, reset_after=True):
    """Keras's implementation=1 (per-gate dropout masks) in NumPy, dropout masks given."""
    kernel, rk, bias = weights
    gates = {"lstm": 4, "gru": 3}[kind]
    h = np.zeros((x.shape[0], units))
    c = np.zeros_like(h)
    u = units
    outs = []
    for t in range(x.shape[1]):
        xs = [(x[:, t] * dp[g]) @ kernel[:, g * u:(g + 1) * u] for g in range(gates)]
        hs = [(h * rdp[g]) for g in range(gates)]
        if kind == "lstm":
            z = [xs[g] + bias[g * u:(g + 1) * u] + hs[g] @ rk[:, g * u:(g + 1) * u]
                 for g in range(4)]
            c = sigmoid(z[1]) * c + sigmoid(z[0]) * np.tanh(z[2])
            h = sigmoid(z[3]) * np.tanh(c)
        else:
            b_in = bias[0] if reset_after else bias
            xz, xr, xh = [xs[g] + b_in[g * u:(g + 1) * u] for g in range(3)]
            rz, rr = [hs[g] @ rk[:, g * u:(g + 1) * u] for g in range(2)]
            if reset_after:
                rz, rr = rz + bias[1, :u], rr + bias[1, u:2 * u]
            z, r = sigmoid(xz + rz), sigmoid(xr + rr)
            if reset_after:
                cand = r * (hs[2] @ rk[:, 2 * u:] + bias[1, 2 * u:])
            else:
                cand = (r * hs[2]) @ rk[:, 2 * u:]
            h = z * h + (1 - z) * np.tanh(xh + cand)
        outs.append(h)
    return np.stack(outs, axis=1)


@pytest.mark.parametrize("kind,reset_after", [("lstm", True), ("gru", True), ("gru", False)])
def test_dropout_and_recurrent_dropout_math(monkeypatch, kind, reset_after):
    from kgraph.layers import rnn_cells

    drawn = []

    def fixed_masks(key, rate, count, batch, dim, dtype):
        mask = np.random.default_rng(len(drawn)).choice([0.0, 2.0], size=(count, batch, dim))
        drawn.append(mask)
        return jnp.asarray(mask, dtype)

    monkeypatch.setattr(rnn_cells, "dropout_masks", fixed_masks)
    kwargs = dict(dropout=0.5, recurrent_dropout=0.5, return_sequences=True,
                  bias_initializer="random_normal")
    layer = (layers.LSTM(4, **kwargs) if kind == "lstm"
             else layers.GRU(4, reset_after=reset_after, **kwargs))
    layer(X)
    out = layer(X, training=True)
    dp, rdp = drawn
    assert dp.shape == ((4 if kind == "lstm" else 3), 2, 3) and rdp.shape[2] == 4
    expected = np_gated_loop(kind, X.astype(np.float64), weights_of(layer), dp, rdp, 4,
                             reset_after)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)
