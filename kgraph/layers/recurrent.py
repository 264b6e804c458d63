"""Recurrent layers: ``RNN`` (any cell), ``SimpleRNN``, ``LSTM``, ``GRU``.

The time loop is one ``jax.lax.scan`` over the time axis. With a built-in cell the input
projection ``x @ kernel`` is done for all steps at once before the scan, which carries only
the recurrent part. Weights live on a cell sub-layer named as in Keras 3
(``lstm/lstm_cell/kernel``), so weight paths and ``get_weights()`` order match Keras.

Masks (Keras semantics): with a (batch, time) mask, a masked step keeps the previous states
and outputs the previous output (zeros with ``zero_output_for_mask=True``);
``compute_mask`` returns the mask when ``return_sequences`` else None.

``stateful=True`` keeps the final states between calls as Keras's (non-trainable state
variables, also in compiled programs' ``state``; see ``kgraph.layers.rnn_state``);
``unroll`` is accepted and ignored.

>>> import kgraph as kg
>>> x = kg.Input(shape=(5, 3))
>>> out, h, c = kg.layers.LSTM(4, return_sequences=True, return_state=True)(x)
>>> out.shape, h.shape, c.shape
((None, 5, 4), (None, 4), (None, 4))
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

from kgraph import regularizers
from kgraph.base import shape_inference
from kgraph.base.input_spec import InputSpec
from kgraph.base.layer import Layer
from kgraph.graph.keras_tensor import KerasTensor
from kgraph.interpreter import context
from kgraph.layers.dropout_rnn_cell import drawn_dropout_masks, forget_dropout_masks
from kgraph.layers.rnn_stacked import StackedRNNCells
from kgraph.layers.rnn_state import StatefulRecurrence
from kgraph.layers.wrappers import deserialize_layer, serialize_layer
from kgraph.layers.rnn_cells import (GRUCell, LSTMCell, SimpleRNNCell, _Cell, init_arguments,
                                     parameter_names)

__all__ = ["GRU", "LSTM", "RNN", "SimpleRNN"]


def _scan(step, states, sequences, mask, *, go_backwards, zero_output_for_mask,
          return_sequences, output_state=0):
    """Run ``step(x_t, states) -> (output, states)`` over axis 1 of ``sequences`` (Keras's
    masking rules: a masked step keeps the states and outputs ``states[output_state]``, the
    previous output); returns ``(outputs or last output, final states)``."""
    xs = jnp.swapaxes(sequences, 0, 1)  # time major
    if mask is not None:
        mask = jnp.swapaxes(mask, 0, 1)
    if go_backwards:
        xs = jnp.flip(xs, 0)
        mask = None if mask is None else jnp.flip(mask, 0)

    def body(carry, inp):
        x_t, m_t = inp if mask is not None else (inp, None)
        output, new_states = step(x_t, carry)
        if m_t is not None:
            def keep(a):
                return m_t.reshape(m_t.shape + (1,) * (a.ndim - 1))

            previous = jnp.zeros_like(output) if zero_output_for_mask else carry[output_state]
            output = jnp.where(keep(output), output, previous)
            new_states = [jnp.where(keep(n), n, s) for n, s in zip(new_states, carry)]
        return [n.astype(s.dtype) for n, s in zip(new_states, carry)], output

    final, outputs = context.scan(body, list(states), xs if mask is None else (xs, mask))
    return (jnp.swapaxes(outputs, 0, 1) if return_sequences else outputs[-1]), final


@functools.partial(jax.jit, static_argnames=("config", "go_backwards", "zero_output_for_mask",
                                             "return_sequences"))
def _scan_builtin(weights, rec_masks, states, projected, mask, *, config, go_backwards,
                  zero_output_for_mask, return_sequences):
    """``_scan`` of a built-in cell's pure step, jitted: eager calls (and eager gradients)
    compile the loop once per configuration and shape instead of at every call."""
    def step(x_t, carry):
        return config.step(config, weights, x_t, carry, rec_masks)

    return _scan(step, states, projected, mask, go_backwards=go_backwards,
                 zero_output_for_mask=zero_output_for_mask, return_sequences=return_sequences)


class RNN(StatefulRecurrence, Layer):

    """Run ``cell`` over the time axis (axis 1) of ``(batch, time, ...)`` sequences.

    Args:
      cell: a cell layer with ``state_size`` (int or list of ints) and
        ``call(inputs, states[, training]) -> (output, new_states)``, e.g. ``LSTMCell``.
      return_sequences: return the output of every step (batch, time, units), else the
        last one (batch, units).
      return_state: also return the final states: ``(output, *states)``.
      go_backwards: process the sequence in reverse (outputs are in processing order,
        as in Keras).
      stateful: keep the final states as the next call's initial states (a fixed batch
        size; ``reset_state()`` zeroes them; see ``kgraph.layers.rnn_state``).
      unroll: accepted for compatibility; the loop is always a ``lax.scan``.
      zero_output_for_mask: masked steps output zeros instead of the previous output.

    Call arguments: ``sequences``, ``initial_state`` (list of (batch, size) arrays),
    ``mask`` (batch, time) booleans, ``training``.
    """

    supports_masking = True

    def __init__(self, cell, return_sequences=False, return_state=False, go_backwards=False,
                 stateful=False, unroll=False, zero_output_for_mask=False, **kwargs):
        if isinstance(cell, (list, tuple)):
            cell = StackedRNNCells(cell)
        if not callable(getattr(cell, "call", None)):
            raise ValueError(f"Argument `cell` should have a `call` method. Received: cell={cell}")
        if getattr(cell, "state_size", None) is None:
            raise ValueError("The RNN cell should have a `state_size` attribute (single integer "
                             f"or list of integers, one per RNN state). Received: cell={cell}")
        super().__init__(**kwargs)
        self.cell = cell
        self.return_sequences = bool(return_sequences)
        self.return_state = bool(return_state)
        self.go_backwards = bool(go_backwards)
        self._init_stateful(stateful)
        self.unroll = bool(unroll)
        self.zero_output_for_mask = bool(zero_output_for_mask)
        self.input_spec = InputSpec(min_ndim=3)

    # ---------------------------------------------------------------- shapes
    @property
    def state_size(self) -> list:
        size = self.cell.state_size
        return list(size) if isinstance(size, (list, tuple)) else [size]

    @property
    def single_state(self) -> bool:
        """Whether the cell has one state (an int ``state_size``), as Keras's attribute."""
        return isinstance(self.cell.state_size, int)

    def _output_size(self):
        size = getattr(self.cell, "output_size", None)
        return self.state_size[0] if size is None else size

    def _check_rank(self, shape):
        spec = self.input_spec
        ndim, min_ndim = getattr(spec, "ndim", None), getattr(spec, "min_ndim", None) or 3
        if (ndim is not None and len(shape) != ndim) or len(shape) < min_ndim:
            expected = f"ndim={ndim}" if ndim is not None else f"min_ndim={min_ndim}"
            raise ValueError(f'Input 0 of layer "{self.name}" is incompatible with the layer: '
                             f"expected {expected}, found ndim={len(shape)}. Full shape "
                             f"received: {shape_inference.format_shape(shape)}")

    def build(self, sequences_shape, initial_state_shape=None):
        self._check_rank(tuple(sequences_shape))
        if not self.cell.built:
            self.cell.build((sequences_shape[0],) + tuple(sequences_shape[2:]))
            self.cell.built = True
        spec = self.input_spec
        if sequences_shape[-1] is not None and isinstance(spec, InputSpec):
            # The cell's weights fix the feature size: later calls are checked against it.
            self.input_spec = InputSpec(ndim=spec.ndim, min_ndim=spec.min_ndim,
                                        axes={-1: sequences_shape[-1]})
        self._build_states(tuple(sequences_shape))
        self.built = True

    def compute_output_shape(self, sequences_shape, initial_state_shape=None):
        batch, length = sequences_shape[0], sequences_shape[1]
        size = self._output_size()
        output = (batch, length, size) if self.return_sequences else (batch, size)
        if self.return_state:
            return [output] + list(self._nested([(batch, s) for s in self.state_size]))
        return output

    def _nested(self, flat):
        """States as the layer returns them: flat, or per cell for ``StackedRNNCells``
        (a list for a cell with several states), as Keras."""
        if isinstance(self.cell, StackedRNNCells):
            return self.cell.nest_states(flat)
        return flat

    def compute_output_spec(self, sequences, initial_state=None, mask=None, training=None):
        sizes = [self._output_size()] + self.state_size
        if not all(isinstance(s, int) for s in sizes):  # a custom cell: trace it
            kwargs = {"initial_state": initial_state, "mask": mask, "training": training}
            return shape_inference.infer_output_spec(
                self, (sequences,), {k: v for k, v in kwargs.items() if v is not None},
                self._output_spec_cache)
        shapes = self.compute_output_shape(tuple(sequences.shape))
        if self.return_state:
            output, *states = shapes
            states = [[KerasTensor(x, self.compute_dtype) for x in s] if isinstance(s, list)
                      else KerasTensor(s, self.compute_dtype) for s in states]
            return (KerasTensor(output, self.compute_dtype), *states)
        return KerasTensor(shapes, self.compute_dtype)

    def compute_mask(self, inputs, mask=None):
        if isinstance(mask, (list, tuple)):
            mask = mask[0] if mask else None
        output_mask = mask if self.return_sequences else None
        if self.return_state and output_mask is not None:
            return (output_mask,) + tuple(
                [None] * len(s) if isinstance(s, list) else None
                for s in self._nested([None] * len(self.state_size)))
        return output_mask

    # ------------------------------------------------------------------ call
    def _output_state(self) -> int:
        """Which of the flat states is the cell's previous output (what a masked step
        outputs): the first, or with stacked cells the last cell's first, as Keras."""
        if isinstance(self.cell, StackedRNNCells):
            return self.cell.output_state_index
        return 0

    def get_initial_state(self, batch_size):
        return [jnp.zeros((batch_size, d), self.compute_dtype) for d in self.state_size]

    def _state_shapes(self, batch_size) -> list:
        return [(batch_size, d) for d in self.state_size]

    def _initial_states(self, batch, initial_state):
        if initial_state is None:
            return self.get_initial_state(batch)
        states = (jax.tree_util.tree_leaves(list(initial_state))
                  if isinstance(initial_state, (list, tuple)) else [initial_state])
        if len(states) != len(self.state_size):
            raise ValueError(f'Layer "{self.name}" expects {len(self.state_size)} initial '
                             f"state(s), received {len(states)}.")
        return [jnp.asarray(s).astype(self.compute_dtype) for s in states]

    def call(self, sequences, initial_state=None, mask=None, training=False):
        if self.stateful:
            self._check_state_batch(sequences)
        if self.stateful and initial_state is None:
            states = self._stored_states()
        else:
            states = self._initial_states(sequences.shape[0], initial_state)
        if mask is not None:
            mask = jnp.asarray(mask).astype(bool)
        options = dict(go_backwards=self.go_backwards,
                       zero_output_for_mask=self.zero_output_for_mask,
                       return_sequences=self.return_sequences)
        cell = self.cell
        if isinstance(cell, _Cell):
            projected, weights, rec_masks = cell.sequence_inputs(sequences, training)
            output, final = _scan_builtin(weights, rec_masks, states, projected, mask,
                                          config=cell.step_config(), **options)
        else:
            def step(x_t, carry):
                output, new_states = cell(x_t, list(carry), training=training)
                if not isinstance(new_states, (list, tuple)):
                    new_states = [new_states]
                return output, list(new_states)

            if training:  # one mask per call, for every step (a DropoutRNNCell's)
                drawn_dropout_masks(cell, sequences[:, 0], states)
            try:
                output, final = _scan(step, states, sequences, mask,
                                      output_state=self._output_state(), **options)
            finally:
                forget_dropout_masks(cell)
        self._keep_states(sequences, states, final)
        dtype = self.compute_dtype
        output = output.astype(dtype)
        if self.return_state:
            return (output,) + tuple(self._nested([s.astype(dtype) for s in final]))
        return output

    # ---------------------------------------------------------------- config
    def get_config(self):
        return {**super().get_config(), "return_sequences": self.return_sequences,
                "return_state": self.return_state, "go_backwards": self.go_backwards,
                "stateful": self.stateful, "unroll": self.unroll,
                "zero_output_for_mask": self.zero_output_for_mask,
                "cell": serialize_layer(self.cell)}

    @classmethod
    def from_config(cls, config, custom_objects=None, safe_mode=True):
        config = dict(config)
        cell = deserialize_layer(config.pop("cell"), custom_objects, safe_mode)
        return cls(cell, **config)


def _cell_property(name):
    return property(lambda self: getattr(self.cell, name),
                    doc=f"The cell's ``{name}``.")


class _BuiltinRNN(RNN):
    """An RNN that makes its own cell from the layer's arguments (SimpleRNN, LSTM, GRU)."""

    _cell_class = None
    _cell_name = None

    def __init__(self, use_cudnn=None, **arguments):
        """``arguments``: the subclass's ``__init__`` arguments (``init_arguments``); the
        cell's go to the cell, the rest to ``RNN``. ``use_cudnn``: LSTM's and GRU's (None:
        the layer has none, as Keras's SimpleRNN)."""
        if use_cudnn not in (None, "auto", True, False):
            raise ValueError("Invalid valid received for argument `use_cudnn`. Expected one of "
                             f"{{'auto', True, False}}. Received: use_cudnn={use_cudnn}")
        cell_names = parameter_names(self._cell_class.__init__)
        cell_kwargs = {k: arguments.pop(k) for k in list(arguments) if k in cell_names}
        cell = self._cell_class(**cell_kwargs, dtype=arguments.get("dtype"),
                                trainable=arguments.get("trainable", True), name=self._cell_name)
        super().__init__(cell, **arguments)
        cell._weight_salt = self.name
        if use_cudnn is not None:
            self.use_cudnn = use_cudnn  # accepted for compatibility; there is no cuDNN path
        self.input_spec = InputSpec(ndim=3)

    units = _cell_property("units")
    activation = _cell_property("activation")
    use_bias = _cell_property("use_bias")
    kernel_initializer = _cell_property("kernel_initializer")
    recurrent_initializer = _cell_property("recurrent_initializer")
    bias_initializer = _cell_property("bias_initializer")
    kernel_regularizer = _cell_property("kernel_regularizer")
    recurrent_regularizer = _cell_property("recurrent_regularizer")
    bias_regularizer = _cell_property("bias_regularizer")
    kernel_constraint = _cell_property("kernel_constraint")
    recurrent_constraint = _cell_property("recurrent_constraint")
    bias_constraint = _cell_property("bias_constraint")
    dropout = _cell_property("dropout")
    recurrent_dropout = _cell_property("recurrent_dropout")
    seed = _cell_property("seed")

    def get_config(self):
        config = super().get_config()
        del config["cell"]
        cell_config = self.cell.get_config()
        for key in ("name", "trainable", "dtype", "activity_regularizer"):
            cell_config.pop(key, None)
        config.update(cell_config)
        config["activity_regularizer"] = regularizers.serialize(self.activity_regularizer)
        return config

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class SimpleRNN(_BuiltinRNN):
    """Fully-connected RNN: ``h_t = activation(x_t @ kernel + h_{t-1} @ recurrent_kernel + b)``.

    Weights (on the ``simple_rnn_cell`` sub-layer): ``kernel`` (in, units),
    ``recurrent_kernel`` (units, units), ``bias`` (units,).
    """

    _cell_class = SimpleRNNCell
    _cell_name = "simple_rnn_cell"

    def __init__(self, units, activation="tanh", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, return_sequences=False, return_state=False,
                 go_backwards=False, stateful=False, unroll=False, seed=None, **kwargs):
        super().__init__(**init_arguments(locals()))


class LSTM(_BuiltinRNN):
    """Long short-term memory (Hochreiter & Schmidhuber, 1997); states ``[h, c]``.

    Weights (on the ``lstm_cell`` sub-layer), gates in Keras's order ``i, f, c, o``:
    ``kernel`` (in, 4 units), ``recurrent_kernel`` (units, 4 units), ``bias`` (4 units,).
    """

    _cell_class = LSTMCell
    _cell_name = "lstm_cell"

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", unit_forget_bias=True, kernel_regularizer=None,
                 recurrent_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, recurrent_constraint=None, bias_constraint=None,
                 dropout=0.0, recurrent_dropout=0.0, seed=None, return_sequences=False,
                 return_state=False, go_backwards=False, stateful=False, unroll=False,
                 use_cudnn="auto", **kwargs):
        super().__init__(**init_arguments(locals()))

    recurrent_activation = _cell_property("recurrent_activation")
    unit_forget_bias = _cell_property("unit_forget_bias")


class GRU(_BuiltinRNN):
    """Gated recurrent unit (Cho et al., 2014); ``reset_after=True`` by default (Keras 3).

    Weights (on the ``gru_cell`` sub-layer), gates in Keras's order ``z, r, h``:
    ``kernel`` (in, 3 units), ``recurrent_kernel`` (units, 3 units), ``bias`` (2, 3 units)
    (input and recurrent biases) or (3 units,) with ``reset_after=False``.
    """

    _cell_class = GRUCell
    _cell_name = "gru_cell"

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, seed=None, return_sequences=False, return_state=False,
                 go_backwards=False, stateful=False, unroll=False, reset_after=True,
                 use_cudnn="auto", **kwargs):
        super().__init__(**init_arguments(locals()))

    recurrent_activation = _cell_property("recurrent_activation")
    reset_after = _cell_property("reset_after")
