"""Stateful recurrent layers (``stateful=True``), as Keras 3's ``RNN``.

A stateful layer keeps the final states of each call as the initial states of the next: the
state of sample ``i`` of a batch carries to sample ``i`` of the following batch, so the batch
size is fixed (the input's, static; another batch size is an error). The states are
non-trainable variables, ``layer.states``, made when the layer is built (named
``rnn_state``, ``rnn_state_1``, ...), zeroed by ``layer.reset_state()`` (``reset_states()``
too). As in Keras they are not weights: not in ``layer.weights``,
``non_trainable_weights``, ``get_weights()``, ``count_params()`` nor in ``.keras`` /
``.weights.h5`` files. They are part of a compiled program's ``state``, so
``compiler.compile(model).apply`` returns them updated, and ``predict``, ``evaluate`` and
``fit`` carry them from batch to batch and leave the last ones in the layer (rows of a
padded batch that are padding keep theirs).

>>> import numpy as np
>>> import kgraph as kg
>>> layer = kg.layers.SimpleRNN(2, stateful=True, kernel_initializer="ones")
>>> chunk = np.ones((1, 3, 1), "float32")
>>> first, second = layer(chunk), layer(chunk)   # the second starts where the first ended
>>> bool((first != second).any()), [tuple(s.shape) for s in layer.states]
(True, [(1, 2)])
>>> layer.reset_state()
>>> np.allclose(layer(chunk), first)
True
"""

from __future__ import annotations

import jax.numpy as jnp

from kgraph.interpreter import context

__all__ = ["StatefulRecurrence"]


class StatefulRecurrence:
    """The state handling of a recurrent layer with ``stateful`` (a base of ``RNN`` and the
    ConvLSTMs). The layer provides ``_state_shapes(batch_size)`` (one shape per state,
    flat) and ``_nested(flat)`` (the states in the structure the layer returns them)."""

    def _init_stateful(self, stateful) -> None:
        self.stateful = bool(stateful)
        self.states = None  # the state variables (Keras's ``states``), made by build
        self._state_variables: list = []

    def _build_states(self, sequences_shape) -> None:
        """Make the state variables for the batch size of ``sequences_shape`` (Keras:
        building again zeroes them)."""
        if not self.stateful:
            return
        if self._state_variables:
            self.reset_state()
            return
        batch_size = sequences_shape[0]
        if batch_size is None:
            raise ValueError(
                f'Layer "{self.name}" ({type(self).__name__}): when using `stateful=True` in '
                "a RNN, the batch size must be static. Found dynamic batch size: "
                f"sequence.shape={tuple(sequences_shape)}. Give the input a batch size, e.g. "
                "Input(batch_shape=(2, steps, features)).")
        flat = [self.add_weight(shape=shape, initializer="zeros", trainable=False,
                                name="rnn_state" if i == 0 else f"rnn_state_{i}")
                for i, shape in enumerate(self._state_shapes(int(batch_size)))]
        self._state_variables = flat
        self.states = self._nested(list(flat))

    def _stored_states(self) -> list:
        """The kept states, as a call's initial states."""
        return [v.value.astype(self.compute_dtype) for v in self._state_variables]

    def _check_state_batch(self, sequences) -> None:
        """A stateful layer's input must have the batch size of its states."""
        if not self._state_variables:
            return
        expected = self._state_variables[0].shape[0]
        received = sequences.shape[0]
        if received != expected:
            raise ValueError(
                f'Layer "{self.name}" ({type(self).__name__}): if an RNN is stateful, the '
                "batch size of the input sequences must be the same as the batch size of the "
                f"initial state.\n- Expected batch size: {expected}\n- Received batch size: "
                f"{received}")

    def _keep_states(self, sequences, initial, final) -> None:
        """Keep ``final`` for the next call; rows the call context marks as padding keep
        ``initial``'s (``kgraph.interpreter.context.sample_mask_for``)."""
        if not self.stateful:
            return
        rows = context.sample_mask_for(sequences)
        for variable, start, end in zip(self._state_variables, initial, final):
            if rows is not None:
                end = jnp.where(context.row_mask(rows, end), end, start.astype(end.dtype))
            variable.assign(end)

    def reset_state(self) -> None:
        """Zero the kept states (Keras's ``reset_state``); nothing to do if not stateful."""
        for variable in self._state_variables:
            variable.assign(jnp.zeros(variable.shape, variable.dtype))

    def reset_states(self) -> None:
        """Keras's other name for ``reset_state``."""
        self.reset_state()

    # As Keras's: the states are variables of the layer, not weights (not listed, not saved).
    def _listed_variables(self) -> list:
        return [v for v in super()._listed_variables() if not self._is_state(v)]

    def _keras_ordered_variables(self) -> list:
        return [v for v in super()._keras_ordered_variables() if not self._is_state(v)]

    def _is_state(self, variable) -> bool:
        return any(variable is v for v in self.__dict__.get("_state_variables", ()))
