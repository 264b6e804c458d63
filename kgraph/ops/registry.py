"""The machinery behind ``kgraph.ops``: the ``Operation`` node and the op registry.

Every op has a stable registered name (``"add"``, ``"sum"``, ``"conv"``...). Called on
arrays it computes at once; called with a KerasTensor anywhere in its arguments it adds an
``Operation`` node (a weightless layer) to the graph. An op's parameters are of two kinds:

* tensor parameters (always the leading ones): passed to the node positionally, so the
  node's ``call_args`` are exactly their values (KerasTensors, or constants such as the
  ``1.0`` of ``x + 1.0``);
* static parameters (axis, shapes, dtypes, flags): stored on the Operation
  (``operation.fn_kwargs``), defaults included, and listed by ``get_config()["kwargs"]``.

Serialization contract (relied on by graph serialization):
``Operation.get_config() == {"name": node_name, "op": registered_name, "kwargs": {...}}``,
``get_op(registered_name)`` returns the public op function, and
``get_op(config["op"])(*node.call_args, **config["kwargs"])`` rebuilds the node's output;
equivalently ``Operation.from_config(config)(*node.call_args)``. ``kwargs`` holds plain
Python values (ints, floats, strings, None, tuples/lists; ``get_item``'s ``key`` may hold
``slice``/``Ellipsis``); dtypes are stored as strings.
"""

from __future__ import annotations

import builtins
import inspect
from typing import Callable

import jax
import jax.numpy as jnp

from kgraph import config
from kgraph import dtypes as _dtypes
from kgraph.base import auto_config, shape_inference
from kgraph.base.layer import Layer
from kgraph.base.variable_value import values_of
from kgraph.graph.keras_tensor import KerasTensor, any_keras_tensor

__all__ = [
    "Operation", "check_static", "get_impl", "get_op", "is_symbolic", "op_names",
    "register_array_function", "register_custom", "register_op", "static_axis"
]


_shared_spec_cache: dict = {}  # (fn, kwargs) -> the shape-inference cache of that op kind
_dtype_cache: dict = {}  # elementwise result dtypes by operand dtypes
_REGISTRY: dict[str, Callable] = {}  # op name -> public function
_IMPLS: dict[str, Callable] = {}  # op name -> array function run by the node
_NAME_OF_IMPL: dict = {}  # array function -> op name (first registered wins)
_ELEMENTWISE: set = set()  # array functions whose output shape is the broadcast shape
_STATIC_CHECKS: dict[str, Callable] = {}  # op name -> check of its static arguments
_SPECS: dict = {}  # array function -> its output spec function (register_op(spec=...))


def static_axis(axis):
    """An op's ``axis`` argument: lists (as read back from a JSON config) become tuples;
    ints, tuples and None stay."""
    return tuple(axis) if isinstance(axis, list) else axis


def _kwargs_key(kwargs) -> str:
    return repr(sorted(kwargs.items()))


class Operation(Layer):
    """A weightless layer wrapping an array function (one per symbolic op call).

    ``Operation(fn, **fn_kwargs)(*args)`` computes ``fn(*args, **fn_kwargs)``; ``op_name``
    is the registered name of ``fn`` (see ``get_op``). As Keras's ``keras.Operation``, it
    is also the base of operations written as a class: a subclass made with
    ``super().__init__(name=name)`` defines ``call`` (and ``compute_output_spec``), and its
    config is its name with the constructor's arguments.

    >>> import jax.numpy as jnp
    >>> class Affine(Operation):
    ...     def __init__(self, alpha, *, name=None):
    ...         super().__init__(name=name)
    ...         self.alpha = alpha
    ...     def call(self, x):
    ...         return self.alpha * x + 1
    >>> op = Affine(2.0, name="affine")
    >>> op(jnp.ones(2)).tolist(), op.get_config()
    ([3.0, 3.0], {'name': 'affine', 'alpha': 2.0})
    """

    autocast = False  # operations keep their operands' dtypes, as jax.numpy does
    _allow_non_tensor_positional_args = True  # an op's operands may be Python numbers

    def __init__(self, fn=None, name=None, **fn_kwargs):
        if name is not None and (not isinstance(name, str) or "/" in name):
            raise ValueError("Argument `name` must be a string and cannot contain character "
                             f"`/`. Received: name={name} (of type {type(name)})")
        if fn is not None:
            self._name_base = _NAME_OF_IMPL.get(fn) or getattr(fn, "__name__", "operation")
        super().__init__(name=name)
        self.built = True
        self._set_function(fn, fn_kwargs)

    def _set_function(self, fn, fn_kwargs) -> None:
        """Make this operation compute ``fn(*args, **fn_kwargs)``."""
        self.fn = fn
        self.op_name = _NAME_OF_IMPL.get(fn) or getattr(fn, "__name__", None)
        self.fn_kwargs = fn_kwargs
        # Operations are stateless, so shape inference is shared across instances.
        self._output_spec_cache = _shared_spec_cache.setdefault(
            (fn or type(self), _kwargs_key(fn_kwargs)), {})

    def call(self, *args, **kwargs):
        if self.fn is None:  # an Operation subclass defines its own call
            raise NotImplementedError(f"Operation {type(self).__name__} must define `call`.")
        return self.fn(*args, **kwargs, **self.fn_kwargs)

    @property
    def quantization_mode(self):
        """None, or the mode set on this operation: its calls on values then run
        ``quantized_call`` (as Keras's ``Operation``)."""
        return self.__dict__.get("_quantization_mode")

    @quantization_mode.setter
    def quantization_mode(self, mode):
        self.__dict__["_quantization_mode"] = mode

    def quantized_call(self, *args, **kwargs):
        raise NotImplementedError(f"Operation {type(self).__name__} has a quantization mode "
                                  f"({self.quantization_mode!r}) but defines no "
                                  "`quantized_call`.")

    def _call_function(self):
        return self.call if self.quantization_mode is None else self.quantized_call

    def symbolic_call(self, *args, **kwargs):
        """The call's output KerasTensors, recorded as a node of the graph (the operands
        may be KerasTensors or arrays)."""
        return self._symbolic_call(args, kwargs)

    @property
    def input(self):
        """The input tensor(s) of the operation's first call (Keras's ``Operation``)."""
        inputs = self._first_call("input").input_tensors
        return inputs[0] if len(inputs) == 1 else inputs

    @property
    def output(self):
        """The output tensor(s) of the operation's first call (Keras's ``Operation``)."""
        node = self._first_call("output")
        return node.outputs[0] if len(node.outputs) == 1 else list(node.outputs)

    def _first_call(self, attr):
        if not self._inbound_nodes:
            raise AttributeError(f"The operation {self.name} has never been called and thus "
                                 f"has no defined {attr}.")
        return self._inbound_nodes[0]

    def compute_output_spec(self, *args, **kwargs):
        if self.fn in _SPECS and not kwargs:  # the op's own rule (an output size that
            try:  # depends on values, Keras's rules for unknown sizes, ...)
                spec = _SPECS[self.fn](*args, **self.fn_kwargs)
            except (TypeError, ValueError) as error:
                shapes = ", ".join(str(tuple(a.shape)) for a in jax.tree_util.tree_leaves(args)
                                   if hasattr(a, "shape"))
                message = (f'Layer "{self.name}" ({type(self).__name__}) failed while '
                           f"computing its output shape for input shapes [{shapes}]: {error}")
                try:
                    wrapped = type(error)(message)
                except Exception:  # noqa: BLE001 - an exception type with another signature
                    raise error from None
                raise wrapped from error
            if spec is not None:  # None: the rule leaves this call to the general ways
                return spec
        if self.fn in _ELEMENTWISE and not kwargs and builtins.all(a is not None for a in args):
            shapes = [a.shape if isinstance(a, KerasTensor) else jnp.shape(a) for a in args]
            try:
                shape = shape_inference.broadcast_shapes(shapes)
            except ValueError as error:
                raise ValueError(f'Operation "{self.name}" cannot broadcast input shapes '
                                 f"{shapes}: {error}") from None
            return KerasTensor(shape, _result_dtype(self.fn, self.fn_kwargs, args))
        return super().compute_output_spec(*args, **kwargs)

    @auto_config.default_get_config
    def get_config(self):
        if self.fn is None:  # a subclass: its name and its constructor's arguments
            config = {"name": self.name}
            if auto_config.applies(type(self)):
                return auto_config.config_of(self, config)
            return config
        return {"name": self.name, "op": self.op_name, "kwargs": dict(self.fn_kwargs)}

    @classmethod
    def from_config(cls, config):
        if cls is not Operation:
            return cls(**config)
        if "op" not in config:  # the base class computes nothing: a config naming no op
            raise ValueError(f"A config of class Operation must name its op ('op': one of "
                             f"the registered ops); received {config}.")
        if config.get("op") not in _IMPLS:
            raise ValueError(f"Unknown operation {config.get('op')!r} in config {config}. "
                             f"Registered ops: {sorted(_IMPLS)}.")
        return cls(_IMPLS[config["op"]], name=config.get("name"), **config.get("kwargs", {}))


def _dtype_key(arg):
    if isinstance(arg, KerasTensor):
        return ("T", arg.dtype.name)
    if hasattr(arg, "dtype") and hasattr(arg, "shape"):
        return ("T", jax.dtypes.canonicalize_dtype(arg.dtype).name)
    return ("C", type(arg).__name__)  # a Python scalar: weakly typed, value irrelevant


def _result_dtype(fn, kwargs, args):
    """The dtype ``fn`` gives on operands of these dtypes (evaluated once, on one-element
    arrays); operands ``fn`` refuses get their promoted dtype."""
    keys = tuple(_dtype_key(a) for a in args)
    cache_key = (fn, _kwargs_key(kwargs), keys, config.floatx())
    if cache_key not in _dtype_cache:
        tensor_slots = [i for i, k in enumerate(keys) if k[0] == "T"]

        def scalar_fn(*tensors):
            filled = list(args)
            for i, t in zip(tensor_slots, tensors):
                filled[i] = t
            return fn(*filled, **kwargs)

        # shape (1,), not (): some jax.numpy functions give 0-d inputs other dtypes (angle)
        structs = [jax.ShapeDtypeStruct((1,), keys[i][1]) for i in tensor_slots]
        try:
            _dtype_cache[cache_key] = jax.eval_shape(scalar_fn, *structs).dtype
        except (TypeError, ValueError):
            # operands the function refuses (float operands of bitwise_and, gcd): the
            # promoted dtype, as Keras's symbolic ops give; calling on arrays reports it
            operands = [k[1] if k[0] == "T" else type(a) for k, a in zip(keys, args)]
            _dtype_cache[cache_key] = jnp.dtype(_dtypes.result_type(*operands))
    return _dtype_cache[cache_key]


def is_symbolic(*args) -> bool:
    """True if a KerasTensor is anywhere in ``args`` (nested lists/tuples/dicts)."""
    return any_keras_tensor(args)


def _register(name, impl, public, elementwise):
    if name in _REGISTRY:
        raise ValueError(f"An op named {name!r} is already registered.")
    _REGISTRY[name] = public
    _IMPLS[name] = impl
    _NAME_OF_IMPL.setdefault(impl, name)
    if elementwise:
        _ELEMENTWISE.add(impl)
    public.op_name = name


def check_static(name, static) -> None:
    """Run op ``name``'s check of its static arguments (``register_op(check=...)``), if
    any: the op function and Keras's op class both refuse bad values before any call."""
    check = _STATIC_CHECKS.get(name)
    if check is not None:
        check(**static)


def _make_public(name, impl, signature, tensor_names, static_names):
    def public(*args, **kwargs):
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as error:
            raise TypeError(f"ops.{name}{signature}: {error}") from None
        bound.apply_defaults()
        values = bound.arguments
        tensors = values_of([values[n] for n in tensor_names])
        static = {n: values[n] for n in static_names}
        if static.get("dtype") is not None:
            static["dtype"] = jnp.dtype(static["dtype"]).name  # a string in configs
        check_static(name, static)
        if not is_symbolic(tensors, static):
            try:
                return impl(*tensors, **static)
            except (TypeError, ValueError) as error:
                if type(error) not in (TypeError, ValueError):  # JAX's own (tracer errors)
                    raise
                shapes = ", ".join(str(tuple(jnp.shape(t))) for t in tensors
                                   if hasattr(t, "shape"))
                raise type(error)(f"ops.{name} failed on inputs of shapes [{shapes}]: "
                                  f"{error}") from error
        for n, v in static.items():
            if is_symbolic(v):
                raise TypeError(f"Argument `{n}` of ops.{name} must be a Python value "
                                f"(it is stored in the graph node), not a symbolic tensor: {v}.")
        return Operation(impl, **static)(*tensors)

    public.__name__ = public.__qualname__ = name
    public.__signature__ = signature
    public.tensor_params = tuple(tensor_names)  # passed to the node (see the docstring)
    public.static_params = tuple(static_names)  # stored on the Operation
    return public


def _tensors_first(impl, tensor_names):
    """``impl`` taking its tensors first, positionally (as a node passes them), and its
    static parameters by name: for an op whose tensor parameters are not all leading
    (``pad(x, pad_width, mode, constant_values)``)."""

    def node_fn(*tensors, **static):
        return impl(**dict(zip(tensor_names, tensors)), **static)

    node_fn.__name__ = node_fn.__qualname__ = impl.__name__
    node_fn.__doc__ = impl.__doc__
    return node_fn


def register_op(name, tensors=1, elementwise=False, check=None, spec=None):
    """Decorator: register ``impl`` (a function on arrays) as the op ``name``.

    Its first ``tensors`` parameters are tensor parameters, the rest static ones; or
    ``tensors`` names them (``("x", "constant_values")``) when they are not all leading.
    ``elementwise=True`` means the output has the broadcast shape of the tensor operands
    (shape inference then skips tracing). ``check(**static)``, if given, refuses bad static
    arguments before any call. ``spec(*tensors, **static)``, if given, makes the output
    KerasTensors of a symbolic call (for outputs whose size depends on values, where tracing
    cannot tell), or returns None to leave the call to tracing. Returns the public op function, e.g.::

        @register_op("scale_by")
        def scale_by(x, factor=2.0):
            return x * factor
    """

    def decorator(impl):
        signature = inspect.signature(impl)
        names = list(signature.parameters)
        tensor_names = list(tensors) if isinstance(tensors, (tuple, list)) else names[:tensors]
        static_names = [n for n in names if n not in tensor_names]
        node_fn = impl
        if names[:len(tensor_names)] != tensor_names:  # tensors among the static parameters
            node_fn = _tensors_first(impl, tensor_names)
        public = _make_public(name, node_fn, signature, tensor_names, static_names)
        public.__doc__ = impl.__doc__
        public.__wrapped__ = impl
        _register(name, node_fn, public, elementwise)
        if check is not None:
            _STATIC_CHECKS[name] = check
        if spec is not None:
            _SPECS[node_fn] = spec
        return public

    return decorator


def register_array_function(name, fn, params=("x",), elementwise=True, doc=None, spec=None):
    """Register an existing array function ``fn(*params)`` (all tensors) as op ``name``.

    The node's ``fn`` is ``fn`` itself (e.g. ``jnp.add``); ``spec`` as ``register_op``'s.
    """
    signature = inspect.Signature([inspect.Parameter(p, inspect.Parameter.POSITIONAL_OR_KEYWORD)
                                   for p in params])
    public = _make_public(name, fn, signature, list(params), [])
    public.__doc__ = doc or (f"``{getattr(fn, '__module__', 'jax')}.{fn.__name__}`` on arrays; "
                             "a graph node on KerasTensors.")
    _register(name, fn, public, elementwise)
    if spec is not None:
        _SPECS[fn] = spec
    return public


def register_custom(name, impl, public, elementwise=False, spec=None):
    """Register an op whose public function is written by hand (e.g. ``einsum``);
    ``spec`` as ``register_op``'s."""
    public.__name__ = public.__qualname__ = name
    _register(name, impl, public, elementwise)
    if spec is not None:
        _SPECS[impl] = spec
    return public


def get_op(name) -> Callable:
    """The public op function registered as ``name`` (e.g. ``get_op("add") is ops.add``)."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ValueError(f"Unknown op {name!r}. Registered ops: {sorted(_REGISTRY)}.") from None


def op_names() -> list:
    """Every registered op name, sorted."""
    return sorted(_REGISTRY)


def get_impl(name) -> Callable:
    """The array function a node of op ``name`` runs (``Operation.fn``)."""
    get_op(name)
    return _IMPLS[name]

