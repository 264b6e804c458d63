"""``STFTSpectrogram`` (Keras 3's): spectrograms of 1-D signals computed by strided
convolutions with the DFT's real and imaginary kernels (``initializers.STFT``, windowed), so
the kernels can be left fixed or trained. Every channel of the input is transformed alone.

>>> import numpy as np
>>> layer = STFTSpectrogram(mode="magnitude", frame_length=8, frame_step=4, window=None)
>>> tone = np.cos(np.pi * np.arange(32) / 2)[None, :, None]  # a quarter of the sampling rate
>>> spectrum = layer(tone.astype("float32"))
>>> spectrum.shape, int(np.argmax(spectrum[0, 0]))
((1, 7, 5), 2)
"""

from __future__ import annotations

import math
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from kgraph import config, initializers
from kgraph.base.input_spec import InputSpec
from kgraph.base.layer import Layer
from kgraph.ops.conv_utils import standardize_data_format

__all__ = ["STFTSpectrogram"]

_MODES = ("log", "magnitude", "psd", "real", "imag", "angle", "stft")
_FLOATS = ("float16", "float32", "float64")


def _frames(owner, length, frame_length, frame_step, padding):
    """How many frames the convolution makes of ``length`` samples (None stays None)."""
    if length is None:
        return None
    if padding == "same":
        return -(-length // frame_step)
    if length < frame_length:
        raise ValueError(f"{owner}: signals of {length} samples are shorter than one frame "
                         f"(frame_length={frame_length}) with padding='valid'; expected at "
                         f"least {frame_length} samples.")
    return (length - frame_length) // frame_step + 1


class STFTSpectrogram(Layer):
    """Spectrograms of signals ``(batch, time, channels)`` (``data_format="channels_first"``:
    ``(batch, channels, time)``) as Keras computes them: frames of ``frame_length`` samples
    every ``frame_step`` (default ``frame_length // 2``), ``fft_length // 2 + 1`` frequency
    bins (``fft_length`` defaults to the next power of two), ``padding`` "valid" or "same".

    ``mode``: "log" (of the magnitude), "magnitude", "psd" (the power, the bins but the
    first and last doubled), "real", "imag", "angle", or "stft" (real then imaginary bins).
    The output is ``(batch, frames, channels * bins)`` (bins of one channel together), or
    ``(batch, frames, bins, channels)`` with ``expand_dims``; ``channels_first`` gives
    ``(batch, channels * bins, frames)`` or ``(batch, channels, frames, bins)``.

    The weights are ``real_kernel`` and ``imag_kernel`` (not made when the mode does not
    read them), each ``(frame_length, 1, bins)``; pass ``trainable=False`` to keep them fixed.

    >>> import numpy as np
    >>> layer = STFTSpectrogram(frame_length=16, expand_dims=True)
    >>> layer(np.zeros((2, 64, 3), "float32")).shape
    (2, 7, 9, 3)
    >>> [w.name for w in layer.weights], layer.weights[0].shape
    (['real_kernel', 'imag_kernel'], (16, 1, 9))
    """

    def __init__(self, mode="log", frame_length=256, frame_step=None, fft_length=None,
                 window="hann", periodic=False, scaling="density", padding="valid",
                 expand_dims=False, data_format=None, **kwargs):
        owner = 'Layer "STFTSpectrogram"'
        if not isinstance(frame_length, int) or isinstance(frame_length, bool) \
                or frame_length < 1:
            raise ValueError(f"{owner}: `frame_length` should be a positive integer. "
                             f"Received: frame_length={frame_length!r}")
        if frame_step is not None and (frame_step > frame_length or frame_step < 1):
            raise ValueError(f"{owner}: `frame_step` should be a positive integer not greater "
                             f"than `frame_length`. Received: frame_step={frame_step}, "
                             f"frame_length={frame_length}")
        if fft_length is not None and fft_length < frame_length:
            raise ValueError(f"{owner}: `fft_length` should be not less than `frame_length`. "
                             f"Received: fft_length={fft_length}, frame_length={frame_length}")
        if fft_length is not None and (fft_length & -fft_length) != fft_length:
            warnings.warn(f"{owner}: `fft_length` is recommended to be a power of two. "
                          f"Received: fft_length={fft_length}", stacklevel=2)
        if mode not in _MODES:
            raise ValueError(f"{owner}: output mode is invalid, it must be one of "
                             f"{', '.join(_MODES)}. Received: mode={mode!r}")
        if padding not in ("valid", "same"):
            raise ValueError(f"{owner}: padding is invalid, it should be 'valid' or 'same'. "
                             f"Received: padding={padding!r}")
        window = initializers._check_stft_arguments(owner, window, scaling)
        if window is not None and not isinstance(window, str) \
                and np.shape(window) != (frame_length,):
            raise ValueError(f"{owner}: the shape of `window` must be equal to [frame_length] "
                             f"({frame_length},). Received: window shape={np.shape(window)}")
        try:
            data_format = standardize_data_format(data_format)
        except ValueError as error:
            raise ValueError(f"{owner}: {error}") from None
        super().__init__(**kwargs)
        self.mode = mode
        self.frame_length = frame_length
        self.frame_step = frame_step
        self._frame_step = frame_step or max(frame_length // 2, 1)
        self.fft_length = fft_length
        self._fft_length = fft_length or 2 ** int(math.ceil(math.log2(frame_length)))
        self.window = window
        self.periodic = periodic
        self.scaling = scaling
        self.padding = padding
        self.expand_dims = expand_dims
        self.data_format = data_format
        self.input_spec = InputSpec(ndim=3)

    def build(self, input_shape):
        shape = (self.frame_length, 1, self._fft_length // 2 + 1)
        if self.mode != "imag":
            self.real_kernel = self.add_weight(shape=shape, name="real_kernel",
                                               initializer=self._initializer("real"))
        if self.mode != "real":
            self.imag_kernel = self.add_weight(shape=shape, name="imag_kernel",
                                               initializer=self._initializer("imag"))
        self.built = True

    def _initializer(self, side):
        return initializers.STFT(side, self.window, self.scaling, self.periodic)

    def _owner(self):
        return f'Layer "{self.name}" (STFTSpectrogram)'

    def _convolve(self, signals, kernel):
        """``(batch * channels, time)`` signals to ``(batch * channels, frames, bins)``."""
        return jax.lax.conv_general_dilated(
            signals[:, :, None], kernel.astype(signals.dtype), (self._frame_step,),
            self.padding.upper(), dimension_numbers=("NWC", "WIO", "NWC"))

    def call(self, inputs):
        if jnp.dtype(inputs.dtype).name not in _FLOATS:
            raise TypeError(f"{self._owner()}: invalid input type. "
                            f"Expected `float16`, `float32` or `float64`. Received: input "
                            f"type={jnp.dtype(inputs.dtype).name}")
        if self.data_format == "channels_last":
            inputs = jnp.swapaxes(inputs, 1, 2)
        batch, channels, time = inputs.shape
        _frames(self._owner(), time, self.frame_length, self._frame_step, self.padding)
        signals = inputs.reshape(batch * channels, time)
        real = None if self.mode == "imag" else self._convolve(signals, self.real_kernel)
        imag = None if self.mode == "real" else self._convolve(signals, self.imag_kernel)
        if self.mode == "real":
            outputs = real
        elif self.mode == "imag":
            outputs = imag
        elif self.mode == "angle":
            outputs = jnp.arctan2(imag, real)
        elif self.mode == "stft":
            outputs = jnp.concatenate([real, imag], axis=-1)
        else:
            power = jnp.square(real) + jnp.square(imag)
            if self.mode == "psd":  # one-sided: the bins between DC and Nyquist count twice
                outputs = power.at[:, :, 1:-1].multiply(2)
            else:
                epsilon = config.epsilon()
                outputs = jnp.sqrt(jnp.maximum(power, epsilon))
                if self.mode == "log":
                    outputs = jnp.log(jnp.maximum(outputs, epsilon))
        return self._arrange(outputs.reshape(batch, channels, *outputs.shape[1:]))

    def _arrange(self, outputs):
        """``(batch, channels, frames, bins)`` to the layer's output layout."""
        batch, channels, frames, bins = outputs.shape
        if self.expand_dims:
            return outputs.transpose(0, 2, 3, 1) if self.data_format == "channels_last" \
                else outputs
        outputs = outputs.transpose(0, 1, 3, 2).reshape(batch, channels * bins, frames)
        return jnp.swapaxes(outputs, 1, 2) if self.data_format == "channels_last" else outputs

    def compute_output_shape(self, input_shape):
        if self.data_format == "channels_last":
            batch, time, channels = input_shape
        else:
            batch, channels, time = input_shape
        frames = _frames(self._owner(), time, self.frame_length, self._frame_step,
                         self.padding)
        bins = (self._fft_length // 2 + 1) * (2 if self.mode == "stft" else 1)
        if self.expand_dims:
            return (batch, frames, bins, channels) if self.data_format == "channels_last" \
                else (batch, channels, frames, bins)
        features = None if channels is None else channels * bins
        return (batch, frames, features) if self.data_format == "channels_last" \
            else (batch, features, frames)

    def get_config(self):
        return {**super().get_config(), "mode": self.mode, "frame_length": self.frame_length,
                "frame_step": self.frame_step, "fft_length": self.fft_length,
                "window": initializers._window_config(self.window),
                "periodic": self.periodic, "scaling": self.scaling, "padding": self.padding, "data_format": self.data_format,
                "expand_dims": self.expand_dims}
