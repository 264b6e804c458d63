"""kgraph's model configs in Keras 3's own words, and Keras's op nodes in kgraph's.

A kgraph config already has Keras 3's layout, class names and arguments; two things differ.
Modules: kgraph writes ``kgraph.layers`` where Keras writes ``keras.layers`` (and
``keras.src.models.functional`` for ``Functional``). Op nodes: kgraph writes one class,
``Operation``, with the op's registered name and its static parameters
(``{"op": "sum", "kwargs": {"axis": 1}}``), where Keras writes a class per op
(``keras.src.ops.numpy`` ``Sum`` with config ``{"name", "axis", ...}``). Both pass the
tensor parameters as node arguments; for a few ops Keras passes a static parameter as a
call argument (``GetItem``'s key) or a tensor one to the constructor (``Clip``'s bounds),
listed below. ``to_keras`` writes a config Keras 3 loads; ``from_keras`` reads Keras's op
nodes. Both take and return plain JSON data: nothing is imported or called by name.

>>> entry = {"module": "keras.src.ops.numpy", "class_name": "NotEqual",
...          "config": {"name": "ne"}, "registered_name": "NotEqual", "name": "ne",
...          "inbound_nodes": [{"args": ["<tensor>", 0], "kwargs": {}}]}
>>> converted = from_keras({"class_name": "Functional", "config": {"layers": [entry]}})
>>> converted["config"]["layers"][0]["config"]
{'name': 'ne', 'op': 'not_equal', 'kwargs': {}}
"""

from __future__ import annotations

import inspect

from kgraph.base import naming
from kgraph.ops import operation_classes, registry
from kgraph.saving.validation import ConfigError

__all__ = ["ACTIVATION_OPS", "NO_KERAS_CLASS", "from_keras", "keras_class_name", "keras_module",
           "to_keras"]


_MODULES = {  # op name -> module of its Keras class (the rest are in keras.src.ops.numpy)
    **dict.fromkeys(("affine_transform", "crop_images", "elastic_transform",
                     "extract_patches", "gaussian_blur", "hsv_to_rgb", "map_coordinates",
                     "pad_images", "perspective_transform", "resize", "rgb_to_grayscale",
                     "rgb_to_hsv", "scale_and_translate", "sobel_edges", "ssim"), "image"),
    **dict.fromkeys((
        "adaptive_average_pool", "adaptive_max_pool", "average_pool", "batch_normalization",
        "binary_crossentropy", "categorical_crossentropy", "celu", "conv", "conv_transpose",
        "ctc_decode", "ctc_loss", "fold", "unfold",
        "depth_to_space", "depthwise_conv", "dot_product_attention", "elu", "gelu",
        "glu", "hard_shrink", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh",
        "layer_normalization", "leaky_relu", "log_sigmoid", "log_softmax", "max_pool",
        "moments", "multi_hot", "normalize", "one_hot", "polar", "psnr", "relu",
        "relu6", "rms_normalization", "selu", "separable_conv", "sigmoid", "silu",
        "soft_shrink", "softmax", "softplus", "softsign", "space_to_depth",
        "sparse_categorical_crossentropy", "sparse_plus", "sparse_sigmoid", "sparsemax",
        "squareplus", "tanh_shrink", "threshold"), "nn"),
    **dict.fromkeys(("cast", "saturate_cast", "scatter", "scatter_update", "slice",
                     "slice_update", "stop_gradient", "unstack"), "core"),
    **dict.fromkeys(("cholesky", "cholesky_inverse", "det", "eig", "eigh", "inv", "lstsq",
                     "lu_factor", "matrix_rank", "norm", "pinv", "qr", "solve",
                     "solve_triangular", "svd"), "linalg"),
    **dict.fromkeys(("erf", "erfc", "erfinv", "extract_sequences", "fft", "fft2", "ifft2",
                     "in_top_k", "irfft", "logdet", "istft", "logsumexp", "rfft", "rsqrt",
                     "stft", "view_as_complex", "view_as_real",
                     "segment_max", "segment_min", "segment_prod", "segment_sum", "top_k"),
                    "math"),
}
# Ops with no Keras class: saved in kgraph's own form (kgraph loads them; Keras cannot).
NO_KERAS_CLASS = frozenset(("bartlett", "blackman", "cdist", "empty", "extract_patches_3d",
                            "eye", "hamming", "hanning", "identity", "kaiser", "ones", "swish",
                            "tri", "zeros"))
ACTIVATION_OPS = ("mish", "relu_activation")  # ops of keras.src.activations.activations
# Keras's class names beyond the op classes' own (kgraph.ops.operation_classes.class_name)
_CLASS_NAMES = {"relu_activation": "ReLU", "hard_swish": "HardSilu"}
_OP_NAMES = {class_name: op for op, class_name in _CLASS_NAMES.items()}


def _op_name(class_name: str) -> str:
    """The op of Keras's op class ``class_name`` (``"FFT"`` -> ``"fft"``)."""
    op = _OP_NAMES.get(class_name)
    if op is None:
        op = next((name for name in registry.op_names()
                   if operation_classes.class_name(name) == class_name), None)
    return op or naming.to_snake_case(class_name)
# The parameters Keras passes as call arguments, where they differ from kgraph's tensor
# parameters (kgraph stores the others on the node; Keras gives them to the constructor).
_KERAS_CALL_PARAMS = {
    "arange": ("start", "stop", "step"), "array": ("x",), "bincount": ("x",), "clip": ("x",),
    "batch_normalization": ("x", "mean", "variance", "offset", "scale"),
    "dot_product_attention": ("query", "key", "value", "bias", "mask", "scale"),
    "full": ("fill_value",), "geomspace": ("start", "stop"), "get_item": ("x", "key"),
    "isclose": ("x1", "x2", "rtol", "atol"), "linspace": ("start", "stop"),
    "logspace": ("start", "stop"), "nanpercentile": ("x", "q"), "nanquantile": ("x", "q"),
    "pad": ("x", "constant_values"), "percentile": ("x", "q"), "quantile": ("x", "q"),
    "select": ("condlist", "choicelist", "default"),
    "slice_update": ("inputs", "start_indices", "updates"), "trapezoid": ("y",),
}
# Parameters only Keras's op has: read when they hold Keras's default, refused otherwise.
_KERAS_ONLY_PARAMS = {"layer_normalization": {"rms_scaling": False}}

# Parameters only kgraph's op has: written for Keras when at their default (left out).
_KGRAPH_ONLY_PARAMS: dict = {}


def keras_class_name(op: str) -> str:
    """``"not_equal"`` -> ``"NotEqual"`` (Keras's op class names)."""
    return _CLASS_NAMES.get(op) or operation_classes.class_name(op)


def keras_module(op: str) -> str:
    if op in ACTIVATION_OPS:
        return "keras.src.activations.activations"
    return f"keras.src.ops.{_MODULES.get(op, 'numpy')}"


def _op_parameters(op: str):
    """``(all parameters in order, kgraph's tensor parameters)`` of kgraph's op ``op``."""
    public = registry.get_op(op)
    function = getattr(public, "__wrapped__", None) or registry.get_impl(op)
    params = tuple(inspect.signature(function).parameters)
    tensors = getattr(public, "tensor_params", None)
    return params, (params if tensors is None else tensors)


def _is_keras_tensor(value) -> bool:
    return isinstance(value, dict) and value.get("class_name") == "__keras_tensor__"


def _untuple(value):
    """Tuples as lists, the way Keras writes node arguments and op parameters."""
    if isinstance(value, list):
        return [_untuple(v) for v in value]
    if not isinstance(value, dict):
        return value
    if value.get("class_name") == "__tuple__" and isinstance(value.get("config"), dict):
        return _untuple(value["config"].get("value", []))
    return {k: _untuple(v) for k, v in value.items()}


def _keras_function(spec):
    """A Lambda's ``{"module", "name"}`` function as Keras writes a named function."""
    if isinstance(spec, dict) and set(spec) == {"module", "name"}:
        return {"module": spec["module"], "class_name": "function", "config": spec["name"],
                "registered_name": "function"}
    return spec


def _rename_modules(value):
    """Keras's module names for kgraph's classes, everywhere in a config."""
    if isinstance(value, list):
        return [_rename_modules(v) for v in value]
    if not isinstance(value, dict):
        return value
    out = {k: _rename_modules(v) for k, v in value.items()}
    module, class_name = out.get("module"), out.get("class_name")
    if class_name == "Lambda" and module == "kgraph.layers" and isinstance(out.get("config"),
                                                                           dict):
        out["config"] = {k: _keras_function(v) if k in ("function", "output_shape", "mask")
                         else v for k, v in out["config"].items()}
    if module == "kgraph.layers" and class_name != "Operation":
        out["module"] = "keras.layers"
    elif module == "kgraph" and class_name == "Functional":
        out["module"], out["registered_name"] = "keras.src.models.functional", "Functional"
    elif module == "kgraph" and class_name in ("Sequential", "InputLayer"):
        out["module"] = "keras" if class_name == "Sequential" else "keras.layers"
    return out


def _op_entry_to_keras(entry, path):
    op = entry["config"]["op"]
    if op in NO_KERAS_CLASS:
        return entry
    _, tensors = _op_parameters(op)
    keras_call = _KERAS_CALL_PARAMS.get(op, tensors)
    static = dict(entry["config"].get("kwargs") or {})
    for param, default in _KGRAPH_ONLY_PARAMS.get(op, {}).items():
        if static.pop(param, default) != default:
            raise ConfigError(f"Cannot write {path} (op {op!r}) for Keras: Keras's op has no "
                              f"{param!r} parameter (only its default, {default!r}, is "
                              "written).")
    nodes = []
    for node in entry.get("inbound_nodes", []):
        values = dict(zip(tensors, node["args"]))
        values.update(static)
        args = [values.pop(p) for p in keras_call if p in values]
        computed = sorted(p for p, v in values.items() if _is_keras_tensor(v))
        if computed:
            raise ConfigError(f"Cannot write {path} (op {op!r}) for Keras: Keras takes "
                              f"{computed} as constants, this graph computes them.")
        nodes.append({"args": args, "kwargs": node.get("kwargs", {})})
        static = values  # the same for every node of one Operation
    name = entry["config"].get("name")
    class_name = keras_class_name(op)
    return {**entry, "module": keras_module(op), "class_name": class_name,
            "registered_name": class_name, "config": _untuple({"name": name, **static}),
            "inbound_nodes": _untuple(nodes)}


def _op_entry_from_keras(entry, path):
    class_name = entry.get("class_name")
    op = _op_name(class_name)
    if op not in registry.op_names():
        raise ConfigError(f"Invalid config at {path}: Keras op {class_name!r} "
                          f"({entry.get('module')}) has no kgraph equivalent.")
    params, tensors = _op_parameters(op)
    keras_call = _KERAS_CALL_PARAMS.get(op, tensors)
    config = dict(entry.get("config") or {})
    name = config.pop("name", entry.get("name"))
    for param, default in _KERAS_ONLY_PARAMS.get(op, {}).items():
        if param in config and config.pop(param) != default:
            raise ConfigError(f"Invalid config at {path}: kgraph's {op} supports only "
                              f"{param}={default!r}.")
    unknown = [p for p in config if p not in params]
    if unknown:
        raise ConfigError(f"Invalid config at {path}: op {class_name!r} has parameter(s) "
                          f"{unknown} that kgraph's ops.{op} does not take.")
    nodes, static = [], {}
    for i, node in enumerate(entry.get("inbound_nodes") or []):
        if not isinstance(node, dict):
            raise ConfigError(f"Invalid config at {path}[\"inbound_nodes\"][{i}]: expected a "
                              f"node {{\"args\", \"kwargs\"}}, received {type(node).__name__}.")
        args = list(node.get("args") or [])
        if len(args) > len(keras_call):
            raise ConfigError(f"Invalid config at {path}[\"inbound_nodes\"][{i}]: op "
                              f"{class_name!r} takes {len(keras_call)} arguments, received "
                              f"{len(args)}.")
        call_kwargs = node.get("kwargs") or {}
        if not isinstance(call_kwargs, dict) or any(k not in keras_call for k in call_kwargs):
            raise ConfigError(f"Invalid config at {path}[\"inbound_nodes\"][{i}]: op "
                              f"{class_name!r} takes call arguments {list(keras_call)}, "
                              f"received {call_kwargs!r}.")
        values = {**config, **dict(zip(keras_call, args)), **call_kwargs}
        node_args = [values.pop(p) for p in tensors if p in values]
        computed = sorted(p for p, v in values.items() if _is_keras_tensor(v))
        if computed:
            raise ConfigError(f"Invalid config at {path}: op {class_name!r} computes "
                              f"{computed} in the graph; kgraph needs them constant.")
        if op == "get_item" and isinstance(values.get("key"), list):
            values["key"] = {"class_name": "__tuple__", "config": {"value": values["key"]}}
        nodes.append({"args": node_args, "kwargs": {}})
        static = values
    return {"module": "kgraph.layers", "class_name": "Operation",
            "config": {"name": name, "op": op, "kwargs": static},
            "registered_name": None, "name": entry.get("name", name), "inbound_nodes": nodes}


def _is_keras_op(entry) -> bool:
    if not isinstance(entry, dict):
        return False
    module = str(entry.get("module", ""))
    return module.startswith("keras.src.ops.") or (
        module == "keras.src.activations.activations"
        and entry.get("class_name") in _ACTIVATION_CLASSES)


_ACTIVATION_CLASSES = frozenset(keras_class_name(op) for op in ACTIVATION_OPS)


def _is_kgraph_op(entry) -> bool:
    return (isinstance(entry, dict) and entry.get("class_name") == "Operation"
            and str(entry.get("module", "")).startswith("kgraph")
            and isinstance(entry.get("config"), dict) and "op" in entry["config"])


def _convert_entries(value, convert, is_op, path):
    """``convert`` every op entry of every ``layers`` list in a config (nested included)."""
    if isinstance(value, list):
        return [_convert_entries(v, convert, is_op, f"{path}[{i}]") for i, v in enumerate(value)]
    if not isinstance(value, dict):
        return value
    out = {}
    for key, item in value.items():
        where = f'{path}["{key}"]'
        if key == "layers" and isinstance(item, list):
            out[key] = [convert(entry, f"{where}[{i}]") if is_op(entry)
                        else _convert_entries(entry, convert, is_op, f"{where}[{i}]")
                        for i, entry in enumerate(item)]
        else:
            out[key] = _convert_entries(item, convert, is_op, where)
    return out


def to_keras(config: dict) -> dict:
    """A serialized kgraph model, in the form Keras 3 writes and reads."""
    return _rename_modules(_convert_entries(config, _op_entry_to_keras, _is_kgraph_op,
                                            "config"))


def from_keras(config: dict) -> dict:
    """A Keras 3 model config with its op nodes (``keras.src.ops.*``) as kgraph's."""
    return _convert_entries(config, _op_entry_from_keras, _is_keras_op, "config")
