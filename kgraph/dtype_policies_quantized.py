"""Keras's quantized dtype policies: a layer quantized to ``mode`` from a float policy.

A quantized policy is named ``"<mode>_from_<source>"`` (``"int8_from_float32"``,
``"float8_from_mixed_bfloat16"``, ``"int4/128_from_float32"``, ``"gptq/4/128_from_float32"``)
and computes and stores its float weights as its source policy does.

>>> policy = by_name("int8_from_mixed_bfloat16")
>>> type(policy).__name__, policy.quantization_mode, policy.compute_dtype.name
('QuantizedDTypePolicy', 'int8', 'bfloat16')
>>> Int4DTypePolicy("int4/64", "float32").block_size
64
"""

from __future__ import annotations

from kgraph.dtype_policy import DTypePolicy, global_policy, register_quantized

__all__ = ["AWQDTypePolicy", "GPTQDTypePolicy", "Int4DTypePolicy", "QUANTIZATION_MODES",
           "QuantizedDTypePolicy", "QuantizedFloat8DTypePolicy", "by_name", "from_config"]

QUANTIZATION_MODES = ("int8", "float8", "int4", "gptq", "awq")


class QuantizedDTypePolicy(DTypePolicy):
    """A layer quantized to ``mode`` (``"int8"``, ``"int4"``, ...), its float computations
    and weights in ``source_name``'s dtypes (default: the global policy's)."""

    def __init__(self, mode, source_name=None):
        if source_name is None:
            source_name = global_policy().name
        DTypePolicy.__init__(self, source_name)
        if mode not in QUANTIZATION_MODES:
            raise ValueError(f"Invalid quantization mode. Expected one of "
                             f"{QUANTIZATION_MODES}. Received: mode={mode}")
        if self.compute_dtype.name == "float16" and mode == "int8":
            raise ValueError(f"Quantization mode='{mode}' doesn't work well with "
                             "compute_dtype='float16'.")
        self.name = f"{mode}_from_{source_name}"
        self._source_name = source_name
        self._quantization_mode = mode

    @property
    def quantization_mode(self):
        """The quantization mode (``"int8"``, ``"float8"``, ``"int4"``, ``"gptq"``,
        ``"awq"``)."""
        return self._quantization_mode

    @property
    def source_name(self):
        return self._source_name

    def _key(self):
        return (self.name, self._quantization_mode, self._source_name)

    def __eq__(self, other):
        return type(other) is type(self) and other._key() == self._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return f'<{type(self).__name__} "{self.name}">'

    def get_config(self):
        return {"mode": self._quantization_mode, "source_name": self._source_name}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class QuantizedFloat8DTypePolicy(QuantizedDTypePolicy):
    """Float8 training; ``amax_history_length`` is the length of the amax histories its
    delayed scaling keeps."""

    default_amax_history_length = 1024

    def __init__(self, mode, source_name=None, amax_history_length=1024):
        super().__init__(mode=mode, source_name=source_name)
        if not isinstance(amax_history_length, int):
            raise TypeError("`amax_history_length` must be an integer. Received: "
                            f"amax_history_length={amax_history_length}")
        self._amax_history_length = amax_history_length

    @property
    def amax_history_length(self):
        return self._amax_history_length

    def _key(self):
        return super()._key() + (self._amax_history_length,)

    def get_config(self):
        return {**super().get_config(), "amax_history_length": self._amax_history_length}


class Int4DTypePolicy(QuantizedDTypePolicy):
    """int4 with a block size: ``mode`` is ``"int4/<block_size>"`` (-1: per channel)."""

    def __init__(self, mode, source_name=None):
        expected = "'int4/<block_size>'"
        parts = mode.split("/")
        if len(parts) != 2 or parts[0] != "int4":
            raise ValueError(f"Invalid mode for Int4DTypePolicy. Expected format {expected}, "
                             f"but got '{mode}'.")
        try:
            block_size = int(parts[1])
        except ValueError:
            raise ValueError("Invalid mode for Int4DTypePolicy. <block_size> must be an "
                             f"integer. Expected format {expected}, but got '{mode}'.") from None
        if block_size < -1 or block_size == 0:
            raise ValueError("Invalid block_size in mode. Supported values are -1 "
                             "(per-channel) or a positive integer (sub-channel), but got "
                             f"{block_size} from '{mode}'.")
        super().__init__(mode="int4", source_name=source_name)
        self.name = f"{mode}_from_{source_name}"
        self.mode = "int4"
        self.block_size = block_size

    def _key(self):
        return super()._key() + (self.block_size,)

    def get_config(self):
        return {**super().get_config(), "mode": f"int4/{self.block_size}"}


class _CalibratedPolicy(QuantizedDTypePolicy):
    """``"<algorithm>/<weight_bits>/<group_size>"`` policies (GPTQ, AWQ)."""

    _algorithm = ""
    _bits = ()

    def __init__(self, mode, source_name=None):
        title = type(self).__name__
        expected = f"'{self._algorithm}/<weight_bits>/<group_size>'"
        parts = mode.split("/")
        if len(parts) != 3 or parts[0] != self._algorithm:
            raise ValueError(f"Invalid mode for {title}. Expected format {expected}, but got "
                             f"'{mode}'.")
        try:
            weight_bits, group_size = int(parts[1]), int(parts[2])
        except ValueError:
            raise ValueError(f"Invalid mode for {title}. <weight_bits> and <group_size> must "
                             f"be integers. Expected format {expected}, but got "
                             f"'{mode}'.") from None
        if weight_bits not in self._bits:
            if self._algorithm == "awq":
                raise ValueError("Invalid weight_bits in mode. AWQ only supports 4-bit "
                                 f"quantization, but got {weight_bits} from '{mode}'.")
            raise ValueError("Invalid weight_bits in mode. Supported values are 2, 3, 4, and "
                             f"8, but got {weight_bits} from '{mode}'.")
        if group_size < -1 or group_size == 0:
            what = "per-channel" if self._algorithm == "awq" else "whole-tensor"
            raise ValueError(f"Invalid group_size in mode. Supported values are -1 ({what}) "
                             f"or a positive integer, but got {group_size} from '{mode}'.")
        super().__init__(mode=self._algorithm, source_name=source_name)
        self.name = f"{mode}_from_{source_name}"
        self.mode = self._algorithm
        self.weight_bits = weight_bits
        self.group_size = group_size

    def _key(self):
        return super()._key() + (self.weight_bits, self.group_size)

    def get_config(self):
        return {**super().get_config(),
                "mode": f"{self._algorithm}/{self.weight_bits}/{self.group_size}"}


class GPTQDTypePolicy(_CalibratedPolicy):
    """GPTQ: ``mode`` is ``"gptq/<weight_bits>/<group_size>"`` (bits 2, 3, 4 or 8;
    group size -1 for the whole tensor)."""

    _algorithm, _bits = "gptq", (2, 3, 4, 8)


class AWQDTypePolicy(_CalibratedPolicy):
    """AWQ: ``mode`` is ``"awq/4/<group_size>"`` (group size -1 per channel)."""

    _algorithm, _bits = "awq", (4,)


CLASSES = {cls.__name__: cls for cls in (QuantizedDTypePolicy, QuantizedFloat8DTypePolicy,
                                         Int4DTypePolicy, GPTQDTypePolicy, AWQDTypePolicy)}


def by_name(name) -> QuantizedDTypePolicy:
    """The policy a ``"<mode>_from_<source>"`` name stands for (Keras's
    ``_get_quantized_dtype_policy_by_str``)."""
    if not isinstance(name, str):
        raise TypeError(f"`policy` must be a string. Received: policy={name}")
    if not name.startswith(QUANTIZATION_MODES):
        raise ValueError("`policy` is incompatible with the current supported quantization.")
    parts = name.split("_from_")
    if len(parts) != 2:
        raise ValueError("Cannot convert `policy` into a valid pair (`mode`, `source_name`) "
                         f"to instantiate `QuantizedDTypePolicy`. Received: policy={name}")
    mode, source = parts
    if name.startswith("int8") or (name.startswith("int4") and "/" not in mode):
        return QuantizedDTypePolicy(mode, source)
    if name.startswith("int4"):
        return Int4DTypePolicy(mode, source)
    if name.startswith("gptq"):
        return GPTQDTypePolicy(mode, source)
    if name.startswith("awq"):
        return AWQDTypePolicy(mode, source)
    return QuantizedFloat8DTypePolicy(mode, source)


def from_config(class_name, config) -> QuantizedDTypePolicy:
    """A quantized policy from its Keras class name and config."""
    return CLASSES[class_name].from_config(dict(config or {}))


register_quantized(QUANTIZATION_MODES, CLASSES, by_name, from_config)  # for dtype_policy.get
