"""``ConvLSTM1D`` / ``ConvLSTM2D`` / ``ConvLSTM3D``: LSTMs whose gates are convolutions
(Keras 3's arguments, weights and numbers).

Inputs are ``(batch, time, *spatial, channels)`` (``channels_last``) or
``(batch, time, channels, *spatial)``; the states ``h`` and ``c`` are images of
``filters`` channels. Weights (on the ``conv_lstm_cell`` sub-layer): ``kernel``
``(*kernel_size, in, 4 * filters)``, ``recurrent_kernel`` ``(*kernel_size, filters,
4 * filters)``, ``bias`` ``(4 * filters,)``, gates in Keras's order ``i, f, c, o``.
``stateful=True`` keeps the final states between calls, as ``LSTM``'s
(``kgraph.layers.rnn_state``).

>>> import jax.numpy as jnp
>>> layer = ConvLSTM2D(4, 3, padding="same", return_sequences=True)
>>> layer(jnp.ones((2, 5, 8, 8, 3))).shape
(2, 5, 8, 8, 4)
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from kgraph import activations
from kgraph.base.input_spec import InputSpec
from kgraph.base.layer import Layer
from kgraph.base.seed_generator import SeedGenerator
from kgraph.layers import arg_checks, weight_args as wa
from kgraph.ops import conv_utils as cu
from kgraph.layers.recurrent import _cell_property, _scan
from kgraph.layers.rnn_cells import _cell_initializer, init_arguments, parameter_names
from kgraph.layers.rnn_state import StatefulRecurrence

__all__ = ["ConvLSTM", "ConvLSTM1D", "ConvLSTM2D", "ConvLSTM3D", "ConvLSTMCell"]


class ConvLSTMCell(Layer):
    """One ConvLSTM step: ``(x_t, [h, c]) -> (h, [h, c])`` (Keras's ``ConvLSTMCell``)."""

    def __init__(self, rank, filters, kernel_size, strides=1, padding="valid",
                 data_format=None, dilation_rate=1, activation="tanh",
                 recurrent_activation="sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", unit_forget_bias=True, kernel_regularizer=None,
                 recurrent_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, seed=None, salt=None, **kwargs):
        super().__init__(**kwargs)
        owner = f'Layer "{self.name}" (ConvLSTM{rank}D)'
        self.rank = rank
        self.filters = cu.positive_int("filters", filters)
        self.kernel_size = cu.standardize_tuple(kernel_size, rank, "kernel_size")
        self.strides = cu.standardize_tuple(strides, rank, "strides")
        self.padding = cu.standardize_padding(padding)
        self.data_format = cu.standardize_data_format(data_format)
        self.dilation_rate = cu.standardize_tuple(dilation_rate, rank, "dilation_rate")
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(f"{owner}: Specifying `strides > 1` is not compatible with "
                             f"`dilation_rate > 1`. Received: strides={self.strides} and "
                             f"dilation_rate={self.dilation_rate}")
        self.activation = activations.get(activation)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.use_bias = bool(use_bias)
        self.unit_forget_bias = bool(unit_forget_bias)
        wa.set_weight_args(self, "kernel", kernel_initializer, kernel_regularizer,
                           kernel_constraint)
        wa.set_weight_args(self, "recurrent", recurrent_initializer, recurrent_regularizer,
                           recurrent_constraint)
        wa.set_weight_args(self, "bias", bias_initializer, bias_regularizer, bias_constraint)
        for name, rate in (("dropout", dropout), ("recurrent_dropout", recurrent_dropout)):
            arg_checks.number(owner, name, rate, low=0, high=1)
        self.dropout, self.recurrent_dropout = float(dropout), float(recurrent_dropout)
        self.seed = seed
        self.seed_generator = SeedGenerator(seed)  # the dropout masks' keys, as Keras's
        self._salt = salt

    def build(self, frame_shape):
        channels = frame_shape[cu.channel_axis(self.data_format)]
        if channels is None:
            raise ValueError(f'Layer "{self.name}": the channel dimension of the inputs should '
                             f"be defined. Full input shape received: {tuple(frame_shape)}")
        f4, salt = 4 * self.filters, self._salt
        self.kernel = wa.add_weight(self, "kernel", (*self.kernel_size, channels, f4),
                                    _cell_initializer(self.kernel_initializer, salt))
        self.recurrent_kernel = wa.add_weight(
            self, "recurrent", (*self.kernel_size, self.filters, f4),
            _cell_initializer(self.recurrent_initializer, salt), name="recurrent_kernel")
        if self.use_bias:
            base = _cell_initializer(self.bias_initializer, salt)
            filters, forget = self.filters, self.unit_forget_bias

            def bias_init(key, shape, dtype="float32"):
                if not forget:
                    return base(key, shape, dtype)
                return jnp.concatenate([base(key, (filters,), dtype), jnp.ones((filters,), dtype),
                                        base(key, (2 * filters,), dtype)])

            self.bias = wa.add_weight(self, "bias", (f4,), bias_init)
        self.built = True

    def _conv(self, x, kernel, strides, padding, dilation):
        return jax.lax.conv_general_dilated(
            x, kernel.astype(x.dtype), strides, padding.upper(), rhs_dilation=dilation,
            dimension_numbers=cu.conv_dimension_numbers(self.rank, self.data_format))

    def state_shape(self, frame_shape) -> tuple:
        spatial = [frame_shape[a] for a in cu.spatial_axes(self.rank, self.data_format)]
        lengths = [cu.conv_output_length(n, k, s, self.padding, d) for n, k, s, d in zip(
            spatial, self.kernel_size, self.strides, self.dilation_rate)]
        if self.data_format == "channels_last":
            return (frame_shape[0], *lengths, self.filters)
        return (frame_shape[0], self.filters, *lengths)

    def masks(self, training, frame_shape, state_shape, dtype):
        """Per-gate dropout masks for the inputs and the hidden state (None if unused)."""
        def make(index, rate, shape):
            if not (training and 0.0 < rate < 1.0):
                return None
            key = self.seed_generator.next()
            keep = jax.random.bernoulli(jax.random.fold_in(key, index), 1.0 - rate,
                                        (4, *shape))
            return keep.astype(dtype) / (1.0 - rate)

        return (make(0, self.dropout, frame_shape),
                make(1, self.recurrent_dropout, state_shape))

    def step(self, x_t, states, masks=(None, None)):
        h, c = states
        axis = self.rank + 1
        kernels = jnp.split(self.kernel, 4, axis=axis)
        recurrent = jnp.split(self.recurrent_kernel, 4, axis=axis)
        biases = jnp.split(self.bias, 4) if self.use_bias else (None,) * 4
        channel = cu.channel_axis(self.data_format)
        gates = []
        for g in range(4):
            x_g = x_t if masks[0] is None else x_t * masks[0][g]
            h_g = h if masks[1] is None else h * masks[1][g]
            z = self._conv(x_g, kernels[g], self.strides, self.padding, self.dilation_rate)
            if biases[g] is not None:
                shape = [1] * z.ndim
                shape[channel] = self.filters
                z = z + biases[g].astype(z.dtype).reshape(shape)
            gates.append(z + self._conv(h_g, recurrent[g], (1,) * self.rank, "same",
                                        (1,) * self.rank))
        i = self.recurrent_activation(gates[0])
        f = self.recurrent_activation(gates[1])
        c = f * c + i * self.activation(gates[2])
        o = self.recurrent_activation(gates[3])
        h = o * self.activation(c)
        return h, [h, c]

    def call(self, inputs, states, training=False):
        masks = self.masks(training, inputs.shape, states[0].shape, inputs.dtype)
        return self.step(inputs, list(states), masks)


class _ConvLSTM(StatefulRecurrence, Layer):
    """The recurrent layer: runs ``ConvLSTMCell`` over the time axis."""

    rank = None
    supports_masking = True

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None,
                 dilation_rate=1, activation="tanh", recurrent_activation="sigmoid",
                 use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros",
                 unit_forget_bias=True, kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, seed=None, return_sequences=False, return_state=False,
                 go_backwards=False, stateful=False, unroll=False, zero_output_for_mask=False,
                 **kwargs):
        arguments = init_arguments(locals())
        cell_names = parameter_names(ConvLSTMCell.__init__) - {"rank", "salt", "filters",
                                                                 "kernel_size"}
        cell_kwargs = {k: arguments.pop(k) for k in list(arguments) if k in cell_names}
        for key in ("filters", "kernel_size", "return_sequences", "return_state",
                    "go_backwards", "stateful", "unroll", "zero_output_for_mask"):
            arguments.pop(key, None)
        super().__init__(**arguments)
        self.cell = ConvLSTMCell(self.rank, filters, kernel_size, **cell_kwargs,
                                  dtype=arguments.get("dtype"), salt=self.name,
                                  name="conv_lstm_cell")
        self.return_sequences = bool(return_sequences)
        self.return_state = bool(return_state)
        self.go_backwards = bool(go_backwards)
        self._init_stateful(stateful)  # see kgraph.layers.rnn_state
        self.unroll = bool(unroll)  # accepted as Keras; the loop is always a lax.scan
        self.zero_output_for_mask = bool(zero_output_for_mask)
        self.input_spec = InputSpec(ndim=self.rank + 3)

    filters = _cell_property("filters")
    kernel_size = _cell_property("kernel_size")
    strides = _cell_property("strides")
    padding = _cell_property("padding")
    data_format = _cell_property("data_format")
    dilation_rate = _cell_property("dilation_rate")
    activation = _cell_property("activation")
    recurrent_activation = _cell_property("recurrent_activation")
    use_bias = _cell_property("use_bias")
    dropout = _cell_property("dropout")
    recurrent_dropout = _cell_property("recurrent_dropout")

    def build(self, sequences_shape, initial_state_shape=None):
        input_shape = tuple(sequences_shape)
        frame = (input_shape[0], *input_shape[2:])
        if any(d is None for d in input_shape[2:]):
            raise ValueError(f'Layer "{self.name}" ({type(self).__name__}) only supports static '
                             "input shapes for the spatial dimensions. Received invalid input "
                             f"shape: input_shape={tuple(input_shape)}")
        if not self.cell.built:
            self.cell.build(frame)
        self._frame_shape = tuple(input_shape[2:])
        self._build_states(input_shape)
        self.built = True

    def _state_shapes(self, batch_size) -> list:
        return [self.cell.state_shape((batch_size, *self._frame_shape))] * 2

    def _nested(self, flat):
        return flat

    def compute_mask(self, inputs, mask=None):
        """The time steps' mask goes on with the sequences (none on a last output or states)."""
        if isinstance(mask, (list, tuple)):
            mask = mask[0] if mask else None
        output_mask = mask if self.return_sequences else None
        return [output_mask, None, None] if self.return_state else output_mask

    def compute_output_shape(self, sequences_shape, initial_state_shape=None):
        input_shape = tuple(sequences_shape)
        state = self.cell.state_shape((input_shape[0], *input_shape[2:]))
        output = (state[0], input_shape[1], *state[1:]) if self.return_sequences else state
        return [output, state, state] if self.return_state else output

    def call(self, sequences, initial_state=None, mask=None, training=False):
        inputs = sequences
        frame_shape = (inputs.shape[0], *inputs.shape[2:])
        state_shape = self.cell.state_shape(frame_shape)
        if self.stateful:
            self._check_state_batch(inputs)
        if self.stateful and initial_state is None:
            states = self._stored_states()
        elif initial_state is None:
            states = [jnp.zeros(state_shape, self.compute_dtype)] * 2
        else:
            states = [jnp.asarray(s, self.compute_dtype) for s in initial_state]
        masks = self.cell.masks(training, frame_shape, state_shape, inputs.dtype)
        if mask is not None:
            mask = jnp.asarray(mask).astype(bool)
        output, final = _scan(lambda x_t, carry: self.cell.step(x_t, carry, masks), states,
                              inputs, mask, go_backwards=self.go_backwards,
                              zero_output_for_mask=self.zero_output_for_mask,
                              return_sequences=self.return_sequences)
        self._keep_states(inputs, states, final)
        if self.return_state:
            return (output, *final)
        return output

    def get_config(self):
        cell = self.cell
        config = {**super().get_config(), "filters": cell.filters,
                  "kernel_size": cell.kernel_size, "strides": cell.strides,
                  "padding": cell.padding, "data_format": cell.data_format,
                  "dilation_rate": cell.dilation_rate,
                  "activation": activations.serialize(cell.activation),
                  "recurrent_activation": activations.serialize(cell.recurrent_activation),
                  "use_bias": cell.use_bias, "unit_forget_bias": cell.unit_forget_bias,
                  **wa.weight_config(cell, "kernel", "recurrent", "bias", strict=False),
                  "dropout": cell.dropout, "recurrent_dropout": cell.recurrent_dropout,
                  "seed": cell.seed, "return_sequences": self.return_sequences,
                  "return_state": self.return_state, "go_backwards": self.go_backwards,
                  "stateful": self.stateful, "unroll": self.unroll,
                  "zero_output_for_mask": self.zero_output_for_mask}
        return config


class ConvLSTM(_ConvLSTM):
    """Keras's ConvLSTM of any ``rank`` (1, 2 or 3 spatial axes), the base of
    ``ConvLSTM1D``/``2D``/``3D``, which fix it."""

    def __init__(self, rank, filters, kernel_size, **kwargs):
        if rank not in (1, 2, 3):
            raise ValueError(f"ConvLSTM: rank must be 1, 2 or 3. Received: rank={rank!r}")
        self.__dict__["rank"] = rank  # read as the layer is made
        super().__init__(filters, kernel_size, **kwargs)

    def get_config(self):
        return {**super().get_config(), "rank": self.rank}


class ConvLSTM1D(_ConvLSTM):
    """A ConvLSTM over ``(batch, time, steps, channels)`` sequences."""

    rank = 1


class ConvLSTM2D(_ConvLSTM):
    """A ConvLSTM over ``(batch, time, rows, cols, channels)`` sequences (video frames)."""

    rank = 2


class ConvLSTM3D(_ConvLSTM):
    """A ConvLSTM over ``(batch, time, depth, rows, cols, channels)`` sequences."""

    rank = 3
