"""Keras's op classes (``keras.src.ops.numpy.Sum``, ``...nn.Relu``), made from the op
registry: one class per registered op, named as Keras names it (``Sum``, ``ExpandDims``,
``FFT``, ``CTCLoss``); its constructor takes the op's static parameters (then ``name``),
its ``call`` the op's tensors.

>>> import jax.numpy as jnp
>>> from kgraph.graph.keras_tensor import KerasTensor
>>> Sum = operation_class("sum")
>>> Sum.__name__, str(inspect.signature(Sum))
('Sum', '(axis=None, keepdims=False, *, name=None)')
>>> Sum(axis=1)(jnp.ones((2, 3))).tolist()
[3.0, 3.0]
>>> Sum(axis=1).symbolic_call(KerasTensor((None, 3))).shape
(None,)
"""

from __future__ import annotations

import functools
import inspect
import types

import jax.numpy as jnp

from kgraph.base import shape_inference
from kgraph.ops.nn_ctc import _check_first_dims
from kgraph.ops.registry import (_ELEMENTWISE, _SPECS, Operation, check_static, get_impl, get_op,
                                 op_names)

__all__ = ["KerasOperation", "class_name", "operation_class", "operation_classes"]

# Keras's class names that are not the CamelCase of the op's name.
_CLASS_NAMES = {
    "allclose": "AllClose", "batch_normalization": "BatchNorm", "cdist": "CDist",
    "ctc_decode": "CTCDecode", "ctc_loss": "CTCLoss", "extract_patches_3d": "ExtractPatches3D",
    "fft": "FFT", "fft2": "FFT2",
    "hsv_to_rgb": "HSVToRGB", "ifft2": "IFFT2", "irfft": "IRFFT", "isin": "IsIn",
    "istft": "ISTFT", "jvp": "JVP", "layer_normalization": "LayerNorm", "psnr": "PSNR",
    "rfft": "RFFT", "rgb_to_grayscale": "RGBToGrayscale", "rgb_to_hsv": "RGBToHSV",
    "rms_normalization": "RMSNorm", "searchsorted": "SearchSorted", "ssim": "SSIM",
    "stft": "STFT", "svd": "SVD",
}


# Operands that Keras's class takes at construction (kgraph's op functions also take them
# as tensors, e.g. ``clip``'s bounds): the class passes them to the op with the call's.
_CONSTRUCTOR_OPERANDS = {"bincount": ("weights",), "clip": ("x_min", "x_max"),
                         "trapezoid": ("x",)}


# Methods of Keras's classes beyond call and compute_output_spec: Keras's checks, callable
# on the class's instances as in Keras.
_EXTRA_METHODS = {
    "ctc_loss": {"_check_shape_first_dim":
                 lambda self, name1, shape1, name2, shape2: _check_first_dims(
                     name1, shape1, name2, shape2)},
}


def class_name(op_name: str) -> str:
    """Keras's class name of the op ``op_name`` (``"expand_dims"`` -> ``"ExpandDims"``)."""
    return _CLASS_NAMES.get(op_name) or "".join(
        part[:1].upper() + part[1:] for part in op_name.split("_"))


def _parameters(op_name):
    """The op's (tensor, static) parameters, as ``inspect.Parameter`` lists."""
    public = get_op(op_name)
    signature = inspect.signature(public)
    if hasattr(public, "tensor_params"):
        tensors = [signature.parameters[n] for n in public.tensor_params]
        static = [signature.parameters[n] for n in public.static_params]
        return tensors, static
    return _custom_parameters(op_name)


def _custom_parameters(op_name):
    # an op written by hand (einsum): its array function's positional parameters are the
    # tensors, its keyword-only ones the static parameters
    impl = inspect.signature(get_impl(op_name)).parameters.values()
    tensors = [p for p in impl if p.kind is not inspect.Parameter.KEYWORD_ONLY]
    static = [p.replace(kind=inspect.Parameter.POSITIONAL_OR_KEYWORD) for p in impl
              if p.kind is inspect.Parameter.KEYWORD_ONLY]
    return tensors, static


class KerasOperation(Operation):
    """The base of the classes ``operation_class`` makes: the op's static parameters are
    bound at construction, its tensors at call."""

    op_name = None  # the registered op (a class attribute of each subclass)
    _init_signature = None  # (static parameters, name) of the constructor
    _call_signature = None  # the tensor parameters of call
    _operand_order = ()  # every tensor parameter of the op, in its order
    _constructor_operands = ()  # the tensors given at construction

    def __init__(self, *args, name=None, **kwargs):
        super().__init__(name=name)
        try:
            bound = self._init_signature.bind(*args, **kwargs)
        except TypeError as error:
            raise TypeError(f"{type(self).__name__}{self._init_signature}: {error}") from None
        bound.apply_defaults()
        static = dict(bound.arguments)
        static.pop("name", None)
        self._operands = {n: static.pop(n) for n in self._constructor_operands}
        if static.get("dtype") is not None:
            static["dtype"] = jnp.dtype(static["dtype"]).name
        check_static(type(self).op_name, static)
        self._set_function(get_impl(type(self).op_name), static)
        for key, value in static.items():  # readable as attributes, as Keras's op classes
            if not hasattr(type(self), key):
                self.__dict__[key] = value

    def _tensors(self, args, kwargs):
        try:
            bound = self._call_signature.bind(*args, **kwargs)
        except TypeError as error:
            raise TypeError(f"{type(self).__name__}.call{self._call_signature}: "
                            f"{error}") from None
        bound.apply_defaults()
        given = {**bound.arguments, **self._operands}
        values = []
        for name in self._operand_order:
            param = self._call_signature.parameters.get(name)
            if param is not None and param.kind is inspect.Parameter.VAR_POSITIONAL:
                values.extend(given.get(name, ()))
            else:
                values.append(given[name])
        return values

    def call(self, *args, **kwargs):
        return self.fn(*self._tensors(args, kwargs), **self.fn_kwargs)

    def compute_output_spec(self, *args, **kwargs):
        """The output KerasTensors of the op on these operands (positional or named)."""
        tensors = self._tensors(args, kwargs)
        if self._constructor_operands and self.fn not in _SPECS and self.fn not in _ELEMENTWISE:
            # traced on the op's function: ``call`` would add the constructor's operands again
            return shape_inference.infer_function_spec(
                functools.partial(self.fn, **self.fn_kwargs), tensors, {})
        return super().compute_output_spec(*tensors)

    def get_config(self):
        return {"name": self.name, **self._operands, **self.fn_kwargs}


def _with_signature(function, signature, qualname):
    """A copy of ``function`` (same code) that ``inspect.signature`` reads as
    ``signature``."""
    copy = types.FunctionType(function.__code__, function.__globals__, function.__name__,
                              function.__defaults__, function.__closure__)
    copy.__kwdefaults__ = function.__kwdefaults__
    copy.__signature__ = signature
    copy.__qualname__ = qualname
    copy.__doc__ = function.__doc__
    return copy


@functools.cache
def operation_class(op_name: str) -> type:
    """Keras's class of the registered op ``op_name`` (made once)."""
    operands, static = _parameters(op_name)
    given_at_init = _CONSTRUCTOR_OPERANDS.get(op_name, ())
    tensors = [p for p in operands if p.name not in given_at_init]
    static = [p for p in operands if p.name in given_at_init] + static
    self_param = inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    name_param = inspect.Parameter("name", inspect.Parameter.KEYWORD_ONLY, default=None)
    init_signature = inspect.Signature([*static, name_param])
    call_signature = inspect.Signature(tensors)
    name = class_name(op_name)
    namespace = {
        "op_name": op_name,
        "_init_signature": init_signature,
        "_call_signature": call_signature,
        "_operand_order": tuple(p.name for p in operands),
        "_constructor_operands": given_at_init,
        "__module__": __name__,
        "__doc__": f"Keras's op class of ``ops.{op_name}``: static parameters at "
                   "construction, tensors at call.",
        "__init__": _with_signature(KerasOperation.__init__,
                                    inspect.Signature([self_param, *init_signature.parameters
                                                       .values()]), f"{name}.__init__"),
        "call": _with_signature(KerasOperation.call,
                                inspect.Signature([self_param, *tensors]), f"{name}.call"),
        **_EXTRA_METHODS.get(op_name, {}),
    }
    cls = type(name, (KerasOperation,), namespace)
    cls.__qualname__ = name
    return cls


def operation_classes(names) -> dict:
    """``{class name: class}`` for the registered ops among ``names``."""
    registered = set(op_names())
    return {class_name(n): operation_class(n) for n in names if n in registered}
