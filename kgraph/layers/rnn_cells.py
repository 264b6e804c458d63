"""Recurrent cells: ``SimpleRNNCell``, ``LSTMCell``, ``GRUCell`` (one time step each).

A cell holds the weights of a recurrent layer (Keras 3 names and layouts, gates in Keras's
order: LSTM ``i, f, c, o``; GRU ``z, r, h``) and computes one step,
``cell(inputs, states) -> (output, new_states)``. The recurrent layers
(``kgraph.layers.recurrent``) drive a cell over time with ``jax.lax.scan``; for these
built-in cells they project the whole input sequence once (``x @ kernel`` for every step
in one matmul) and scan only the recurrent part.

Dropout (``dropout`` on the inputs, ``recurrent_dropout`` on the carried state) uses one
mask per gate, drawn once per sequence and reused at every step (Keras's
``implementation=1``); it is active only in training.

>>> import jax.numpy as jnp
>>> cell = LSTMCell(4)
>>> h, (h2, c) = cell(jnp.ones((2, 3)), [jnp.zeros((2, 4)), jnp.zeros((2, 4))])
>>> h.shape, c.shape
((2, 4), (2, 4))
"""

from __future__ import annotations

import functools
import inspect
from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp

from kgraph import activations, initializers
from kgraph.base.layer import Layer
from kgraph.base.seed_generator import SeedGenerator
from kgraph.interpreter import context
from kgraph.layers import arg_checks, weight_args as wa

__all__ = [
    "GRUCell", "LSTMCell", "SimpleRNNCell", "StepConfig", "dropout_masks", "gru_step",
    "init_arguments", "lstm_step", "parameter_names", "salted", "simple_rnn_step"
]


# --------------------------------------------------------------------------- helpers
def init_arguments(frame_locals) -> dict:
    """The arguments an ``__init__`` received, from its ``locals()`` taken before anything
    else: the named parameters, then what ``**kwargs`` caught."""
    named = {k: v for k, v in frame_locals.items() if k not in ("self", "kwargs", "__class__")}
    return {**named, **frame_locals.get("kwargs", {})}


@functools.lru_cache(maxsize=None)
def parameter_names(fn) -> frozenset:
    """The named parameters of ``fn`` (not ``self``, ``*args`` or ``**kwargs``)."""
    params = inspect.signature(fn).parameters.values()
    return frozenset(p.name for p in params if p.name != "self"
                     and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD))


def salted(initializer, salt):
    """``initializer`` drawing from its key folded with ``salt`` (a name), or as given.

    Sub-layers keep Keras's fixed names (every LSTM's cell is ``lstm_cell``), and a weight's
    eager initial value is keyed by ``<owner name>/<weight name>``; folding in the parent
    layer's name keeps two LSTMs (or the two halves of a Bidirectional) from starting with
    identical weights.
    """
    if salt is None:
        return initializer
    fn = initializers.get(initializer)
    salt_hash = context.stable_hash(salt)

    def init(key, shape, dtype="float32"):
        return fn(jax.random.fold_in(key, salt_hash), shape, dtype)

    return init


def _cell_initializer(initializer, salt):
    """``salted``, and drawn in float32 then cast for 16-bit floats (the orthogonal
    initializer's QR has no bfloat16/float16 kernel)."""
    fn = initializers.get(salted(initializer, salt))

    def init(key, shape, dtype="float32"):
        if jnp.dtype(dtype) in (jnp.dtype(jnp.bfloat16), jnp.dtype(jnp.float16)):
            return jnp.asarray(fn(key, shape, jnp.float32)).astype(dtype)
        return fn(key, shape, dtype)

    return init


def _check_units(units, owner):
    if not isinstance(units, int) or isinstance(units, bool) or units <= 0:
        raise ValueError(f"Received an invalid value for argument `units` of {owner}, "
                         f"expected a positive integer, got {units!r}.")


class StepConfig(NamedTuple):
    """What a built-in cell's step computes, besides its weights: hashable, so a recurrent
    layer's jitted time loop is compiled once per configuration and shape."""

    step: Callable  # step(config, weights, projected_t, states, rec_masks)
    units: int
    activation: Callable
    recurrent_activation: Callable | None = None
    reset_after: bool = True


def _gate_inputs(h, rec_masks, count):
    """``h`` as seen by each gate's recurrent matmul (masked under recurrent dropout)."""
    if rec_masks is None:
        return [h] * count
    return [h * rec_masks[g] for g in range(count)]


def simple_rnn_step(cfg, w, x_t, states, rec_masks):
    """``h = activation(x_t + h_prev @ recurrent_kernel)`` (``x_t`` holds the input part)."""
    (h,) = _gate_inputs(states[0], rec_masks, 1)
    out = cfg.activation(x_t + jnp.matmul(h, w["recurrent_kernel"]))
    return out, [out]


def lstm_step(cfg, w, x_t, states, rec_masks):
    """One LSTM step, gates ``i, f, c, o`` (``x_t`` holds ``x @ kernel + bias``)."""
    h_prev, c_prev = states
    u, rk = cfg.units, w["recurrent_kernel"]
    if rec_masks is None:
        z = x_t + jnp.matmul(h_prev, rk)
    else:
        hs = _gate_inputs(h_prev, rec_masks, 4)
        z = x_t + jnp.concatenate([jnp.matmul(hs[g], rk[:, g * u:(g + 1) * u])
                                   for g in range(4)], axis=-1)
    act, rec_act = cfg.activation, cfg.recurrent_activation
    i = rec_act(z[..., :u])
    f = rec_act(z[..., u:2 * u])
    c = f * c_prev + i * act(z[..., 2 * u:3 * u])
    o = rec_act(z[..., 3 * u:])
    h = o * act(c)
    return h, [h, c]


def gru_step(cfg, w, x_t, states, rec_masks):
    """One GRU step, gates ``z, r, h`` (``x_t`` holds ``x @ kernel`` + input bias)."""
    h_prev = states[0]
    u, rk, bias = cfg.units, w["recurrent_kernel"], w["bias"]
    h_z, h_r, h_h = _gate_inputs(h_prev, rec_masks, 3)
    if rec_masks is None and cfg.reset_after:
        inner = jnp.matmul(h_prev, rk)
        if bias is not None:
            inner = inner + bias[1]
        rec_z, rec_r, rec_h = inner[..., :u], inner[..., u:2 * u], inner[..., 2 * u:]
    else:
        rec_z = jnp.matmul(h_z, rk[:, :u])
        rec_r = jnp.matmul(h_r, rk[:, u:2 * u])
        rec_h = None
        if cfg.reset_after:
            rec_h = jnp.matmul(h_h, rk[:, 2 * u:])
            if bias is not None:
                rec_z, rec_r = rec_z + bias[1, :u], rec_r + bias[1, u:2 * u]
                rec_h = rec_h + bias[1, 2 * u:]
    z = cfg.recurrent_activation(x_t[..., :u] + rec_z)
    r = cfg.recurrent_activation(x_t[..., u:2 * u] + rec_r)
    if cfg.reset_after:
        candidate = r * rec_h
    else:
        candidate = jnp.matmul(r * h_h, rk[:, 2 * u:])
    hh = cfg.activation(x_t[..., 2 * u:] + candidate)
    h = z * h_prev + (1 - z) * hh
    return h, [h]


def dropout_masks(key, rate, count, batch, dim, dtype):
    """``count`` inverted-dropout masks of shape (batch, dim), stacked: (count, batch, dim)."""
    keep = jax.random.bernoulli(key, 1.0 - rate, (count, batch, dim))
    return jnp.where(keep, 1.0 / (1.0 - rate), 0.0).astype(dtype)


class _Cell(Layer):
    """Base of the built-in cells: weights, dropout masks, one-step ``call``.

    Subclasses set ``_gates`` and implement ``build`` and ``step_config``. The recurrent
    layers use ``sequence_inputs`` (project the whole sequence at once) and the cell's
    pure step function from ``step_config`` inside their ``lax.scan``.
    """

    _gates = 1

    def __init__(self, units, activation="tanh", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
                 bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, seed=None, **kwargs):
        super().__init__(**kwargs)
        _check_units(units, type(self).__name__)
        self.units = units
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        wa.set_weight_args(self, "kernel", kernel_initializer, kernel_regularizer,
                           kernel_constraint)
        wa.set_weight_args(self, "recurrent", recurrent_initializer, recurrent_regularizer,
                           recurrent_constraint)
        wa.set_weight_args(self, "bias", bias_initializer, bias_regularizer, bias_constraint)
        for name, rate in (("dropout", dropout), ("recurrent_dropout", recurrent_dropout)):
            arg_checks.number(f'Layer "{self.name}" ({type(self).__name__})', name, rate,
                              low=0, high=1)
        self.dropout = float(dropout)
        self.recurrent_dropout = float(recurrent_dropout)
        self.seed = seed
        self.seed_generator = SeedGenerator(seed)  # the dropout masks' keys, as Keras's
        self._weight_salt = None  # set by the owning recurrent layer (see ``salted``)

    @property
    def state_size(self):
        return self.units

    @property
    def output_size(self):
        return self.units

    def _check_input_dim(self, input_shape):
        if input_shape[-1] is None:
            raise ValueError(f'Layer "{self.name}" needs a known last input dimension to create '
                             f"its kernel, received input shape {tuple(input_shape)}.")
        return input_shape[-1]

    def _add_kernels(self, input_dim):
        k, salt = self._gates * self.units, self._weight_salt
        self.kernel = wa.add_weight(self, "kernel", (input_dim, k),
                                    _cell_initializer(self.kernel_initializer, salt))
        self.recurrent_kernel = wa.add_weight(
            self, "recurrent", (self.units, k),
            _cell_initializer(self.recurrent_initializer, salt), name="recurrent_kernel")

    def _add_bias(self, shape, initializer):
        self.bias = wa.add_weight(self, "bias", shape,
                                  _cell_initializer(initializer, self._weight_salt))

    # ----------------------------------------------------------------- dropout
    def _key(self, index):
        return jax.random.fold_in(self.seed_generator.next(), index)

    def _masks(self, training, batch, input_dim, dtype):
        """(input masks (gates, batch, in) | None, recurrent masks (gates, batch, units) | None)."""
        masks = rec_masks = None
        if training and 0.0 < self.dropout < 1.0:
            masks = dropout_masks(self._key(0), self.dropout, self._gates, batch, input_dim, dtype)
        if training and 0.0 < self.recurrent_dropout < 1.0:
            rec_masks = dropout_masks(self._key(1), self.recurrent_dropout, self._gates, batch,
                                      self.units, dtype)
        return masks, rec_masks

    def _project(self, inputs, masks):
        """``inputs @ kernel`` (+ input bias) for inputs (batch, ..., in), per-gate masked."""
        kernel = self.kernel
        if masks is None:
            return jnp.matmul(inputs, kernel) + self._input_bias()
        g, u = self._gates, self.units
        m = masks.reshape((g, masks.shape[1]) + (1,) * (inputs.ndim - 2) + (masks.shape[2],))
        per_gate = jnp.einsum("g...i,igu->...gu", inputs[None] * m,
                              kernel.reshape(kernel.shape[0], g, u))
        return per_gate.reshape(per_gate.shape[:-2] + (g * u,)) + self._input_bias()

    def _input_bias(self):
        return self.bias if self.use_bias else jnp.zeros((), self.compute_dtype)

    # -------------------------------------------------------------------- call
    def step_config(self) -> StepConfig:
        raise NotImplementedError

    def sequence_inputs(self, sequences, training):
        """``(projected, weights, rec_masks)`` for a (batch, time, in) or (batch, in) input:
        the input part of every step's pre-activations, the weights the step reads, and the
        recurrent dropout masks (None unless training with ``recurrent_dropout``)."""
        masks, rec_masks = self._masks(training, sequences.shape[0], sequences.shape[-1],
                                       sequences.dtype)
        weights = {"recurrent_kernel": self.recurrent_kernel,
                   "bias": self.bias if self.use_bias else None}
        return self._project(sequences, masks), weights, rec_masks

    def get_initial_state(self, batch_size=None):
        sizes = self.state_size if isinstance(self.state_size, list) else [self.state_size]
        return [jnp.zeros((batch_size, d), self.compute_dtype) for d in sizes]

    def call(self, inputs, states, training=False):
        single = not isinstance(states, (list, tuple))
        states = [states] if single else list(states)
        projected, weights, rec_masks = self.sequence_inputs(inputs, training)
        config = self.step_config()
        output, new_states = config.step(config, weights, projected, states, rec_masks)
        return output, (new_states[0] if single else new_states)

    def get_config(self):
        return {**super().get_config(), "units": self.units,
                "activation": activations.serialize(self.activation), "use_bias": self.use_bias,
                **wa.weight_config(self, "kernel", "recurrent", "bias", strict=False),
                "dropout": self.dropout, "recurrent_dropout": self.recurrent_dropout,
                "seed": self.seed}


class SimpleRNNCell(_Cell):
    """``h = activation(x @ kernel + h_prev @ recurrent_kernel + bias)``.

    Weights: ``kernel`` (in, units), ``recurrent_kernel`` (units, units), ``bias`` (units,).
    """

    _gates = 1

    def build(self, input_shape):
        input_dim = self._check_input_dim(input_shape)
        self._add_kernels(input_dim)
        if self.use_bias:
            self._add_bias((self.units,), self.bias_initializer)
        self.built = True

    def step_config(self):
        return StepConfig(simple_rnn_step, self.units, self.activation)


class LSTMCell(_Cell):
    """Long short-term memory step; states ``[h, c]``, gates ``i, f, c, o``.

    Weights: ``kernel`` (in, 4 units), ``recurrent_kernel`` (units, 4 units), ``bias``
    (4 units,), initialized with ones for the forget gate if ``unit_forget_bias``.
    """

    _gates = 4

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", unit_forget_bias=True, kernel_regularizer=None,
                 recurrent_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, seed=None, implementation=2, **kwargs):
        arguments = init_arguments(locals())
        del arguments["recurrent_activation"], arguments["unit_forget_bias"]
        del arguments["implementation"]
        super().__init__(**arguments)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.unit_forget_bias = unit_forget_bias
        # Keras's choice of matmuls (one per gate, or one for all): the same numbers here
        self.implementation = implementation

    @property
    def state_size(self):
        return [self.units, self.units]

    def build(self, input_shape):
        input_dim = self._check_input_dim(input_shape)
        self._add_kernels(input_dim)
        if self.use_bias:
            initializer = self.bias_initializer
            if self.unit_forget_bias:
                base, units = initializers.get(self.bias_initializer), self.units

                def initializer(key, shape, dtype="float32"):
                    k1, k2 = jax.random.split(key)
                    return jnp.concatenate([base(k1, (units,), dtype), jnp.ones((units,), dtype),
                                            base(k2, (2 * units,), dtype)])

            self._add_bias((4 * self.units,), initializer)
        self.built = True

    def step_config(self):
        return StepConfig(lstm_step, self.units, self.activation, self.recurrent_activation)

    def get_config(self):
        return {**super().get_config(),
                "recurrent_activation": activations.serialize(self.recurrent_activation),
                "unit_forget_bias": self.unit_forget_bias}


class GRUCell(_Cell):
    """Gated recurrent unit step; gates ``z, r, h``.

    Weights: ``kernel`` (in, 3 units), ``recurrent_kernel`` (units, 3 units), ``bias``
    (2, 3 units) with ``reset_after=True`` (input and recurrent biases, the cuDNN-compatible
    form and Keras's default) or (3 units,) with ``reset_after=False``.
    """

    _gates = 3

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
                 bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, reset_after=True,
                 seed=None, implementation=2, **kwargs):
        arguments = init_arguments(locals())
        del arguments["recurrent_activation"], arguments["reset_after"]
        del arguments["implementation"]
        super().__init__(**arguments)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.reset_after = reset_after
        # Keras's choice of matmuls (one per gate, or one for all): the same numbers here
        self.implementation = implementation

    def build(self, input_shape):
        input_dim = self._check_input_dim(input_shape)
        self._add_kernels(input_dim)
        if self.use_bias:
            shape = (2, 3 * self.units) if self.reset_after else (3 * self.units,)
            self._add_bias(shape, self.bias_initializer)
        self.built = True

    def _input_bias(self):
        if not self.use_bias:
            return jnp.zeros((), self.compute_dtype)
        return self.bias[0] if self.reset_after else self.bias

    def step_config(self):
        return StepConfig(gru_step, self.units, self.activation, self.recurrent_activation,
                          bool(self.reset_after))

    def get_config(self):
        return {**super().get_config(),
                "recurrent_activation": activations.serialize(self.recurrent_activation),
                "reset_after": self.reset_after}
