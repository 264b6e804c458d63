"""Short-time Fourier transforms, as Keras 3's ``keras.ops.stft`` / ``istft`` compute them:
frames of ``sequence_length`` samples every ``sequence_stride``, each windowed (``"hann"``,
``"hamming"``, an array, or None), zero-padded to ``fft_length`` and transformed; with
``center`` the signal is reflect-padded by ``fft_length // 2`` on both sides first. The
spectrum is a ``(real, imag)`` pair of shape ``(..., frames, fft_length // 2 + 1)``.
``jax.scipy.signal`` does the framing and the overlap-add.

>>> import numpy as np
>>> real, imag = stft(np.zeros((2, 64), "float32"), 16, 8, 16)
>>> real.shape
(2, 9, 9)
>>> istft((real, imag), 16, 8, 16, length=64).shape
(2, 64)
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from kgraph.ops.complex_parts import complex_parts
from kgraph.ops.registry import register_op

__all__ = ["istft", "stft"]


def _periodic_window(name, length):
    """The periodic Hann or Hamming window of ``length`` samples (SciPy's ``get_window``,
    the window for spectral analysis): the symmetric window one sample longer, its last
    sample left out."""
    window = np.hanning if name == "hann" else np.hamming
    return window(length + 1)[:-1] if length > 1 else np.ones(1)


def _window(window, sequence_length, fft_length, dtype):
    """The window of one frame, zero-padded (centred) to ``fft_length``."""
    if window is None:
        return jnp.ones((fft_length,), dtype)
    if isinstance(window, str):
        if window not in ("hann", "hamming"):
            raise ValueError('If a string is passed to `window`, it must be one of `"hann"`, '
                             f'`"hamming"`. Received: window={window!r}.')
        window = _periodic_window(window, sequence_length)
    window = jnp.asarray(window, dtype)
    if window.shape != (sequence_length,):
        raise ValueError("The shape of `window` must be equal to [sequence_length]. "
                         f"Received: sequence_length={sequence_length}, window shape="
                         f"{window.shape}.")
    left = (fft_length - sequence_length) // 2
    return jnp.pad(window, (left, fft_length - sequence_length - left))


def _check_stride(sequence_stride, **_) -> None:
    if not isinstance(sequence_stride, int) or sequence_stride < 1:
        raise ValueError("`sequence_stride` must be a positive integer. Received: "
                         f"sequence_stride={sequence_stride}")


@register_op("stft", check=_check_stride)
def stft(x, sequence_length, sequence_stride, fft_length, window="hann", center=True):
    """The short-time Fourier transform of real signals ``x`` (last axis): ``(real, imag)``
    of shape ``(..., frames, fft_length // 2 + 1)``."""
    x = jnp.asarray(x)
    if x.dtype not in (jnp.float32, jnp.float64):
        raise TypeError("ops.stft: Invalid input type. Expected `float32` or `float64`. "
                        f"Received: input type={x.dtype}")
    if fft_length < sequence_length:
        raise ValueError("ops.stft: `fft_length` must equal or larger than `sequence_length`. "
                         f"Received: sequence_length={sequence_length}, "
                         f"fft_length={fft_length}")
    if center:
        pad = [(0, 0)] * (x.ndim - 1) + [(fft_length // 2, fft_length // 2)]
        x = jnp.pad(x, pad, mode="reflect")
    import jax.scipy.signal  # loaded on first use: it costs a second at import

    win = _window(window, sequence_length, fft_length, x.dtype)
    spectrum = jax.scipy.signal.stft(x, fs=1.0, window=win, nperseg=fft_length,
                                     noverlap=fft_length - sequence_stride, nfft=fft_length,
                                     boundary=None, padded=False)[-1]
    spectrum = jnp.swapaxes(spectrum * win.sum(), -2, -1)  # scipy divides by the window sum
    return jnp.real(spectrum), jnp.imag(spectrum)


@register_op("istft", check=_check_stride)
def istft(x, sequence_length, sequence_stride, fft_length, length=None, window="hann",
          center=True):
    """The signals whose ``stft`` is ``x = (real, imag)`` (inverse by overlap-add);
    ``length`` trims the result."""
    real, imag = complex_parts("istft", x, min_rank=2)
    import jax.scipy.signal  # loaded on first use: it costs a second at import

    win = _window(window, sequence_length, fft_length, real.dtype)
    signal = jax.scipy.signal.istft(real + 1j * imag, fs=1.0, window=win, nperseg=fft_length,
                                    noverlap=fft_length - sequence_stride, nfft=fft_length,
                                    boundary=False, time_axis=-2, freq_axis=-1)[-1]
    signal = signal / win.sum() if window is not None else signal / sequence_stride
    start = fft_length // 2 if center else 0
    if length is not None:
        return signal[..., start:start + length]
    if center:
        return signal[..., start:-(fft_length // 2)]
    return signal[..., :fft_length + sequence_stride * (real.shape[-2] - 1)]
