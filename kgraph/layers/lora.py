"""Low-rank adaptation (LoRA) of a layer's kernel, as Keras 3's ``enable_lora``.

``layer.enable_lora(rank)`` (or ``lora_rank=`` at construction, applied when the layer
builds) freezes the layer's ``kernel`` (``embeddings`` for ``Embedding``) and adds two
trainable float32 weights, ``lora_kernel_a`` ``(*kernel.shape[:-1], rank)`` (He-uniform)
and ``lora_kernel_b`` ``(rank, kernel.shape[-1])`` (zeros). The layer then computes with

    kernel + (lora_alpha / rank) * lora_kernel_a @ lora_kernel_b

which is also what ``layer.kernel`` reads, as Keras's property. Saving writes that merged
kernel in the kernel's place (the file has the layer's usual weights, so a model without
LoRA reads it); loading a file into a LoRA layer sets the frozen kernel and zeroes the two
factors, as Keras does. ``Dense``, ``EinsumDense``, ``Embedding`` (and
``ReversibleEmbedding``) and ``Conv1D`` / ``Conv2D`` / ``Conv3D`` take it; an int8 or int4
quantized layer too (the factors shaped as its float kernel, the merged kernel saved
requantized), and quantizing a LoRA layer quantizes its frozen kernel.

>>> import kgraph as kg, numpy as np
>>> layer = kg.layers.Dense(3, name="lora_dense")
>>> _ = layer(np.ones((2, 4), "float32"))
>>> layer.enable_lora(2)
>>> [(w.name, w.shape, w.trainable) for w in layer.weights]  # doctest: +NORMALIZE_WHITESPACE
[('kernel', (4, 3), False), ('bias', (3,), True), ('lora_kernel_a', (4, 2), True),
 ('lora_kernel_b', (2, 3), True)]
"""

from __future__ import annotations

import numbers

import jax.numpy as jnp
import numpy as np

from kgraph import initializers
from kgraph.layers import quantized_lora

__all__ = ["LoRA"]


class LoRA:
    """Keras's ``enable_lora`` for a layer whose adapted weight is the attribute
    ``_lora_weight`` (``"kernel"`` or ``"embeddings"``). Mixed in before ``Layer`` (and
    before ``Quantizable``)."""

    _lora_weight = "kernel"
    _offers_lora = True  # False: a subclass Keras gives no LoRA (transposed convolutions)
    _lora_alpha_at_build = True  # False: ``build`` enables LoRA with alpha = rank, as Keras's
    lora_rank = None                # Dense and Embedding do (their lora_alpha is dropped)
    lora_alpha = None
    lora_enabled = False

    def _init_lora(self, lora_rank, lora_alpha):
        """Store the constructor's ``lora_rank`` / ``lora_alpha`` (applied by ``build``)."""
        if not type(self)._offers_lora:
            given = {k: v for k, v in (("lora_rank", lora_rank), ("lora_alpha", lora_alpha))
                     if v is not None}
            if given:
                raise ValueError(f"Unrecognized keyword arguments passed to "
                                 f"{type(self).__name__}: {given}")
        elif lora_rank is not None and not _positive_int(lora_rank):
            raise ValueError(f'Layer "{self.name}": lora_rank must be a positive integer or '
                             f"None, received lora_rank={lora_rank!r}.")
        self.lora_rank = lora_rank
        self.lora_alpha = lora_alpha if lora_alpha is not None else lora_rank
        self.lora_enabled = False

    def _lora_factor_names(self):
        prefix = f"lora_{type(self)._lora_weight}"
        return f"{prefix}_a", f"{prefix}_b"

    def _lora_factors(self) -> list:
        """The two factors' variables (``a``, ``b``)."""
        var_attrs = self.__dict__["_var_attrs"]
        return [var_attrs[name] for name in self._lora_factor_names()]

    def _build_lora(self):
        """End of ``build``: enable LoRA if the constructor asked for it."""
        if self.lora_rank and not self.lora_enabled:
            alpha = self.lora_alpha if type(self)._lora_alpha_at_build else None
            self.enable_lora(self.lora_rank, lora_alpha=alpha)

    def enable_lora(self, rank, lora_alpha=None, a_initializer="he_uniform",
                    b_initializer="zeros"):
        """Freeze the kernel and train a rank-``rank`` update of it instead (Keras's
        ``enable_lora``: ``lora_alpha`` defaults to ``rank``; ``a_initializer`` and
        ``b_initializer`` make the two factors, He-uniform and zeros by default)."""
        if not type(self)._offers_lora:
            raise NotImplementedError(f"{type(self).__name__} does not offer LoRA (as Keras's); "
                                      "Dense, EinsumDense, Embedding and Conv1D/2D/3D do.")
        weight = type(self)._lora_weight
        if getattr(self, f"{weight}_constraint", None):
            what = "embedding" if weight == "embeddings" else "kernel"
            raise ValueError(f"Lora is incompatible with {what} constraints. In order to enable "
                             f"lora on this layer, remove the `{weight}_constraint` argument.")
        if not self.built:
            raise ValueError("Cannot enable lora on a layer that isn't yet built.")
        if self.lora_enabled:
            raise ValueError("lora is already enabled. This can only be done once per layer.")
        mode = getattr(self, "quantization_mode", None)
        if mode in ("gptq", "awq"):
            raise NotImplementedError(f"lora is not currently supported with {mode.upper()} "
                                      f'quantization (layer "{self.name}").')
        if not _positive_int(rank):
            raise ValueError(f'Layer "{self.name}": the LoRA rank must be a positive integer, '
                             f"received rank={rank!r}.")
        var_attrs = self.__dict__["_var_attrs"]
        float_kernel = weight in var_attrs  # not quantized, or float8 (which keeps it)
        stored = var_attrs[weight] if float_kernel else var_attrs[f"_{weight}"]
        # the factors' shapes are the float kernel's (an int4 layer's, unpacked)
        shape = tuple(stored.shape) if float_kernel else quantized_lora.float_shape(self)
        regularizer = getattr(self, f"{weight}_regularizer", None)
        name_a, name_b = self._lora_factor_names()
        with self._unlocked_state():
            factor_a = self.add_weight((*shape[:-1], rank), initializers.get(a_initializer),
                                       dtype="float32", regularizer=regularizer, name=name_a)
            factor_b = self.add_weight((rank, shape[-1]), initializers.get(b_initializer),
                                       dtype="float32", regularizer=regularizer, name=name_b)
        setattr(self, name_a, factor_a)
        setattr(self, name_b, factor_b)
        if float_kernel:  # (a quantized layer keeps its values in ``_kernel`` already)
            setattr(self, f"_{weight}", stored)  # as Keras: the variable moves to ``_kernel``
            delattr(self, weight)  # ``kernel`` now reads the merged value (``__getattr__``)
        stored.trainable = False
        self.lora_enabled = True
        self.lora_rank = int(rank)
        self.lora_alpha = lora_alpha if lora_alpha is not None else int(rank)

    def _lora_delta(self):
        """``(lora_alpha / rank) * a @ b`` (the factors read where the layer reads them)."""
        factor_a, factor_b = map(self._read_weight, self._lora_factors())
        return (self.lora_alpha / self.lora_rank) * jnp.matmul(factor_a, factor_b)

    def __setattr__(self, name, value):
        if name == type(self)._lora_weight and self.__dict__.get("lora_enabled"):
            raise AttributeError(f"property '{name}' of '{type(self).__name__}' object has no "
                                 f"setter (LoRA is enabled: assign the frozen weight "
                                 f"`_{name}` or the factors).")
        super().__setattr__(name, value)

    def __getattr__(self, name):
        if name == type(self)._lora_weight and self.__dict__.get("lora_enabled"):
            if getattr(self, "quantization_mode", None) in (None, "float8"):
                stored = self._read_weight(self.__dict__["_var_attrs"][f"_{name}"])
            else:  # Keras's property: the int8 (int4: unpacked) values plus the update
                stored = super().__getattr__(name)
            return (stored + self._lora_delta()).astype(self.compute_dtype)
        return super().__getattr__(name)

    def _keras_ordered_variables(self):
        """Keras's file order: the layer's own weights without the two factors."""
        ordered = super()._keras_ordered_variables()
        if not self.lora_enabled:
            return ordered
        factors = {id(v) for v in self._lora_factors()}
        return [v for v in ordered if id(v) not in factors]

    def save_own_variables(self, store):
        """Keras's saving: the merged kernel in the kernel's place (an int8 or int4
        layer's requantized, with its new scale and zero point)."""
        super().save_own_variables(store)
        if not self.lora_enabled:
            return
        weight = type(self)._lora_weight
        var_attrs = self.__dict__["_var_attrs"]
        stored = var_attrs[f"_{weight}"]
        position = {id(v): str(i) for i, v in enumerate(self._keras_ordered_variables())}
        if getattr(self, "quantization_mode", None) in (None, "float8"):
            merged = stored.value + self._lora_delta()
            store[position[id(stored)]] = np.asarray(merged.astype(stored.dtype))
            return
        values, scale, zero = quantized_lora.requantized(
            self, quantized_lora.dequantized(self) + self._lora_delta())
        store[position[id(stored)]] = np.asarray(values)
        store[position[id(var_attrs[f"{weight}_scale"])]] = np.asarray(scale)
        if zero is not None:
            store[position[id(var_attrs[f"{weight}_zero"])]] = np.asarray(zero)

    def load_own_variables(self, store):
        """Keras's loading: the file's kernel is the frozen one; the factors start at zero."""
        super().load_own_variables(store)
        if self.lora_enabled:
            for factor in self._lora_factors():
                factor.assign(np.zeros(factor.shape, "float32"))

    def _lora_config(self) -> dict:
        """The config entries Keras writes when LoRA was asked for."""
        if not self.lora_rank:
            return {}
        return {"lora_rank": self.lora_rank, "lora_alpha": self.lora_alpha}


def _positive_int(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) and value > 0
