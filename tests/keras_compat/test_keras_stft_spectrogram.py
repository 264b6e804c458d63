"""``initializers.STFT`` and ``layers.STFTSpectrogram`` against Keras's: the same kernels,
the same spectrograms in every mode (both data formats, ``expand_dims``, both paddings,
windows by name, as arrays and none, each scaling), the same weights and configs, files
both ways, and errors that say what was expected and what was received."""

import warnings

import jax
import keras
import numpy as np
import pytest

import kgraph as kg

_SIGNAL = np.random.default_rng(0).normal(size=(2, 90, 3)).astype("float32")
# argument sets cycled through by the modes: every option appears with every mode once
_ARGUMENTS = [
    {"frame_length": 16, "frame_step": 5, "fft_length": 32},
    {"frame_length": 12, "padding": "same", "expand_dims": True, "window": "hamming",
     "scaling": "spectrum", "periodic": True},
    {"frame_length": 16, "frame_step": 7, "window": None, "data_format": "channels_first"},
    {"frame_length": 10, "frame_step": 4, "fft_length": 16, "padding": "same",
     "expand_dims": True, "data_format": "channels_first", "scaling": None,
     "window": np.linspace(0.1, 1.0, 10).astype("float32").tolist()},
]
_MODES = ["log", "magnitude", "psd", "real", "imag", "angle", "stft"]


def _signal(arguments):
    if arguments.get("data_format") == "channels_first":
        return np.swapaxes(_SIGNAL, 1, 2)
    return _SIGNAL


def _assert_close(ours, theirs, mode):
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    if mode == "angle":  # angles near ±pi compare modulo a turn
        difference = np.angle(np.exp(1j * (ours.astype(np.float64) - theirs)))
        np.testing.assert_allclose(difference, 0.0, atol=1e-5)
    else:
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5)


# ------------------------------------------------------------------------ initializer
@pytest.mark.parametrize("args,shape", [
    (("real", "hann", "density", False), (16, 1, 9)),
    (("imag", "hamming", "spectrum", True), (12, 1, 17)),
    (("real", None, "density", False), (8, 1, 5)),
    (("imag", "blackman", None, False), (64, 1, 65)),
    (("real", [0.5, 1.0, 1.0, 0.5], "density", False), (4, 1, 3)),
])
def test_stft_initializer_equals_kerass(args, shape):
    theirs = keras.initializers.STFT(*args)
    ours = kg.initializers.STFT(*args)
    expected = np.asarray(theirs(shape))
    np.testing.assert_allclose(np.asarray(ours(shape=shape)), expected, rtol=1e-6, atol=1e-6)
    # kgraph's form fn(key, shape, dtype) gives the same (the key is not used)
    np.testing.assert_allclose(np.asarray(ours(jax.random.PRNGKey(1), shape, "float32")),
                               expected, rtol=1e-6, atol=1e-6)
    assert ours.get_config() == theirs.get_config()
    rebuilt = kg.initializers.deserialize(keras.initializers.serialize(theirs))
    assert type(rebuilt) is kg.initializers.STFT and rebuilt.get_config() == theirs.get_config()


def test_stft_initializer_names_and_defaults():
    assert kg.initializers.STFTInitializer is kg.initializers.stft is kg.initializers.STFT
    for name in ("STFT", "stft", "STFTInitializer"):
        assert type(kg.initializers.get(name)) is kg.initializers.STFT
    assert kg.initializers.STFT().get_config() == keras.initializers.STFT().get_config()
    array_window = kg.initializers.STFT(window=np.hanning(4)).get_config()["window"]
    assert array_window == np.hanning(4).tolist()  # a config holds JSON values


@pytest.mark.parametrize("kwargs,match", [
    ({"side": "both"}, r"STFT: `side` should be 'real' or 'imag'. Received: side='both'"),
    ({"window": "no-such-window"}, r"STFT: `window` must be .*Received: window='no-such"),
    ({"scaling": "l2"}, r"STFT: `scaling` is invalid.*'density' or 'spectrum'.*scaling='l2'"),
])
def test_stft_initializer_refuses_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        kg.initializers.STFT(**kwargs)


def test_stft_initializer_refuses_a_window_of_another_length():
    with pytest.raises(ValueError, match=r"shape of `window` must be .*\(6,\).*shape=\(4,\)"):
        kg.initializers.STFT(window=[1.0, 1.0, 1.0, 1.0])(shape=(6, 1, 5))


# ------------------------------------------------------------------------------ layer
@pytest.mark.parametrize("mode", _MODES)
def test_spectrograms_equal_kerass(mode):
    for arguments in _ARGUMENTS:
        arguments = {**arguments, "mode": mode}
        x = _signal(arguments)
        theirs = keras.layers.STFTSpectrogram(**arguments)
        ours = kg.layers.STFTSpectrogram(**arguments)
        expected = theirs(x)
        _assert_close(ours(x), expected, mode)
        symbolic_shape = (None, *x.shape[1:2], None) if arguments.get(
            "data_format") == "channels_first" else (None, None, x.shape[2])
        for shape in ((None, *x.shape[1:]), symbolic_shape):
            assert ours.compute_output_shape(shape) == \
                tuple(theirs.compute_output_shape(shape)), (arguments, shape)
        assert [w.name for w in ours.weights] == [w.name for w in theirs.weights]


def test_spectrograms_in_a_compiled_model_equal_kerass():
    arguments = {"frame_length": 16, "frame_step": 8, "padding": "same", "mode": "psd"}
    expected = keras.layers.STFTSpectrogram(**arguments)(_SIGNAL)
    inputs = kg.Input((90, 3))
    model = kg.Model(inputs, kg.layers.STFTSpectrogram(**arguments)(inputs))
    assert model.output_shape == (None, 12, 27)
    _assert_close(model.predict(_SIGNAL, verbose=0), expected, "psd")


def test_weights_and_configs_equal_kerass():
    for kwargs in ({}, {"mode": "real", "trainable": False}, {"mode": "imag"},
                   {"mode": "stft", "frame_length": 100, "fft_length": 128, "frame_step": 10,
                    "data_format": "channels_first", "expand_dims": True, "padding": "same",
                    "window": None, "periodic": True, "scaling": "spectrum"}):
        theirs, ours = (lib.layers.STFTSpectrogram(**kwargs) for lib in (keras, kg))
        x = np.tile(_signal(kwargs), (1, 1, 4) if kwargs.get("data_format") else (1, 4, 1))
        theirs(x), ours(x)
        assert [(w.name, tuple(w.shape)) for w in ours.weights] == \
            [(w.name, tuple(w.shape)) for w in theirs.weights]
        for attribute in ("trainable_weights", "non_trainable_weights"):
            assert [w.name for w in getattr(ours, attribute)] == \
                [w.name for w in getattr(theirs, attribute)]
        for a, b in zip(ours.get_weights(), theirs.get_weights(), strict=True):
            np.testing.assert_allclose(a, np.asarray(b), rtol=1e-6, atol=1e-6)
        config, expected = ours.get_config(), theirs.get_config()
        assert set(config) == set(expected)
        skip = {"name": None}  # name counters differ
        assert {**config, **skip} == {**expected, **skip}
        assert config["dtype"] == expected["dtype"]  # Keras's policy dict, as Keras writes it
        assert kg.layers.STFTSpectrogram.from_config(config).get_config() == config


def _model(lib, **kwargs):
    inputs = lib.Input((90, 3))
    return lib.Model(inputs, lib.layers.STFTSpectrogram(name="spectrogram", **kwargs)(inputs))


@pytest.mark.parametrize("kwargs", [
    {"frame_length": 16, "frame_step": 6},
    {"frame_length": 8, "mode": "stft", "trainable": False, "padding": "same",
     "expand_dims": True, "window": np.hamming(8).astype("float32")},
], ids=["defaults", "array-window"])
def test_files_both_ways(kwargs, tmp_path):
    theirs, ours = _model(keras, **kwargs), _model(kg, **kwargs)
    changed = [np.asarray(w) * 1.5 + 0.01 for w in theirs.get_weights()]  # not the initial
    theirs.set_weights(changed)
    expected = np.asarray(theirs(_SIGNAL))
    theirs.save(tmp_path / "keras.keras")
    loaded = kg.load_model(tmp_path / "keras.keras")
    for a, b in zip(loaded.get_weights(), changed, strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(np.asarray(loaded(_SIGNAL)), expected, rtol=1e-5, atol=1e-5)
    assert loaded.layers[-1].trainable == theirs.layers[-1].trainable

    ours.set_weights(changed)
    ours.save(tmp_path / "kgraph.keras")
    back = keras.saving.load_model(tmp_path / "kgraph.keras")
    np.testing.assert_allclose(np.asarray(back(_SIGNAL)), expected, rtol=1e-5, atol=1e-5)
    assert back.layers[-1].trainable == theirs.layers[-1].trainable


@pytest.mark.parametrize("trainable", [True, False])
def test_training_moves_the_kernels_only_when_trainable(trainable):
    inputs = kg.Input((90, 3))
    spectrogram = kg.layers.STFTSpectrogram(frame_length=16, mode="magnitude",
                                            trainable=trainable)
    model = kg.Model(inputs, kg.layers.Dense(1)(spectrogram(inputs)))
    model.compile(optimizer=kg.optimizers.SGD(0.1), loss="mse")
    before = spectrogram.get_weights()
    model.fit(_SIGNAL, np.ones((2, 10, 1), "float32"), epochs=1, verbose=0)
    moved = [not np.allclose(a, b) for a, b in zip(before, spectrogram.get_weights())]
    assert moved == [trainable, trainable]


@pytest.mark.parametrize("kwargs,match", [
    ({"frame_length": 8, "frame_step": 9},
     r"STFTSpectrogram.*`frame_step` should be a positive integer not greater than "
     r"`frame_length`. Received: frame_step=9, frame_length=8"),
    ({"frame_length": 8, "fft_length": 4},
     r"STFTSpectrogram.*`fft_length` should be not less than `frame_length`. "
     r"Received: fft_length=4, frame_length=8"),
    ({"mode": "power"}, r"STFTSpectrogram.*one of log, magnitude.*Received: mode='power'"),
    ({"padding": "causal"}, r"STFTSpectrogram.*'valid' or 'same'.*padding='causal'"),
    ({"scaling": "l2"}, r"STFTSpectrogram.*'density' or 'spectrum'.*scaling='l2'"),
    ({"window": "no-such-window"}, r"STFTSpectrogram.*`window` must be.*no-such-window"),
    ({"frame_length": 4, "window": [1.0, 1.0]},
     r"STFTSpectrogram.*`window` must be equal to \[frame_length\] \(4,\).*shape=\(2,\)"),
    ({"data_format": "nwc"}, r"STFTSpectrogram.*channels_first.*data_format=nwc"),
    ({"frame_length": 0}, r"STFTSpectrogram.*positive integer.*frame_length=0"),
])
def test_bad_arguments_are_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        kg.layers.STFTSpectrogram(**kwargs)


def test_bad_inputs_are_refused():
    layer = kg.layers.STFTSpectrogram(frame_length=16)
    with pytest.raises(TypeError, match=r"STFTSpectrogram.*Expected `float16`, `float32` or "
                                        r"`float64`. Received: input type=int32"):
        layer(np.zeros((1, 32, 1), "int32"))
    with pytest.raises(ValueError, match="expected ndim=3, found ndim=2"):
        layer(np.zeros((32, 1), "float32"))
    with pytest.raises(ValueError, match=r"STFTSpectrogram.*10 samples.*at least 16"):
        layer(np.zeros((1, 10, 1), "float32"))
    with pytest.raises(ValueError, match=r"STFTSpectrogram.*10 samples"):
        layer.compute_output_shape((None, 10, 1))


def test_an_fft_length_not_a_power_of_two_warns_as_kerass():
    with pytest.warns(UserWarning, match="recommended to be a power of two"):
        kg.layers.STFTSpectrogram(frame_length=8, fft_length=12)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kg.layers.STFTSpectrogram(frame_length=8, fft_length=16)


def test_float16_computes_as_kerass_and_bfloat16_is_refused_as_kerass():
    arguments = {"frame_length": 16, "mode": "magnitude", "dtype": "float16"}
    expected = keras.layers.STFTSpectrogram(**arguments)(_SIGNAL)
    outputs = kg.layers.STFTSpectrogram(**arguments)(_SIGNAL)
    assert outputs.dtype == expected.dtype == np.float16
    np.testing.assert_allclose(np.asarray(outputs, "float32"), np.asarray(expected, "float32"),
                               rtol=1e-3, atol=1e-3)
    with pytest.raises(TypeError, match="Received: input type=bfloat16"):
        kg.layers.STFTSpectrogram(frame_length=16, dtype="mixed_bfloat16")(_SIGNAL)
