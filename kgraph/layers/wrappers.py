"""Layer wrappers: ``Bidirectional`` (an RNN both ways) and ``TimeDistributed``.

Both hold their inner layers as tracked sub-layers, so the inner weights nest in the
params pytree (``bidirectional/forward_lstm/lstm_cell/kernel``) and ``get_weights()`` lists
them in Keras's order. ``get_config`` serializes inner layers as
``{"class_name": ..., "config": ...}`` through ``kgraph.saving``; ``from_config`` takes
``custom_objects`` and ``safe_mode`` and applies them to the inner layers too.

>>> import kgraph as kg
>>> x = kg.Input(shape=(5, 3))
>>> kg.layers.Bidirectional(kg.layers.LSTM(4, return_sequences=True))(x).shape
(None, 5, 8)
>>> kg.layers.TimeDistributed(kg.layers.Dense(2))(x).shape
(None, 5, 2)
"""

from __future__ import annotations

import copy
import types

import jax
import jax.numpy as jnp

from kgraph import saving
from kgraph.base import call_args
from kgraph.base.input_spec import InputSpec, assert_input_compatibility
from kgraph.base.layer import Layer
from kgraph.graph.keras_tensor import KerasTensor
from kgraph.interpreter import context

__all__ = [
    "Bidirectional", "TimeDistributed", "Wrapper", "deserialize_layer", "serialize_layer"
]


# ----------------------------------------------------------------- serialization
def serialize_layer(layer) -> dict:
    """``{"class_name": ..., "config": ...}`` for an inner layer (``kgraph.saving``'s form)."""
    return saving.serialize_layer(layer)


def deserialize_layer(config, custom_objects=None, safe_mode=True):
    """The inner layer ``serialize_layer`` described, resolved and checked as a top-level
    layer is: classes from kgraph, ``register_layer`` or ``custom_objects``; code-carrying
    layers (``Lambda``) refused under ``safe_mode``."""
    if isinstance(config, Layer):
        return config
    return saving.deserialize_layer(config, custom_objects=custom_objects, safe_mode=safe_mode)


def _clone(layer, **overrides):
    """A fresh layer of the same class and config, with ``overrides`` applied.

    The classes of ``layer`` and its sub-layers (e.g. a custom RNN cell) resolve as
    themselves, registered or not: the config comes from this process, not from a file.
    """
    classes, pending = {}, [layer]
    while pending:
        current = pending.pop()
        classes[type(current).__name__] = type(current)
        pending.extend(getattr(current, "_tracked_layers", list)())
    config = {**copy.deepcopy(layer.get_config()), **overrides}
    return saving.call_from_config(type(layer), config, custom_objects=classes, safe_mode=False)


def _check_rank(layer, shape):
    assert_input_compatibility(layer.input_spec, [types.SimpleNamespace(shape=tuple(shape))],
                               layer.name)


# --------------------------------------------------------------------- Bidirectional
_MERGE_MODES = ("sum", "mul", "ave", "concat", None)


class Bidirectional(Layer):
    """Run a recurrent layer forwards and backwards and merge the two outputs.

    Args:
      layer: an RNN layer (``LSTM``, ``GRU``, ``SimpleRNN``, ``RNN``); it is cloned into
        ``forward_<name>`` and (with ``go_backwards=True``) ``backward_<name>``.
      merge_mode: ``"concat"`` (default), ``"sum"``, ``"mul"``, ``"ave"`` or None (return
        both outputs as a tuple).
      weights: optional initial weights (forward's then backward's), set at build.
      backward_layer: an explicit backward layer (must have ``go_backwards=True``).

    With ``return_state`` the output is ``(output, *forward_states, *backward_states)``;
    with ``return_sequences`` the backward output is flipped back to input time order.
    """

    supports_masking = True

    def __init__(self, layer, merge_mode="concat", weights=None, backward_layer=None, **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError("Please initialize `Bidirectional` layer with a `Layer` "
                             f"instance. Received: {layer}")
        if not hasattr(layer, "go_backwards") or not hasattr(layer, "return_sequences"):
            raise ValueError(f"Bidirectional needs a recurrent layer (with `go_backwards` and "
                             f"`return_sequences`, e.g. LSTM), received {type(layer).__name__} "
                             f'"{layer.name}".')
        if backward_layer is not None and not isinstance(backward_layer, Layer):
            raise ValueError("`backward_layer` need to be a `Layer` instance. "
                             f"Received: {backward_layer}")
        if merge_mode not in _MERGE_MODES:
            raise ValueError(f"Invalid merge mode. Received: {merge_mode}. Merge mode should be "
                             'one of {"sum", "mul", "ave", "concat", None}')
        super().__init__(**kwargs)
        self.forward_layer = _clone(layer, name="forward_" + layer.name.removeprefix("forward_"))
        if backward_layer is None:
            backward_layer = _clone(layer, go_backwards=True,
                                    name="backward_" + layer.name.removeprefix("backward_"))
        self.backward_layer = backward_layer
        if hasattr(layer, "use_cudnn"):  # not in the config: kept as Keras keeps it
            self.forward_layer.use_cudnn = self.backward_layer.use_cudnn = layer.use_cudnn
        self._verify_layer_config()
        for sub in (self.forward_layer, self.backward_layer):
            if getattr(sub, "zero_output_for_mask", None) is not None:
                sub.zero_output_for_mask = sub.return_sequences
        self.merge_mode = merge_mode
        self._initial_weights = weights
        self.stateful = layer.stateful
        self.return_sequences = layer.return_sequences
        self.return_state = layer.return_state
        self.input_spec = layer.input_spec

    def _verify_layer_config(self):
        fwd, bwd = self.forward_layer, self.backward_layer
        if fwd.go_backwards == bwd.go_backwards:
            raise ValueError("Forward layer and backward layer should have different "
                             f"`go_backwards` value. Received: forward_layer.go_backwards "
                             f"{fwd.go_backwards}, backward_layer.go_backwards="
                             f"{bwd.go_backwards}")
        for attr in ("stateful", "return_sequences", "return_state"):
            if getattr(fwd, attr) != getattr(bwd, attr):
                raise ValueError("Forward layer and backward layer are expected to have the "
                                 f'same value for attribute "{attr}", got '
                                 f'"{getattr(fwd, attr)}" for forward layer and '
                                 f'"{getattr(bwd, attr)}" for backward layer')

    def build(self, sequences_shape, initial_state_shape=None):
        _check_rank(self, sequences_shape)
        for sub in (self.forward_layer, self.backward_layer):
            if not sub.built:
                sub.build(tuple(sequences_shape))
                sub.built = True
        if self._initial_weights is not None:
            self.set_weights(self._initial_weights)
            self._initial_weights = None
        self.built = True

    def reset_state(self):
        """Zero both directions' kept states (a wrapped ``stateful`` layer's)."""
        if not self.stateful:
            raise AttributeError(f'Layer "{self.name}" (Bidirectional) must be stateful: its '
                                 f"layer was made with stateful=False.")
        self.forward_layer.reset_state()
        self.backward_layer.reset_state()

    def reset_states(self):
        """Keras's other name for ``reset_state``."""
        self.reset_state()

    @property
    def states(self):
        """Both directions' state variables (forward's, then backward's), or None."""
        forward = getattr(self.forward_layer, "states", None)
        backward = getattr(self.backward_layer, "states", None)
        return tuple(forward + backward) if forward and backward else None

    def _merge(self, y, y_rev):
        if self.merge_mode == "concat":
            return jnp.concatenate([y, y_rev], axis=-1)
        if self.merge_mode == "sum":
            return y + y_rev
        if self.merge_mode == "ave":
            return (y + y_rev) / 2
        if self.merge_mode == "mul":
            return y * y_rev
        return (y, y_rev)

    def call(self, sequences, initial_state=None, mask=None, training=None):
        kwargs = {"training": training}
        if mask is not None:
            kwargs["mask"] = mask
        forward_state = backward_state = None
        if initial_state is not None:
            half = len(initial_state) // 2
            forward_state, backward_state = initial_state[:half], initial_state[half:]
        y = self.forward_layer(sequences, initial_state=forward_state, **kwargs)
        y_rev = self.backward_layer(sequences, initial_state=backward_state, **kwargs)
        states = ()
        if self.return_state:
            states = tuple(y[1:]) + tuple(y_rev[1:])
            y, y_rev = y[0], y_rev[0]
        y, y_rev = y.astype(self.compute_dtype), y_rev.astype(self.compute_dtype)
        if self.return_sequences:
            y_rev = jnp.flip(y_rev, axis=1)
        output = self._merge(y, y_rev)
        if self.return_state:
            return (output if self.merge_mode is None else (output,)) + states
        return output

    def compute_output_spec(self, sequences, initial_state=None, mask=None, training=None):
        def fresh(t, dtype=None):
            return KerasTensor(t.shape, t.dtype if dtype is None else dtype)

        forward = self.forward_layer.compute_output_spec(sequences)
        backward = self.backward_layer.compute_output_spec(sequences)
        states = ()
        if self.return_state:
            states = tuple(fresh(s) for s in tuple(forward[1:]) + tuple(backward[1:]))
            forward = forward[0]
        dtype = self.compute_dtype
        if self.merge_mode == "concat":
            backward = backward[0] if self.return_state else backward
            output = KerasTensor(forward.shape[:-1] + (_add(forward.shape[-1],
                                                            backward.shape[-1]),), dtype)
        elif self.merge_mode is None:
            output = (fresh(forward, dtype), fresh(forward, dtype))
        else:
            output = fresh(forward, dtype)
        if self.return_state:
            return (output if self.merge_mode is None else (output,)) + states
        return output

    def compute_output_shape(self, sequences_shape, initial_state_shape=None):
        spec = self.compute_output_spec(KerasTensor(tuple(sequences_shape), self.compute_dtype))
        if isinstance(spec, KerasTensor):
            return spec.shape
        return tuple(t.shape if isinstance(t, KerasTensor) else tuple(x.shape for x in t)
                     for t in spec)

    def compute_mask(self, inputs, mask=None):
        if isinstance(mask, (list, tuple)):
            mask = mask[0] if mask else None
        output_mask = mask if self.return_sequences else None
        if output_mask is None:
            return None
        output_masks = (output_mask, output_mask) if self.merge_mode is None else output_mask
        if self.return_state:
            count = (len(getattr(self.forward_layer, "state_size", ()))
                     + len(getattr(self.backward_layer, "state_size", ())))
            prefix = output_masks if self.merge_mode is None else (output_masks,)
            return prefix + (None,) * count
        return output_masks

    def get_config(self):
        return {**super().get_config(), "merge_mode": self.merge_mode,
                "layer": serialize_layer(self.forward_layer),
                "backward_layer": serialize_layer(self.backward_layer)}

    @classmethod
    def from_config(cls, config, custom_objects=None, safe_mode=True):
        config = copy.deepcopy(config)
        config["layer"] = deserialize_layer(config["layer"], custom_objects, safe_mode)
        backward = config.pop("backward_layer", None)
        if backward is not None:
            config["backward_layer"] = deserialize_layer(backward, custom_objects, safe_mode)
        return cls(**config)


def _add(a, b):
    return None if a is None or b is None else a + b


# --------------------------------------------------------------------- TimeDistributed
class Wrapper(Layer):
    """Base class of layers that wrap another (Keras's ``layers.Wrapper``): holds ``layer``
    as a tracked sub-layer (its weights nest under the wrapper's), builds it on first use,
    and writes it into the config. Subclass it and define ``call``.

    >>> import kgraph as kg, jax.numpy as jnp
    >>> class Doubled(kg.layers.Wrapper):
    ...     def call(self, x):
    ...         return 2 * self.layer(x)
    >>> layer = Doubled(kg.layers.Dense(3, kernel_initializer="ones"))
    >>> layer(jnp.ones((1, 2))).tolist(), [w.name for w in layer.weights]
    ([[4.0, 4.0, 4.0]], ['kernel', 'bias'])
    """

    def __init__(self, layer, **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError(f"Layer {layer} supplied to Wrapper isn't a supported layer "
                             "type. Please ensure wrapped layer is a valid Keras layer.")
        super().__init__(**kwargs)
        self.layer = layer

    def build(self, input_shape=None):
        if not self.layer.built:
            self.layer.build(input_shape)
            self.layer.built = True
        self.built = True

    def get_config(self):
        return {**super().get_config(), "layer": serialize_layer(self.layer)}

    @classmethod
    def from_config(cls, config, custom_objects=None, safe_mode=True):
        config = dict(config)
        layer = deserialize_layer(config.pop("layer"), custom_objects, safe_mode)
        return cls(layer, **config)


class TimeDistributed(Wrapper):
    """Apply ``layer`` to every time step (axis 1) of its input.

    The time axis is folded into the batch axis (one call of ``layer`` on
    ``(batch * time, ...)``) and unfolded afterwards; a (batch, time) mask is folded the
    same way for inner layers that take ``mask`` (and the call context's ``sample_mask``,
    so padding rows stay out of an inner layer's batch statistics), and passes through to
    the output.
    """

    supports_masking = True

    def __init__(self, layer, **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError("Please initialize `TimeDistributed` layer with a `Layer` "
                             f"instance. Received: {layer}")
        super().__init__(layer, **kwargs)
        self.input_spec = InputSpec(min_ndim=3)

    def _child_input_shape(self, input_shape):
        if not isinstance(input_shape, (tuple, list)) or len(input_shape) < 3 or not all(
                d is None or isinstance(d, int) for d in input_shape):
            raise ValueError(f'Layer "{self.name}": `TimeDistributed` Layer should be passed an '
                             "`input_shape` with at least 3 dimensions, received: "
                             f"{input_shape}")
        return (input_shape[0], *input_shape[2:])

    def build(self, input_shape):
        child = self._child_input_shape(input_shape)
        if not self.layer.built:
            self.layer.build(child)
            self.layer.built = True
        self.built = True

    def compute_output_shape(self, input_shape):
        child = self.layer.compute_output_shape(self._child_input_shape(input_shape))
        return (child[0], input_shape[1], *child[1:])

    def compute_output_spec(self, inputs, training=None, mask=None):
        shape = tuple(inputs.shape)
        child = KerasTensor(self._child_input_shape(shape), self._cast_dtype(inputs.dtype))
        out = self.layer.compute_output_spec(child)
        return jax.tree_util.tree_map(
            lambda t: KerasTensor((t.shape[0], shape[1], *t.shape[1:]), t.dtype), out,
            is_leaf=lambda t: isinstance(t, KerasTensor))

    def call(self, inputs, training=None, mask=None):
        batch, time = inputs.shape[0], inputs.shape[1]
        kwargs = {"training": training}
        if mask is not None:
            if mask.ndim < 2 or mask.shape[:2] != inputs.shape[:2]:
                raise ValueError(f'Layer "{self.name}": The `mask` passed to the '
                                 f"`TimeDistributed` layer has a shape {mask.shape} "
                                 f"incompatible with the input shape {inputs.shape}: its first "
                                 "two dimensions (batch size and timesteps) must match the "
                                 "input's.")
            if "mask" in call_args.call_parameters(type(self.layer))[0]:
                kwargs["mask"] = jnp.reshape(mask, (-1, *mask.shape[2:]))
        rows = context.sample_mask_for(inputs)
        folded_rows = None if rows is None else jnp.repeat(rows, time)
        with context.sample_mask_scope(folded_rows):
            outputs = self.layer(jnp.reshape(inputs, (-1, *inputs.shape[2:])), **kwargs)
        return jax.tree_util.tree_map(
            lambda y: jnp.reshape(y, (batch, time, *y.shape[1:])), outputs)
