"""The runtime benchmark's workloads, each written three ways: kgraph, plain JAX, Keras 3.

A ``Workload`` builds the kgraph model (layers named, so its params pytree has fixed
keys), a hand-written forward pass over that same params dict (``jax.numpy`` /
``jax.lax`` only), the matching Keras 3 model, its loss in each system, and random
float32 data from a fixed seed.

>>> w = WORKLOADS["tiny"]
>>> x, y = w.data(4)
>>> x.shape, y.shape, w.batch
((4, 32), (4, 1), 32)
"""

from __future__ import annotations

import dataclasses
import math
from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np
import optax

import kgraph as kg
from kgraph.losses import losses as rt_losses

LN_EPSILON = 1e-3  # Keras's LayerNormalization default


@dataclasses.dataclass(frozen=True)
class Workload:
    """One model + loss + batch size, in every system the benchmark compares.

    Attributes:
      name, description: for tables.
      batch: batch size of every step.
      x_shape, y_shape: per-sample shapes (``y_shape == ()`` with ``classes``: int labels).
      classes: number of classes for sparse cross-entropy, or None for MSE.
      fit_steps, quick_fit_steps: steps in one timed ``fit`` epoch (multiples of 8).
      build_kgraph: ``() -> kg.Model``.
      forward: ``(params, x) -> predictions``, over the kgraph model's params dict.
      build_keras: ``(keras) -> keras.Model`` with the same architecture.
    """

    name: str
    description: str
    batch: int
    x_shape: tuple
    y_shape: tuple
    classes: int | None
    fit_steps: int
    quick_fit_steps: int
    build_kgraph: Callable
    forward: Callable
    build_keras: Callable

    def loss(self, predictions, y):
        """The hand-written loss: mean softmax cross-entropy on logits, or mean squared error."""
        if self.classes:
            return optax.softmax_cross_entropy_with_integer_labels(predictions, y).mean()
        return jnp.mean(jnp.square(predictions - y))

    def kgraph_loss(self):
        return (rt_losses.SparseCategoricalCrossentropy(from_logits=True) if self.classes
                else "mse")

    def keras_loss(self, keras):
        return (keras.losses.SparseCategoricalCrossentropy(from_logits=True) if self.classes
                else "mse")

    def data(self, n, seed=0):
        """``n`` random samples: standard-normal float32 inputs, int32 labels or targets."""
        rng = np.random.default_rng(seed)
        x = rng.standard_normal((n, *self.x_shape), dtype=np.float32)
        if self.classes:
            y = rng.integers(0, self.classes, size=(n,), dtype=np.int32)
        else:
            y = rng.standard_normal((n, *self.y_shape), dtype=np.float32)
        return x, y


def make_hand_step(workload, optimizer):
    """The plain JAX + optax train step: ``(params, opt_state, x, y) -> (params, opt_state,
    loss)``, jitted, donating params and optimizer state."""

    def loss_fn(params, x, y):
        return workload.loss(workload.forward(params, x), y)

    def step(params, opt_state, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        updates, opt_state = optimizer.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss

    return jax.jit(step, donate_argnums=(0, 1))


# ------------------------------------------------------------------ hand-written layers
def _dense(p, x):
    return x @ p["kernel"] + p["bias"]


def _conv(p, x):
    y = jax.lax.conv_general_dilated(x, p["kernel"], (1, 1), "VALID",
                                     dimension_numbers=("NHWC", "HWIO", "NHWC"))
    return y + p["bias"]


def _max_pool(x, size):
    window = (1, size, size, 1)
    return jax.lax.reduce_window(x, -np.inf, jax.lax.max, window, window, "VALID")


def _layer_norm(p, x):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    variance = jnp.var(x, axis=-1, keepdims=True)
    return (x - mean) * jax.lax.rsqrt(variance + LN_EPSILON) * p["gamma"] + p["beta"]


def _self_attention(p, x, key_dim):
    """Multi-head self-attention over (batch, seq, d) with (d, heads, key_dim) projections."""
    def project(name):
        return jnp.einsum("btd,dhk->bthk", x, p[name]["kernel"]) + p[name]["bias"]

    q, k, v = project("query") / math.sqrt(key_dim), project("key"), project("value")
    weights = jax.nn.softmax(jnp.einsum("bthk,bshk->bhts", q, k), axis=-1)
    heads = jnp.einsum("bhts,bshk->bthk", weights, v)
    out = p["attention_output"]
    return jnp.einsum("bthk,hkd->btd", heads, out["kernel"]) + out["bias"]


# ------------------------------------------------------------------------ tiny, mlp
def _relu_mlp(name, input_name, inputs, width, outputs, output_name):
    """``(build_kgraph, forward, build_keras)`` of an ``inputs-width-width-outputs`` ReLU MLP
    whose layers are named ``fc_1``, ``fc_2`` and ``output_name``."""
    def build_kgraph():
        x = kg.Input(shape=(inputs,), name=input_name)
        h = kg.layers.Dense(width, activation="relu", name="fc_1")(x)
        h = kg.layers.Dense(width, activation="relu", name="fc_2")(h)
        return kg.Model(x, kg.layers.Dense(outputs, name=output_name)(h), name=name)

    def forward(p, x):
        h = jax.nn.relu(_dense(p["fc_1"], x))
        h = jax.nn.relu(_dense(p["fc_2"], h))
        return _dense(p[output_name], h)

    def build_keras(keras):
        x = keras.Input(shape=(inputs,))
        h = keras.layers.Dense(width, activation="relu")(x)
        h = keras.layers.Dense(width, activation="relu")(h)
        return keras.Model(x, keras.layers.Dense(outputs)(h))

    return build_kgraph, forward, build_keras


_tiny_kgraph, _tiny_forward, _tiny_keras = _relu_mlp("tiny", "features", 32, 32, 1, "out")
_mlp_kgraph, _mlp_forward, _mlp_keras = _relu_mlp("mlp", "pixels", 784, 512, 10, "logits")


# ----------------------------------------------------------------------------- cnn
def _cnn_kgraph():
    x = kg.Input(shape=(28, 28, 1), name="image")
    h = kg.layers.Conv2D(32, 3, activation="relu", name="conv_1")(x)
    h = kg.layers.Conv2D(64, 3, activation="relu", name="conv_2")(h)
    h = kg.layers.Flatten(name="flatten")(kg.layers.MaxPooling2D(2, name="pool")(h))
    h = kg.layers.Dense(128, activation="relu", name="fc")(h)
    return kg.Model(x, kg.layers.Dense(10, name="logits")(h), name="cnn")


def _cnn_forward(p, x):
    h = jax.nn.relu(_conv(p["conv_1"], x))
    h = jax.nn.relu(_conv(p["conv_2"], h))
    h = _max_pool(h, 2)
    h = jax.nn.relu(_dense(p["fc"], h.reshape(h.shape[0], -1)))
    return _dense(p["logits"], h)


def _cnn_keras(keras):
    x = keras.Input(shape=(28, 28, 1))
    h = keras.layers.Conv2D(32, 3, activation="relu")(x)
    h = keras.layers.Conv2D(64, 3, activation="relu")(h)
    h = keras.layers.Flatten()(keras.layers.MaxPooling2D(2)(h))
    h = keras.layers.Dense(128, activation="relu")(h)
    return keras.Model(x, keras.layers.Dense(10)(h))


# --------------------------------------------------------------------- transformer
SEQ, WIDTH, HEADS, KEY_DIM, FF = 64, 128, 4, 32, 512


def _transformer_kgraph():
    x = kg.Input(shape=(SEQ, WIDTH), name="tokens")
    h = kg.layers.LayerNormalization(name="ln_1")(x)
    h = kg.layers.MultiHeadAttention(HEADS, KEY_DIM, name="mha")(h, h)
    h = kg.layers.Add(name="residual_1")([x, h])
    f = kg.layers.LayerNormalization(name="ln_2")(h)
    f = kg.layers.Dense(FF, activation="gelu", name="ff_1")(f)
    f = kg.layers.Dense(WIDTH, name="ff_2")(f)
    return kg.Model(x, kg.layers.Add(name="residual_2")([h, f]), name="encoder_block")


def _transformer_forward(p, x):
    h = x + _self_attention(p["mha"], _layer_norm(p["ln_1"], x), KEY_DIM)
    f = jax.nn.gelu(_dense(p["ff_1"], _layer_norm(p["ln_2"], h)), approximate=False)
    return h + _dense(p["ff_2"], f)


def _transformer_keras(keras):
    x = keras.Input(shape=(SEQ, WIDTH))
    h = keras.layers.LayerNormalization()(x)
    h = keras.layers.MultiHeadAttention(HEADS, KEY_DIM)(h, h)
    h = keras.layers.Add()([x, h])
    f = keras.layers.LayerNormalization()(h)
    f = keras.layers.Dense(FF, activation="gelu")(f)
    f = keras.layers.Dense(WIDTH)(f)
    return keras.Model(x, keras.layers.Add()([h, f]))


# fit_steps: about 1 s per epoch for the hand loop on a 2-core CPU. The CNN's step is
# ~0.4 s there (XLA:CPU's weight-gradient convolution dominates), so its epoch is 8 steps.
WORKLOADS = {w.name: w for w in (
    Workload("tiny", "32-32-32-1 ReLU MLP, MSE", batch=32, x_shape=(32,), y_shape=(1,),
             classes=None, fit_steps=2048, quick_fit_steps=128, build_kgraph=_tiny_kgraph,
             forward=_tiny_forward, build_keras=_tiny_keras),
    Workload("mlp", "784-512-512-10 ReLU MLP, sparse CE", batch=128, x_shape=(784,),
             y_shape=(), classes=10, fit_steps=128, quick_fit_steps=16,
             build_kgraph=_mlp_kgraph, forward=_mlp_forward, build_keras=_mlp_keras),
    Workload("cnn", "28x28x1 Conv32-Conv64-MaxPool-Dense128-10, sparse CE", batch=64,
             x_shape=(28, 28, 1), y_shape=(), classes=10, fit_steps=8, quick_fit_steps=8,
             build_kgraph=_cnn_kgraph, forward=_cnn_forward, build_keras=_cnn_keras),
    Workload("transformer", f"pre-LN encoder block (seq {SEQ}, d {WIDTH}, {HEADS} heads), MSE",
             batch=16, x_shape=(SEQ, WIDTH), y_shape=(SEQ, WIDTH), classes=None,
             fit_steps=32, quick_fit_steps=8, build_kgraph=_transformer_kgraph,
             forward=_transformer_forward, build_keras=_transformer_keras),
)}
