"""``ops.stft`` / ``ops.istft`` against Keras's, over windows, strides, padding and centring,
and the round trip back to the signal."""

import keras
import numpy as np
import pytest

import kgraph as kg

_SIGNAL = np.random.default_rng(0).normal(size=(2, 3, 100)).astype("float32")
_CASES = [(16, 8, 16, "hann", True), (16, 4, 32, "hamming", True), (20, 10, 32, None, False),
          (16, 16, 16, "hann", False), (12, 6, 16, np.linspace(0.1, 1.0, 12), True)]


@pytest.mark.parametrize("length,stride,fft,window,center", _CASES)
def test_stft_and_istft_equal_keras(length, stride, fft, window, center):
    ours = kg.ops.stft(_SIGNAL, length, stride, fft, window=window, center=center)
    theirs = keras.ops.stft(_SIGNAL, length, stride, fft, window=window, center=center)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-5)
    back = kg.ops.istft(ours, length, stride, fft, window=window, center=center)
    expected = keras.ops.istft(theirs, length, stride, fft, window=window, center=center)
    np.testing.assert_allclose(np.asarray(back), np.asarray(expected), rtol=1e-4, atol=1e-5)
    trimmed = kg.ops.istft(ours, length, stride, fft, length=64, window=window,
                           center=center)
    expected = keras.ops.istft(theirs, length, stride, fft, length=64, window=window,
                               center=center)
    np.testing.assert_allclose(np.asarray(trimmed), np.asarray(expected), rtol=1e-4, atol=1e-5)


def test_the_round_trip_gives_the_signal_back():
    spectrum = kg.ops.stft(_SIGNAL, 16, 4, 16)
    back = kg.ops.istft(spectrum, 16, 4, 16, length=100)
    np.testing.assert_allclose(np.asarray(back), _SIGNAL, rtol=1e-4, atol=1e-4)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="fft_length"):
        kg.ops.stft(_SIGNAL, 32, 8, 16)
    with pytest.raises(ValueError, match="hann"):
        kg.ops.stft(_SIGNAL, 16, 8, 16, window="blackman")
    with pytest.raises(TypeError, match="float32"):
        kg.ops.stft(_SIGNAL.astype("int32"), 16, 8, 16)


def test_stft_and_istft_are_graph_nodes_that_keras_files_carry(tmp_path):
    signals = np.random.default_rng(3).normal(size=(2, 64)).astype("float32")
    inputs = kg.Input(shape=(64,))
    real, imag = kg.ops.stft(inputs, 16, 8, 16, window="hamming")
    restored = kg.ops.istft((real, imag), 16, 8, 16, length=64, window="hamming")
    model = kg.Model(inputs, [restored, real])
    assert real.shape == (None, 9, 9) and restored.shape == (None, 64)
    theirs_real, _ = keras.ops.stft(signals, 16, 8, 16, window="hamming")
    ours = model(signals)
    np.testing.assert_allclose(np.asarray(ours[1]), np.asarray(theirs_real), atol=1e-5)
    np.testing.assert_allclose(np.asarray(ours[0]), signals, atol=1e-5)
    path = str(tmp_path / "stft.keras")
    model.save(path)
    loaded = keras.saving.load_model(path)  # Keras's STFT / ISTFT ops
    for a, b in zip(loaded(signals), ours):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), atol=1e-5)


@pytest.mark.parametrize("name", ["hann", "hamming"])
def test_windows_by_name_are_scipys_periodic_windows(name):
    """The windows Keras takes from ``scipy.signal.get_window`` (kgraph computes them, so
    that ``import kgraph`` does not load SciPy's signal module)."""
    import scipy.signal

    from kgraph.ops.signal import _periodic_window

    for length in range(1, 65):
        np.testing.assert_allclose(_periodic_window(name, length),
                                   scipy.signal.get_window(name, length), atol=1e-12)
