"""``MelSpectrogram`` against Keras's: the same spectrograms for its arguments, in decibels
or not, eagerly and in a compiled model, and its config both ways."""

import keras
import numpy as np
import pytest

import kgraph as kg

_AUDIO = np.random.default_rng(0).normal(size=(2, 2000)).astype("float32")
_CASES = [{}, {"power_to_db": False}, {"num_mel_bins": 40, "min_freq": 50.0, "max_freq": 4000},
          {"fft_length": 256, "sequence_stride": 64, "sequence_length": 200,
           "window": "hamming", "mag_exp": 1.0, "top_db": 40.0, "ref_power": 2.0},
          {"window": None, "sampling_rate": 8000}]


@pytest.mark.parametrize("kwargs", _CASES, ids=lambda k: ",".join(k) or "defaults")
def test_mel_spectrogram_equals_keras(kwargs):
    arguments = {"fft_length": 512, "sequence_stride": 128, "num_mel_bins": 64, **kwargs}
    ours = kg.layers.MelSpectrogram(**arguments)
    theirs = keras.layers.MelSpectrogram(**arguments)
    expected = np.asarray(theirs(_AUDIO))
    scale = max(1.0, float(np.abs(expected).max()))
    np.testing.assert_allclose(np.asarray(ours(_AUDIO)), expected, rtol=1e-4, atol=1e-4 * scale)
    x = kg.Input(shape=(2000,))
    model = kg.Model(x, kg.layers.MelSpectrogram(**arguments)(x))
    assert model.output_shape[1:] == expected.shape[1:]
    assert ours.compute_output_shape((None, 2000)) == (None, *expected.shape[1:])
    assert ours.compute_output_shape((2000,)) == expected.shape[1:]
    np.testing.assert_allclose(np.asarray(model.predict(_AUDIO, verbose=0)), expected,
                               rtol=1e-4, atol=1e-4 * scale)
    names = {"name": None, "dtype": None}  # the name counters differ; dtypes are compared
    assert {**ours.get_config(), **names} == {**theirs.get_config(), **names}


def test_a_shorter_fft_than_the_frame_is_refused():
    with pytest.raises(ValueError, match="fft_length"):
        kg.layers.MelSpectrogram(fft_length=128, sequence_length=256)
