"""``MelSpectrogram`` (Keras 3's): raw audio to mel spectrograms, computed as Keras computes
them. The magnitude of the centred short-time Fourier transform (``ops.stft``) raised to
``mag_exp``, warped to ``num_mel_bins`` triangular mel bands (HTK's mel scale, the DC bin
left out), then in decibels (``power_to_db``) relative to ``ref_power`` and floored at
``top_db`` below the batch's maximum. The output is ``(..., num_mel_bins, frames)``.

>>> import numpy as np
>>> layer = MelSpectrogram(fft_length=64, sequence_stride=16, num_mel_bins=10)
>>> layer(np.zeros((2, 256), "float32")).shape
(2, 10, 17)
"""

from __future__ import annotations

import jax.numpy as jnp

from kgraph.base.layer import Layer
from kgraph.ops import signal

__all__ = ["MelSpectrogram", "linear_to_mel_weight_matrix"]

_MEL_BREAK_HERTZ = 700.0
_MEL_HIGH_FREQUENCY_Q = 1127.0


def _hertz_to_mel(hertz):
    return _MEL_HIGH_FREQUENCY_Q * jnp.log(1.0 + hertz / _MEL_BREAK_HERTZ)


def linear_to_mel_weight_matrix(num_mel_bins, num_spectrogram_bins, sampling_rate,
                                lower_edge_hertz, upper_edge_hertz, dtype="float32"):
    """``(num_spectrogram_bins, num_mel_bins)`` weights warping a linear spectrogram to
    triangular mel bands between the two edges (HTK's convention: no weight on DC)."""
    nyquist = jnp.asarray(sampling_rate, dtype) / 2.0
    frequencies = jnp.linspace(jnp.zeros((), dtype), nyquist, num_spectrogram_bins)[1:]
    bins_mel = _hertz_to_mel(frequencies)[:, None]
    edges = jnp.linspace(_hertz_to_mel(jnp.asarray(lower_edge_hertz, dtype)),
                         _hertz_to_mel(jnp.asarray(upper_edge_hertz, dtype)), num_mel_bins + 2)
    lower, center, upper = edges[None, :-2], edges[None, 1:-1], edges[None, 2:]
    rising = (bins_mel - lower) / (center - lower)
    falling = (upper - bins_mel) / (upper - center)
    weights = jnp.maximum(jnp.zeros((), dtype), jnp.minimum(rising, falling))
    return jnp.pad(weights, ((1, 0), (0, 0)))


class MelSpectrogram(Layer):
    """Audio ``(..., samples)`` to mel spectrograms ``(..., num_mel_bins, frames)`` (see
    the module docstring); Keras's arguments and defaults."""

    def __init__(self, fft_length=2048, sequence_stride=512, sequence_length=None,
                 window="hann", sampling_rate=16000, num_mel_bins=128, min_freq=20.0,
                 max_freq=None, power_to_db=True, top_db=80.0, mag_exp=2.0, min_power=1e-10,
                 ref_power=1.0, **kwargs):
        self.fft_length = fft_length
        self.sequence_stride = sequence_stride
        self.sequence_length = sequence_length or fft_length
        if self.fft_length < self.sequence_length:
            raise ValueError("MelSpectrogram: `fft_length` must be greater than or equal to "
                             f"`sequence_length`. Received: `sequence_length`="
                             f"{self.sequence_length}, `fft_length`={self.fft_length}.")
        self.window = window
        self.sampling_rate = sampling_rate
        self.num_mel_bins = num_mel_bins
        self.min_freq = min_freq
        self.max_freq = max_freq or int(sampling_rate / 2)
        self.power_to_db = power_to_db
        self.top_db = top_db
        self.mag_exp = mag_exp
        self.min_power = min_power
        self.ref_power = ref_power
        super().__init__(**kwargs)

    def call(self, inputs):
        dtype = jnp.dtype(self.compute_dtype)
        if dtype not in (jnp.dtype("float32"), jnp.dtype("float64")):
            dtype = jnp.dtype("float32")  # the transform runs in float32 or float64 only
        real, imag = signal.stft(jnp.asarray(inputs, dtype), self.sequence_length,
                                 self.sequence_stride, self.fft_length, window=self.window,
                                 center=True)
        spectrum = jnp.power(jnp.sqrt(real ** 2 + imag ** 2), self.mag_exp)
        weights = self.linear_to_mel_weight_matrix(self.num_mel_bins, spectrum.shape[-1],
                                                   self.sampling_rate, self.min_freq,
                                                   self.max_freq, dtype)
        outputs = jnp.tensordot(spectrum, weights, axes=1)
        if self.power_to_db:
            outputs = self._decibels(outputs)
        return jnp.swapaxes(outputs, -1, -2).astype(self.compute_dtype)

    def compute_output_shape(self, input_shape):
        """``(..., num_mel_bins, frames)``: the frames of the centred STFT of each signal."""
        *batch, samples = input_shape
        padded = None if samples is None else samples + 2 * (self.fft_length // 2)
        frames = None if padded is None else 1 + (padded - self.fft_length) // self.sequence_stride
        return (*batch, self.num_mel_bins, frames)

    def linear_to_mel_weight_matrix(self, num_mel_bins=20, num_spectrogram_bins=129,
                                    sampling_rate=8000, lower_edge_hertz=125.0,
                                    upper_edge_hertz=3800.0, dtype="float32"):
        """Keras's method: ``linear_to_mel_weight_matrix`` of this module."""
        return linear_to_mel_weight_matrix(num_mel_bins, num_spectrogram_bins, sampling_rate,
                                           lower_edge_hertz, upper_edge_hertz, dtype)

    def _decibels(self, power):
        db = 10.0 * jnp.log10(jnp.maximum(power, self.min_power))
        db = db - 10.0 * jnp.log10(jnp.maximum(jnp.abs(jnp.asarray(self.ref_power)),
                                               self.min_power))
        return jnp.maximum(db, jnp.max(db) - self.top_db)  # as Keras: the batch's maximum

    def get_config(self):
        return {**super().get_config(), "fft_length": self.fft_length,
                "sequence_stride": self.sequence_stride,
                "sequence_length": self.sequence_length, "window": self.window,
                "sampling_rate": self.sampling_rate, "num_mel_bins": self.num_mel_bins,
                "min_freq": self.min_freq, "max_freq": self.max_freq,
                "power_to_db": self.power_to_db, "top_db": self.top_db,
                "mag_exp": self.mag_exp, "min_power": self.min_power,
                "ref_power": self.ref_power}
