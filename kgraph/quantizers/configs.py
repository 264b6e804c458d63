"""Keras's quantization configs: what ``quantize(mode, config=...)`` takes.

``Int8QuantizationConfig`` and ``Int4QuantizationConfig`` choose the weight and activation
quantizers (and int4's ``block_size``), ``Float8QuantizationConfig`` selects float8
training; ``GPTQConfig`` and ``AWQConfig`` hold the settings of those calibration-based
algorithms. ``serialize`` / ``deserialize`` / ``get`` read and write Keras 3's configs of
these configs and of the quantizers (``kgraph.quantizers`` offers them).

>>> config = Int8QuantizationConfig()
>>> config.mode, type(config.activation_quantizer).__name__
('int8', 'AbsMaxQuantizer')
>>> config = Int4QuantizationConfig(block_size=64).get_config()
>>> Int4QuantizationConfig.from_config(config).block_size
64
"""

from __future__ import annotations

import inspect

from kgraph.base.naming import to_snake_case
from kgraph.dtype_policies_quantized import Int4DTypePolicy
from kgraph.quantizers.quantizers import AbsMaxQuantizer, Quantizer

__all__ = ["ALL_OBJECTS_DICT", "AWQConfig", "Float8QuantizationConfig", "GPTQConfig",
           "Int4QuantizationConfig", "Int8QuantizationConfig", "QUANTIZATION_MODES",
           "QuantizationConfig", "block_size_for_layer", "deserialize", "get",
           "register_keras_object_codec", "serialize", "validate_and_resolve_config"]

QUANTIZATION_MODES = ("int8", "float8", "int4", "gptq", "awq")


def _serialize(obj):
    return serialize(obj)


def _deserialize(config):
    return deserialize(config)


class QuantizationConfig:
    """Base class of quantization configs: a weight and an activation quantizer; a
    subclass names its ``mode``."""

    def __init__(self, weight_quantizer=None, activation_quantizer=None):
        self.weight_quantizer = weight_quantizer
        self.activation_quantizer = activation_quantizer

    @property
    def mode(self):
        raise NotImplementedError("Subclasses must implement this property. Do not "
                                  "instantiate QuantizationConfig directly.")

    def get_config(self):
        return {"weight_quantizer": _serialize(self.weight_quantizer),
                "activation_quantizer": _serialize(self.activation_quantizer)}

    @classmethod
    def from_config(cls, config):
        return cls(weight_quantizer=_deserialize(config.get("weight_quantizer")),
                   activation_quantizer=_deserialize(config.get("activation_quantizer")))

    @staticmethod
    def weight_quantizer_or_default(config, default):
        """``config``'s weight quantizer, else ``default``."""
        if config is not None and config.weight_quantizer is not None:
            return config.weight_quantizer
        return default

    @staticmethod
    def activation_quantizer_or_default(config, default):
        """``config``'s activation quantizer (None: weight-only) if there is a config,
        else ``default``."""
        if config is not None:
            return config.activation_quantizer
        return default


class Int8QuantizationConfig(QuantizationConfig):
    """int8 weights; activations quantized by ``activation_quantizer`` (``"default"``: an
    ``AbsMaxQuantizer`` on the last axis; None: weight-only)."""

    def __init__(self, weight_quantizer=None, activation_quantizer="default"):
        if isinstance(activation_quantizer, str) and activation_quantizer == "default":
            activation_quantizer = AbsMaxQuantizer()
        super().__init__(weight_quantizer, activation_quantizer)
        if self.weight_quantizer is not None and self.weight_quantizer.output_dtype != "int8":
            raise ValueError("Int8QuantizationConfig requires a weight_quantizer with "
                             "output_dtype='int8'. Received: "
                             f"output_dtype={self.weight_quantizer.output_dtype}")

    @property
    def mode(self):
        return "int8"


class Int4QuantizationConfig(QuantizationConfig):
    """int4 weights (two per byte), weight-only by default.

    ``block_size``: rows per scale group along the input dimension (sub-channel,
    asymmetric with a zero point); None or -1: one scale per output channel. Sub-channel
    quantization takes no custom quantizers.
    """

    def __init__(self, weight_quantizer=None, activation_quantizer="default", block_size=128):
        if isinstance(activation_quantizer, str) and activation_quantizer == "default":
            activation_quantizer = None
        super().__init__(weight_quantizer, activation_quantizer)
        if block_size is not None and block_size != -1 and block_size <= 0:
            raise ValueError(f"block_size must be None, -1, or a positive integer. Received: "
                             f"block_size={block_size}")
        self.block_size = block_size
        sub_channel = block_size is not None and block_size > 0
        if sub_channel and (self.weight_quantizer is not None
                            or self.activation_quantizer is not None):
            raise ValueError("Int4 sub-channel quantization (block_size > 0) does not support "
                             "custom quantizers. Either set block_size to None or -1 for "
                             "per-channel quantization, or remove the custom quantizer "
                             f"arguments. Received: block_size={block_size}")
        if self.weight_quantizer is not None:
            if tuple(self.weight_quantizer.value_range) != (-8, 7):
                raise ValueError("Int4QuantizationConfig requires a weight_quantizer with "
                                 "value_range=(-8, 7). Received: "
                                 f"value_range={self.weight_quantizer.value_range}")
            if self.weight_quantizer.output_dtype != "int8":
                raise ValueError("Int4QuantizationConfig requires a weight_quantizer with "
                                 "output_dtype='int8'. Received: "
                                 f"output_dtype={self.weight_quantizer.output_dtype}")

    @property
    def mode(self):
        return "int4"

    def get_config(self):
        return {**super().get_config(), "block_size": self.block_size}

    @classmethod
    def from_config(cls, config):
        # A config saved before block_size existed meant per-channel quantization.
        return cls(weight_quantizer=_deserialize(config.get("weight_quantizer")),
                   activation_quantizer=_deserialize(config.get("activation_quantizer")),
                   block_size=config.get("block_size", None))


class Float8QuantizationConfig(QuantizationConfig):
    """Float8 training (delayed scaling); it takes no quantizers."""

    def __init__(self):
        super().__init__(None, None)

    @property
    def mode(self):
        return "float8"

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        return cls()


def _check_calibration(weight_bits, bits_allowed, num_samples, sequence_length, group_size,
                       algorithm):
    if weight_bits not in bits_allowed:
        if algorithm == "AWQ":
            raise ValueError(f"AWQ only supports 4-bit quantization. Received "
                             f"weight_bits={weight_bits}.")
        raise ValueError(f"Unsupported weight_bits {weight_bits}. Supported values are 2, 3, "
                         "4, and 8.")
    if num_samples <= 0:
        raise ValueError("num_samples must be a positive integer.")
    if sequence_length <= 0:
        raise ValueError("sequence_length must be a positive integer.")
    if group_size < -1 or group_size == 0:
        what = "per-channel" if algorithm == "AWQ" else "whole-tensor"
        raise ValueError(f"Invalid group_size. Supported values are -1 ({what}) or a positive "
                         f"integer, but got {group_size}.")


class GPTQConfig(QuantizationConfig):
    """Settings of GPTQ (post-training quantization that corrects each layer's error with
    its inputs' Hessian, from calibration data). ``dataset`` and ``tokenizer`` are used
    once and not saved in the config. kgraph keeps the settings; running the algorithm
    (``model.quantize("gptq", config=...)``) is not offered."""

    def __init__(self, dataset, tokenizer, *, weight_bits: int = 4, num_samples: int = 128,
                 per_channel: bool = True, sequence_length: int = 512,
                 hessian_damping: float = 0.01, group_size: int = 128,
                 symmetric: bool = False, activation_order: bool = False,
                 quantization_layer_structure: dict = None):
        super().__init__()
        _check_calibration(weight_bits, (2, 3, 4, 8), num_samples, sequence_length,
                           group_size, "GPTQ")
        if hessian_damping < 0 or hessian_damping > 1:
            raise ValueError("hessian_damping must be between 0 and 1.")
        self.dataset, self.tokenizer = dataset, tokenizer
        self.num_samples = num_samples
        self.per_channel = per_channel
        self.sequence_length = sequence_length
        self.hessian_damping = hessian_damping
        self.weight_bits = weight_bits
        self.group_size = group_size
        self.symmetric = symmetric
        self.activation_order = activation_order
        self.quantization_layer_structure = quantization_layer_structure

    def get_config(self):
        return {"dataset": None, "tokenizer": None, "weight_bits": self.weight_bits,
                "num_samples": self.num_samples, "per_channel": self.per_channel,
                "sequence_length": self.sequence_length,
                "hessian_damping": self.hessian_damping, "group_size": self.group_size,
                "symmetric": self.symmetric, "activation_order": self.activation_order,
                "quantization_layer_structure": self.quantization_layer_structure}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    @property
    def mode(self):
        return "gptq"

    def dtype_policy_string(self):
        """The mode part of the policy name: ``"gptq/<weight_bits>/<group_size>"``."""
        return f"gptq/{self.weight_bits}/{self.group_size}"


class AWQConfig(QuantizationConfig):
    """Settings of AWQ (activation-aware 4-bit weight quantization: per-channel scales
    from calibration activations protect salient weights). kgraph keeps the settings;
    running the algorithm (``model.quantize("awq", config=...)``) is not offered."""

    def __init__(self, dataset, tokenizer, *, weight_bits: int = 4, num_samples: int = 128,
                 sequence_length: int = 512, group_size: int = 128, num_grid_points: int = 20,
                 quantization_layer_structure: dict = None):
        super().__init__()
        _check_calibration(weight_bits, (4,), num_samples, sequence_length, group_size, "AWQ")
        if num_grid_points <= 0:
            raise ValueError("num_grid_points must be a positive integer.")
        self.dataset, self.tokenizer = dataset, tokenizer
        self.weight_bits = weight_bits
        self.num_samples = num_samples
        self.sequence_length = sequence_length
        self.group_size = group_size
        self.num_grid_points = num_grid_points
        self.quantization_layer_structure = quantization_layer_structure

    @property
    def mode(self):
        return "awq"

    def dtype_policy_string(self):
        """The mode part of the policy name: ``"awq/<weight_bits>/<group_size>"``."""
        return f"awq/{self.weight_bits}/{self.group_size}"

    def get_config(self):
        return {"dataset": None, "tokenizer": None, "weight_bits": self.weight_bits,
                "num_samples": self.num_samples, "sequence_length": self.sequence_length,
                "group_size": self.group_size, "num_grid_points": self.num_grid_points,
                "quantization_layer_structure": self.quantization_layer_structure}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def _check_mode(mode):
    if mode is not None and mode not in QUANTIZATION_MODES:
        raise ValueError(f"Invalid quantization mode. Expected one of {QUANTIZATION_MODES}. "
                         f"Received: mode={mode}")


_DEFAULTS = {"int8": Int8QuantizationConfig, "int4": Int4QuantizationConfig,
             "float8": Float8QuantizationConfig}


def validate_and_resolve_config(mode, config):
    """The config ``quantize(mode, config)`` runs with: ``config``, else ``mode``'s default
    config (GPTQ and AWQ need one); a string ``config`` is a mode. Raises on an unknown
    mode, a config that is not a ``QuantizationConfig``, or a ``mode`` the config
    contradicts.

    >>> validate_and_resolve_config("int4", None).block_size
    128
    """
    if isinstance(config, str):
        mode, config = config, None
    _check_mode(mode)
    if config is None:
        if mode in _DEFAULTS:
            config = _DEFAULTS[mode]()
        elif mode == "gptq":
            raise ValueError("For GPTQ, you must pass a `GPTQConfig` object in the `config` "
                             "argument.")
        elif mode == "awq":
            raise ValueError("For AWQ, you must pass an `AWQConfig` object in the `config` "
                             "argument.")
        else:
            raise ValueError("You must provide either `mode` or `config` to `quantize`.")
    elif not isinstance(config, QuantizationConfig):
        raise ValueError("Argument `config` must be an instance of `QuantizationConfig`. "
                         f"Received: config={config} (of type {type(config)})")
    if mode is not None and config.mode != mode:
        raise ValueError(f"Contradictory arguments: mode='{mode}' but config.mode="
                         f"'{config.mode}'")
    _check_mode(config.mode)
    if config.mode == "gptq" and not isinstance(config, GPTQConfig):
        raise ValueError("Mode 'gptq' requires a valid `config` argument of type "
                         f"`GPTQConfig`. Received: {type(config)}")
    if config.mode == "awq" and not isinstance(config, AWQConfig):
        raise ValueError("Mode 'awq' requires a valid `config` argument of type `AWQConfig`. "
                         f"Received: {type(config)}")
    return config


def block_size_for_layer(layer, config):
    """The int4 block size of ``layer``: ``config``'s if it is an
    ``Int4QuantizationConfig``, else its ``Int4DTypePolicy``'s (-1 meaning per channel
    gives None), else None (per channel)."""
    if config and isinstance(config, Int4QuantizationConfig):
        return config.block_size
    policy = getattr(layer.dtype_policy, "default_policy", layer.dtype_policy)
    if isinstance(policy, Int4DTypePolicy):
        return None if policy.block_size == -1 else policy.block_size
    return None


# ----------------------------------------------------------------------- serialization
# What a config may name, by class name and by its snake_case (as Keras's table)
_OBJECTS = (Quantizer, AbsMaxQuantizer, QuantizationConfig, Int8QuantizationConfig,
            Int4QuantizationConfig, Float8QuantizationConfig, AWQConfig, GPTQConfig)
ALL_OBJECTS_DICT = {cls.__name__: cls for cls in _OBJECTS}
ALL_OBJECTS_DICT.update({to_snake_case(cls.__name__): cls for cls in _OBJECTS})

# Keras's ``serialize_keras_object`` / ``deserialize_keras_object``, for registered custom
# quantizers: ``kgraph.saving`` (above this module) registers them when it is imported
# (``import kgraph`` imports it).
_KERAS_OBJECT_CODEC = {}


def register_keras_object_codec(serialize_keras_object, deserialize_keras_object) -> None:
    """Set the functions ``serialize`` and ``deserialize`` use for objects not of this
    module (called by ``kgraph.saving.object_config``)."""
    _KERAS_OBJECT_CODEC.update(serialize=serialize_keras_object,
                               deserialize=deserialize_keras_object)


def serialize(obj):
    """Keras 3's config of a quantizer or quantization config (None stays None)."""
    if obj is None:
        return None
    if type(obj) in _OBJECTS:
        config = {key: serialize(value) if isinstance(value, (Quantizer, QuantizationConfig))
                  else value for key, value in obj.get_config().items()}
        return {"module": "keras.quantizers", "class_name": type(obj).__name__,
                "config": config, "registered_name": None}
    return _KERAS_OBJECT_CODEC["serialize"](obj)  # a registered custom quantizer


def deserialize(config, custom_objects=None):
    """The quantizer or config that ``serialize`` (or Keras) described; a name of one of
    this module's classes gives the class."""
    if config is None:
        return None
    if isinstance(config, str) and config in ALL_OBJECTS_DICT:
        return ALL_OBJECTS_DICT[config]
    if isinstance(config, dict) and config.get("class_name") in ALL_OBJECTS_DICT and not (
            custom_objects and config["class_name"] in custom_objects):
        cls = ALL_OBJECTS_DICT[config["class_name"]]
        inner = dict(config.get("config") or {})
        if "value_range" in inner and isinstance(inner["value_range"], list):
            inner["value_range"] = tuple(inner["value_range"])  # a JSON file's list
        if isinstance(inner.get("axis"), list):
            inner["axis"] = tuple(inner["axis"])
        return cls.from_config(inner)
    return _KERAS_OBJECT_CODEC["deserialize"](config, custom_objects=custom_objects)


def get(identifier, **kwargs):
    """A quantizer or config from None, a config dict, a class name (the class is made
    with ``kwargs`` as its first argument, as Keras does) or an instance."""
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        obj = deserialize(identifier)
    elif isinstance(identifier, str):
        obj = ALL_OBJECTS_DICT.get(identifier, None)
    else:
        obj = identifier
    if callable(obj):
        if inspect.isclass(obj):
            obj = obj(kwargs)
        return obj
    raise ValueError(f"Could not interpret quantizer identifier: {identifier}")
