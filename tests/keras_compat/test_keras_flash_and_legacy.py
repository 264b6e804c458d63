"""``keras.config``'s flash-attention switches and ``keras.optimizers.legacy``, against
Keras: the same defaults, the same refusals, the same numbers."""

import keras
import numpy as np
import pytest
from keras.src.backend.common import global_state

import kgraph as kg


@pytest.fixture
def switches(monkeypatch):
    """Both libraries' switches back to their defaults afterwards."""
    monkeypatch.setattr(kg.config, "_FLASH_ATTENTION", None)
    yield
    global_state.set_global_attribute("flash_attention", None)


def test_the_switches_read_as_kerass(switches):
    states = []
    for switch in ("disable_flash_attention", "enable_flash_attention",
                   "disable_flash_attention"):
        for library in (kg, keras):
            getattr(library.config, switch)()
        states.append(kg.config.is_flash_attention_enabled())
        assert states[-1] is keras.config.is_flash_attention_enabled()
    assert states == [False, None, False]


def test_flash_attention_refuses_dropout_and_scores_and_keeps_the_numbers(switches):
    query = np.random.default_rng(0).normal(size=(2, 3, 4)).astype("float32")
    plain = kg.layers.MultiHeadAttention(2, 4, name="plain")
    expected = np.asarray(plain(query, query))
    for library in (kg, keras):
        with pytest.raises(ValueError, match="Dropout is not supported when flash"):
            library.layers.MultiHeadAttention(2, 4, dropout=0.1, flash_attention=True)
        layer = library.layers.MultiHeadAttention(2, 4, flash_attention=True)
        with pytest.raises(ValueError, match="scores is not supported when flash"):
            layer(query, query, return_attention_scores=True)
        library.config.disable_flash_attention()  # a layer's None reads False: no refusal
        _, scores = library.layers.MultiHeadAttention(2, 4, dropout=0.1)(
            query, query, return_attention_scores=True)
        assert scores.shape == (2, 2, 3, 3)
    # Keras computes flash attention only with cuDNN; kgraph leaves the kernel to XLA
    flash = kg.layers.MultiHeadAttention(2, 4, name="flash", flash_attention=True)
    flash(query, query)
    flash.set_weights(plain.get_weights())
    np.testing.assert_allclose(np.asarray(flash(query, query)), expected, atol=1e-6)
    assert flash._flash_attention is True  # Keras's private name, which subclasses read


@pytest.mark.parametrize("name", ["Adagrad", "Adam", "Ftrl", "Optimizer", "RMSprop", "SGD"])
def test_legacy_optimizers_refuse_as_in_keras(name):
    for library in (kg, keras):
        with pytest.raises(ImportError, match="optimizers.legacy` is not supported in Keras 3"):
            getattr(library.optimizers.legacy, name)(learning_rate=0.1)
