"""``Layer``: the unit users write, called on KerasTensors (graph) or arrays (eager).

A layer author writes ``__init__``, ``build(input_shape)`` (create weights with
``add_weight``) and ``call(inputs, training=None)``; weights are read in ``call`` as
attributes, e.g. ``self.w``, as Keras's variables that are arrays too (``VariableValue``), so
any ``jax.numpy`` code works.
Assigning an array to a non-trainable weight attribute inside ``call`` (e.g.
``self.moving_mean = new``) updates it: in place when eager, into the new ``state`` when
run by ``compiler``'s pure ``apply``. Random layers call ``self.random_key()``.

>>> import jax, jax.numpy as jnp
>>> class SimpleDense(Layer):
...     def __init__(self, units=32):
...         super().__init__()
...         self.units = units
...     def build(self, input_shape):
...         self.w = self.add_weight(shape=(input_shape[-1], self.units),
...                                  initializer="random_normal", trainable=True)
...         self.b = self.add_weight(shape=(self.units,), initializer="random_normal",
...                                  trainable=True)
...     def call(self, inputs):
...         return jnp.matmul(inputs, self.w) + self.b
>>> SimpleDense(4)(jnp.ones((2, 2))).shape
(2, 4)
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import sys
import warnings

import jax
import jax.numpy as jnp

from kgraph import constraints, dtype_policy, initializers, regularizers
from kgraph.base import (call_args, catalog, initial_values, naming, remat_scope, seed_stream,
                         shape_inference, tracking)
from kgraph.base.name_scope import name_scope
from kgraph.base.memory import check_allocatable
from kgraph.base.auto_config import LayerConfig
from kgraph.base.call_context_args import CallContextArgs, resolve as resolve_context_args
from kgraph.base.input_spec import assert_input_compatibility
from kgraph.base.keras_internals import KerasInternals
from kgraph.base.layer_calls import LayerCalls
from kgraph.base.layer_losses import LayerLosses
from kgraph.base.layer_surface import LayerSurface
from kgraph.base.variable_lists import VariableLists
from kgraph.base.weight_protocol import WeightProtocol
from kgraph.base.variable_value import VariableValue
from kgraph.base.variables import Variable, checked_weight_shape, positional_weight_arguments
from kgraph.graph.keras_tensor import any_keras_tensor
from kgraph.graph.node import Node
from kgraph.interpreter import context, masking

__all__ = ["Layer", "trainability_changes"]


# the folders of the packages whose layers read weights as arrays (``Layer.__getattr__``)
_ROOT = pathlib.Path(__file__).absolute().parents[2]
_OWN_PACKAGES = tuple(f"{_ROOT / package}{os.sep}" for package in ("kgraph", "compiler", "runtime"))


def _reader_file() -> str:
    """The file of the code reading a weight attribute: the caller of ``Layer.__getattr__``,
    past the ``__getattr__`` of mixins (``Quantizable``, ``LoRA``) that delegate to it."""
    frame = sys._getframe(2)
    while (frame.f_code.co_name == "__getattr__" and frame.f_back is not None
           and frame.f_code.co_filename.startswith(_OWN_PACKAGES)):
        frame = frame.f_back
    return frame.f_code.co_filename



_shapes = call_args.shape_of


_trainability_changes = 0


def trainability_changes() -> int:
    """How many times any layer's ``trainable`` was set in this process: a training loop
    compares it between steps to notice, for free, a layer frozen or unfrozen meanwhile."""
    return _trainability_changes


class Layer(LayerConfig, LayerCalls, KerasInternals, LayerSurface, WeightProtocol,
            VariableLists, CallContextArgs, LayerLosses):
    """Base class of all layers.

    Args:
      name: unique name (auto: snake_case of the class, then ``_1``, ``_2``...).
      trainable: whether the layer's trainable weights are trained.
      dtype: a dtype or policy name: ``"float32"`` (default), ``"bfloat16"``, or
        ``"mixed_bfloat16"`` (float32 weights, bfloat16 compute); see ``kgraph.dtype_policy``.
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if catalog.is_builtin_definition(cls):  # kgraph's own classes register themselves
            catalog.add_builtin(cls)

    _remat_mode = None  # the RematScope the layer was made in, if any
    #: As Keras's layers that call ``_build_at_init``: built when made (nothing to build),
    #: unless a subclass defines ``build``.
    _builds_at_init = False
    #: Cast floating inputs and weights to ``compute_dtype`` in ``__call__`` / ``call``.
    autocast = True
    #: Pass an input mask through unchanged (see ``compute_mask``).
    supports_masking = False
    #: Whether ``call``'s positional arguments after the first may be other than tensors
    #: (Keras's: flags and options go by keyword).
    _allow_non_tensor_positional_args = False

    def __init__(self, name=None, trainable=True, dtype=None, activity_regularizer=None,
                 **kwargs):
        self._input_shape_arg = shape_inference.input_shape_argument(kwargs)
        if not kwargs.pop("autocast", True):  # as Keras: inputs and weights keep their dtype
            self.autocast = False
        if kwargs:
            raise TypeError(f"{type(self).__name__} got unexpected keyword argument(s) "
                            f"{sorted(kwargs)}.")
        base = self.__dict__.get("_name_base") or naming.to_snake_case(type(self).__name__)
        self._name_base = base
        self._auto_name = not name  # renamed unique within the first model it joins
        self._created = naming.creation_index()
        if name is not None and (not isinstance(name, str) or "/" in name):
            raise ValueError("Argument `name` must be a string and cannot contain character "
                             f"`/`. Received: name={name} (of type {type(name)})")
        self.name = name or naming.unique_name(base)
        if not isinstance(trainable, bool):
            raise ValueError(f"Expected `trainable` to be a boolean. Received: trainable="
                             f"{trainable!r} (of type {type(trainable)}), for layer "
                             f'"{self.name}" ({type(self).__name__}).')
        self._trainable = trainable
        self._dtype_policy = dtype_policy.get(dtype)
        self.activity_regularizer = regularizers.get(activity_regularizer)
        self.losses = []  # the add_loss values of the last eager call (LayerLosses)
        self.built = False
        self.input_spec = None
        self._inbound_nodes: list[Node] = []
        self._outbound_nodes: list[Node] = []  # the calls this layer's outputs feed
        if "_own_variables" not in self.__dict__:  # (variables set before this __init__)
            self._own_variables: list[Variable] = []
        self._output_spec_cache: dict = {}
        remat_mode = remat_scope.get_current_remat_mode()
        if remat_mode is not None:  # made in a RematScope
            self._remat_mode = remat_mode
        self.__dict__.setdefault("_tracker", tracking.StateLock())
        if self._builds_at_init:
            self._build_at_init()

    # ----------------------------------------------------------------- attributes
    def __setattr__(self, name, value):
        d = self.__dict__
        var_attrs = d.get("_var_attrs")
        if isinstance(value, Variable):
            if value.owner is None:  # a variable made on its own: the layer's, as Keras
                value.owner = self
                d.setdefault("_own_variables", []).append(value)
            var_attrs = d.setdefault("_var_attrs", {})
            old = var_attrs.get(name, d.get(name))
            var_attrs[name] = value
            if getattr(value, "_auto_named", False) and value.owner is self:
                taken = {v.name for v in d.get("_own_variables", ()) if v is not value}
                if name not in taken:
                    value.name = name
                value._auto_named = False
            d.pop(name, None)
            if old is not None and old is not value:
                self._untrack_variables(old)
            return
        if var_attrs and name in var_attrs:
            if value is None:
                self._untrack_variables(var_attrs.pop(name))
                object.__setattr__(self, name, None)
            else:
                var_attrs[name].assign(value)
            return
        old = d.get(name)
        object.__setattr__(self, name, value)
        if old is not None and old is not value and name not in tracking.UNTRACKED:
            self._untrack_variables(old)

    def __delattr__(self, name):
        var_attrs = self.__dict__.get("_var_attrs")
        if var_attrs and name in var_attrs:
            self._untrack_variables(var_attrs.pop(name))
            return
        old = self.__dict__.get(name)
        object.__delattr__(self, name)
        if old is not None and name not in tracking.UNTRACKED:
            self._untrack_variables(old)

    def __getattr__(self, name):
        var_attrs = self.__dict__.get("_var_attrs")
        if var_attrs is not None and name in var_attrs:
            # Code outside kgraph gets Keras's variable (a ``VariableValue``: assignable,
            # and an array); kgraph's own layers, written on arrays, get the value.
            if _reader_file().startswith(_OWN_PACKAGES):
                return self._read_weight(var_attrs[name])
            return VariableValue(var_attrs[name], self)
        if isinstance(getattr(type(self), name, None), property):
            # A property (e.g. ``output``) raised AttributeError and Python fell back to
            # here: run it again so its own message, not a generic one, reaches the user.
            return getattr(type(self), name).fget(self)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def _autocasts(self, variable) -> bool:
        """Whether reading ``variable`` here casts it: inside a call, autocast on, and a
        floating compute dtype (a layer computing in ints, as some preprocessing layers,
        reads its float weights as they are, as Keras)."""
        return (context.current() is not None and variable.autocast
                and jnp.issubdtype(self.compute_dtype, jnp.floating))

    def _read_weight(self, variable):
        """A weight's value where it is read: autocast inside a call; outside one, the
        stored value (float32 under mixed_bfloat16)."""
        value = variable.value
        return self._autocast(value) if self._autocasts(variable) else value

    def _attribute_values(self):
        """Values of the attributes that can hold sub-layers and weights."""
        yield from self.__dict__.get("_var_attrs", {}).values()
        for name, value in self.__dict__.items():
            if name not in tracking.UNTRACKED:
                yield value

    def _untrack_variables(self, old):
        """Forget weights of this layer that ``old`` (a value an attribute no longer holds)
        held, unless another attribute still holds them (Keras's untracking)."""
        gone = {id(v): v for v in tracking.collect(old, Variable) if v.owner is self}
        if not gone:
            return
        for value in self._attribute_values():
            for v in tracking.collect(value, Variable):
                gone.pop(id(v), None)
        if gone:
            self._own_variables = [v for v in self._own_variables if id(v) not in gone]

    def _tracked_layers(self) -> list:
        """Sub-layers whose weights belong to this layer (nested in its weight tree): the
        layers its attributes hold, directly or in (nested) lists, tuples and dicts, in
        attribute order. Reassigning or deleting an attribute untracks what it held."""
        memo = tracking.memo()
        if memo is not None and id(self) in memo:
            return memo[id(self)][1]
        found, seen = [], {id(self)}
        for value in self._attribute_values():
            kind = type(value)
            if kind in tracking.PLAIN:  # most attributes: nothing to walk
                continue
            if isinstance(value, Layer):
                layers = (value,)
            elif isinstance(value, (list, tuple, dict)):
                layers = tracking.collect(value, Layer)
            else:
                continue
            for layer in layers:
                if id(layer) not in seen:
                    seen.add(id(layer))
                    found.append(layer)
        if memo is not None:
            memo[id(self)] = (self, found)  # the layer kept alive: its id stays its own
        return found

    _name_local = False  # named unique within a model (see kgraph.base.naming)

    def _set_name(self, name):
        self.name = name

    def _owns_namespace(self) -> bool:
        """True for models: they name their own layers when they are built."""
        return False

    @property
    def dtype_policy(self):
        """The layer's ``DTypePolicy`` (or the ``DTypePolicyMap`` it was given). Setting it
        takes a policy or a name; on a layer given a map, it sets the map's entry for the
        layer's path; a quantized policy set on a built float layer quantizes it, as Keras."""
        return self._dtype_policy

    @dtype_policy.setter
    def dtype_policy(self, value):
        policy = dtype_policy.get(value)
        if isinstance(self._dtype_policy, dtype_policy.DTypePolicyMap) and self.path:
            if self.path in self._dtype_policy:
                del self._dtype_policy[self.path]
            self._dtype_policy[self.path] = policy
        else:
            self._dtype_policy = policy
        if (policy.quantization_mode is not None and self.built
                and not self.__dict__.get("_is_quantized", False)):
            if policy.quantization_mode == "gptq":
                raise ValueError(
                    f"Implicitly enabling GPTQ quantization by setting `dtype_policy` to "
                    f"'{value}' is not supported (layer \"{self.name}\"). GPTQ requires a "
                    "calibration dataset and a `GPTQConfig` object.\n\nPlease use the "
                    "`.quantize('gptq', config=...)` method on the layer or model instead.")
            self.quantize(policy.quantization_mode)

    def _own_policy(self):
        """The policy the layer computes with: its own, or its entry in a map it was given."""
        policy = self._dtype_policy
        if isinstance(policy, dtype_policy.DTypePolicyMap) and (
                self.built or self.__dict__.get("_parent_chain") is not None):  # Keras's: once it has a path
            return policy[self._scoped_name()]
        return policy

    @property
    def dtype(self):
        """The dtype of the layer's weights (its policy's ``variable_dtype``)."""
        return self._own_policy().variable_dtype

    variable_dtype = dtype  # Keras's other name for it

    @property
    def compute_dtype(self):
        """The dtype the layer computes in (``dtype_policy.compute_dtype``, or inside a run
        under a model-level precision policy, ``runtime.Precision``, that policy's)."""
        own = self._own_policy().compute_dtype
        ctx = context.current()
        if (ctx is not None and ctx.options.compute_dtype is not None
                and jnp.issubdtype(own, jnp.floating)):
            return ctx.options.compute_dtype
        return own

    def _cast_dtype(self, dtype):
        """The dtype a value of ``dtype`` has inside ``call``: floats become compute dtype."""
        if self.autocast and jnp.issubdtype(dtype, jnp.floating):
            return self.compute_dtype
        return jnp.dtype(dtype)

    def _autocast(self, x):
        """Cast a floating array to the compute dtype (other values pass through)."""
        dtype = getattr(x, "dtype", None)
        if dtype is not None and dtype != self._cast_dtype(dtype):
            return x.astype(self.compute_dtype)
        return x

    @property
    def trainable(self) -> bool:
        return self._trainable

    @trainable.setter
    def trainable(self, value):
        global _trainability_changes
        _trainability_changes += 1
        self._trainable = bool(value)
        for variable in self._trainable_variables:  # as Keras: they follow the layer
            variable.trainable = self._trainable
        for layer in self._tracked_layers():
            layer.trainable = value

    # -------------------------------------------------------------------- weights
    def add_weight(self, *args, shape=None, initializer=None, dtype=None, trainable=True,
                   autocast=True, regularizer=None, constraint=None, aggregation="none",
                   overwrite_with_gradient=False, name=None):
        """Create a weight (Keras 3's arguments, in its order). Its value is made lazily;
        compiled programs never need it.

        ``initializer`` defaults to ``"glorot_uniform"`` for floats and ``"zeros"`` for
        other dtypes; ``autocast=False`` keeps the weight in its own dtype inside ``call``
        under a mixed policy; ``regularizer`` (name or fn(weight) -> penalty) adds to the
        training loss; ``constraint`` (name or fn(weight) -> weight) is applied after each
        update. ``aggregation`` only matters to Keras's distribution strategies.
        """
        tracker = self.__dict__.get("_tracker")
        if tracker is not None and tracker.locked:
            raise ValueError(f'Layer "{self.name}" ({type(self).__name__}): {tracker.lock_msg}')
        if args:  # Keras 2's positional form: shape, initializer, dtype
            shape, initializer, dtype = positional_weight_arguments(
                self, args, shape, initializer, dtype)
        if aggregation not in ("none", "mean", "sum", "only_first_replica", None):
            raise ValueError(f'Layer "{self.name}": add_weight aggregation must be one of '
                             "'none', 'mean', 'sum', 'only_first_replica'; received "
                             f"{aggregation!r}.")
        shape = () if shape is None else shape
        if initializer is None:
            kind = jnp.dtype(dtype or self.dtype)
            initializer = "glorot_uniform" if jnp.issubdtype(kind, jnp.floating) else "zeros"
        auto = name is None
        if auto:
            taken = {v.name for v in self._own_variables}
            name, i = "variable", 0
            while name in taken:
                i += 1
                name = f"variable_{i}"
        elif any(v.name == name for v in self._own_variables):
            raise ValueError(f'Layer "{self.name}" already has a weight named "{name}".')
        shape = checked_weight_shape(self, name, shape)
        check_allocatable(f'Layer "{self.name}"', f'weight "{name}"', shape, dtype or self.dtype)
        with name_scope(self.name, caller=self):  # the path: ``<parent path>/<layer>/<name>``
            variable = Variable(initializers.get(initializer), shape, dtype or self.dtype,
                                trainable, name=name, owner=self,
                                regularizer=regularizers.get(regularizer),
                                constraint=constraints.get(constraint))
        variable._auto_named = auto
        variable.autocast = bool(autocast)
        # a training step writes its gradient as its value (kept in ``state``, see
        # ``runtime.gradient_writes``), as Keras's optimizer overwrites such a weight
        variable._written_by_gradient = bool(overwrite_with_gradient)
        if not self.trainable:  # as Keras: a frozen layer's new weights are frozen too
            variable.trainable = False
        self._own_variables.append(variable)
        return variable

    def _variable_tree(self, _seen=None) -> dict:
        """``{weight_name: Variable, sublayer_name: {...}}``: the shape of the params pytree."""
        seen = {id(self)} if _seen is None else _seen | {id(self)}
        tree = {v.name: v for v in self._own_variables}
        for layer in self._tracked_layers():
            if id(layer) in seen:
                continue
            sub = layer._variable_tree(seen)
            if sub:
                if layer.name in tree:
                    raise ValueError(f'Layer "{self.name}" has a weight and a sub-layer both '
                                     f'named "{layer.name}"; give the sub-layers distinct '
                                     "names.")
                tree[layer.name] = sub
        return tree

    # ---------------------------------------------------------------- build/call
    def build(self, input_shape):
        """Create weights for inputs of ``input_shape``. Called once, lazily."""
        self.built = True

    build._is_default = True  # Keras's mark of the base's own (``utils.is_default``)

    def _maybe_build(self, inputs):
        if not self.built:
            self.build(_shapes(inputs))
            self.built = True

    def _build_for_call(self, args, kwargs, inputs):
        """Build before the first call: from each tensor argument's shape when ``build``
        takes several ``<argument>_shape`` parameters, else from ``inputs``'s shape."""
        if self.built:
            return
        shapes = None
        if type(self)._maybe_build is Layer._maybe_build:  # models build their own way
            shapes = call_args.build_shapes(self, args, kwargs)
        if shapes is None:
            self._maybe_build(inputs)
        else:
            self.build(**shapes)
            self.built = True
        self._lock_state()

    def _lock_state(self):
        """Refuse new weights from now on (Keras's, once the layer is built)."""
        self.__dict__.setdefault("_tracker", tracking.StateLock()).lock()

    def _untrack_variable(self, variable):
        """Keras's: stop counting ``variable`` among the layer's weights."""
        variable = getattr(variable, "variable", variable)  # read through an attribute
        self._own_variables = [v for v in self._own_variables if v is not variable]

    def _check_inputs(self, inputs):
        assert_input_compatibility(self.input_spec, inputs, self.name)

    def call(self, *args, **kwargs):
        """The forward computation on arrays. Subclasses override it."""
        raise self._not_implemented_error(self.call)

    call._is_default = True

    def compute_mask(self, inputs, mask=None):
        """The mask of the outputs, given the inputs' ``mask`` (Keras masking).

        Default: pass the mask through if ``supports_masking``, else drop it. Layers that
        make masks (Embedding with mask_zero, Masking) or change them override this.
        """
        return mask if self.supports_masking else None

    def compute_output_shape(self, input_shape):
        """Optional fast path for shape inference; by default ``call`` is traced."""
        raise self._not_implemented_error(self.compute_output_shape)

    def compute_output_dtype(self, input_dtype):
        """Output dtype used with ``compute_output_shape`` (default: the input's)."""
        return input_dtype

    def compute_output_spec(self, *args, **kwargs):
        """Output KerasTensors (no history) for symbolic ``args``: fast path, else trace.

        The fast path is ``compute_output_shape``: it may return one shape or a list,
        tuple or dict of shapes (one per output); all outputs get ``compute_output_dtype``.
        """
        if type(self).compute_output_shape is not Layer.compute_output_shape:
            inputs = call_args.first_argument(type(self), args, kwargs)
            shapes = call_args.shape_arguments(self, type(self).compute_output_shape, args,
                                               kwargs)
            if shapes is None:
                shape = self.compute_output_shape(_shapes(inputs))
            else:
                shape = self.compute_output_shape(**shapes)
            dtypes = [self._cast_dtype(t.dtype) for t in jax.tree_util.tree_leaves(inputs)]
            dtype = self.compute_output_dtype(jnp.result_type(*dtypes))
            return shape_inference.specs_from_shapes(shape, dtype, self)
        return shape_inference.infer_output_spec(self, args, kwargs, self._output_spec_cache)

    def random_key(self):
        """A fresh PRNG key for this call (see ``kgraph.interpreter.context``)."""
        ctx = context.current()
        if ctx is None:
            return seed_stream.next_key()
        return ctx.next_key(self.name)

    def __call__(self, *args, **kwargs):
        with self._open_name_scope():  # Keras's: builds and calls in the layer's name scope
            return self._call_in_scope(args, kwargs)

    def _call_in_scope(self, args, kwargs):
        if not self._allow_non_tensor_positional_args:
            call_args.check_positional_tensors(self, args[1:])
        names, var_kw = call_args.call_parameters(type(self))
        # ``key=`` is a PRNG key, unless ``call`` has a ``key`` argument of its own
        # (MultiHeadAttention's key tensor): then it goes to ``call``.
        key = None if "key" in names else kwargs.pop("key", None)
        if "training" in kwargs and "training" not in names and not var_kw:
            training = kwargs.pop("training")
        else:
            training = kwargs.get("training")
        given_context = {name: kwargs.pop(name) for name in self.__dict__.get(
            "_registered_context_args", ()) if name in kwargs and name not in names
            and not var_kw}  # registered call-context arguments ``call`` does not take
        if any_keras_tensor((args, kwargs)):
            return self._symbolic_call(args, kwargs)
        ctx = context.current()
        own = ctx is None
        if own:  # an eager call: Keras masks travel attached to the arrays
            mask_kwargs, previous_mask = masking.attached_mask_arguments(self, args, kwargs)
            kwargs = {**kwargs, **mask_kwargs}
        args, kwargs = self._arrays_for_call(args, kwargs)
        if own:
            initial_values.materialize(self.weights)  # all first values in one batch
            ctx = context.CallContext(training=training, key=key)
        if training is None:
            training = ctx.options.training
        if training is not None and ("training" in names or ("training" in kwargs and var_kw)):
            kwargs["training"] = training  # else call's own default applies, as Keras
        saved = ctx.options.training
        ctx.options.training = training
        saved_context = resolve_context_args(self, kwargs, given_context, ctx.options, names,
                                             var_kw)
        self.__dict__["_called"] = True
        ctx.path.append(self.name)
        try:
            with (ctx if own else contextlib.nullcontext()), jax.named_scope(self.name):
                call = self._call_function()
                if self._remat_mode is None:
                    outputs = call(*args, **kwargs)
                else:  # made in a RematScope
                    outputs = self.rematerialized_call(call, *args, **kwargs)(*args, **kwargs)
                if self.activity_regularizer is not None:
                    self._add_activity_penalty(outputs)
                if own and (previous_mask is not None
                            or type(self).compute_mask is not Layer.compute_mask):
                    first = call_args.first_argument(type(self), args, kwargs)
                    masking.attach_mask(outputs, self.compute_mask(first, previous_mask))
        finally:
            ctx.path.pop()
            ctx.options.training = saved
            if saved_context is not None:
                ctx.options.context_args = saved_context
        if own:
            self.losses = list(ctx.losses)
        return outputs

    def _call_function(self):
        """The method a call on values runs: ``call`` (a subclass may choose another)."""
        return self.call

    def rematerialized_call(self, layer_call, *args, **kwargs):
        """``layer_call`` rematerialized as the ``RematScope`` the layer was made in says
        (``kgraph.base.remat_scope``), for these arguments."""
        return remat_scope.rematerialized_call(self, layer_call, args, kwargs)

    def _arrays_for_call(self, args, kwargs):
        """A call's arguments checked (numeric, the input spec), as arrays, autocast; the
        layer built for them."""
        call_args.check_numeric(self, call_args.first_argument(type(self), args, kwargs))
        args, kwargs = jax.tree_util.tree_map(call_args.to_array, (args, kwargs))
        if self.autocast:
            args, kwargs = jax.tree_util.tree_map(self._autocast, (args, kwargs))
        inputs = call_args.first_argument(type(self), args, kwargs)
        if not self.built:  # the spec's rank checks come before build reads the shape
            assert_input_compatibility(self.input_spec, inputs, self.name)
        self._build_for_call(args, kwargs, inputs)
        self._check_inputs(inputs)
        return args, kwargs

    def _symbolic_call(self, args, kwargs):
        if self.__dict__.get("_input_shape_arg") is not None:
            warnings.warn(f'Layer "{self.name}": input_shape / input_dim are used only by the '
                          "first layer of a Sequential model; called on a tensor, the layer "
                          "takes that tensor's shape (prefer kg.Input(shape) first).",
                          UserWarning, stacklevel=3)
            self._input_shape_arg = None
        inputs = call_args.first_argument(type(self), args, kwargs)
        if not self.built:
            assert_input_compatibility(self.input_spec, inputs, self.name)
        self._build_for_call(args, kwargs, inputs)
        self._check_inputs(inputs)
        # As Keras: call sees the inputs' masks while its output shape is found, and the
        # outputs carry compute_mask's (symbolic) mask. The graph's runs compute the real
        # masks (kgraph.interpreter.masking), so the node records only the given arguments.
        mask_kwargs, previous_mask = masking.attached_mask_arguments(self, args, kwargs)
        outputs = self.compute_output_spec(*args, **kwargs, **mask_kwargs)
        Node(self, args, kwargs, outputs)
        if previous_mask is not None or type(self).compute_mask is not Layer.compute_mask:
            masking.attach_mask(outputs, self._symbolic_mask(inputs, previous_mask))
        return outputs

    def _symbolic_mask(self, inputs, previous_mask):
        """The mask of a symbolic call's outputs: ``compute_mask`` on shapes."""
        return shape_inference.infer_mask_spec(self, inputs, previous_mask)

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name}, built={self.built}>"


catalog.add_builtin(Layer)
