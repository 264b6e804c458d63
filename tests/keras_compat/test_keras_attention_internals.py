"""A ``MultiHeadAttention`` subclass written against Keras's internals, as KerasHub writes its
cached and Whisper attention layers (its own ``build`` of ``_query_dense`` ... with
``_get_common_kwargs_for_sublayer()``, a ``call`` on ``_compute_attention``), runs under
kgraph with Keras's numbers and weight layout."""

import keras
import numpy as np
import pytest

import kgraph as kg

_RNG = np.random.default_rng(0)
_Q = _RNG.normal(size=(2, 5, 8)).astype("float32")
_V = _RNG.normal(size=(2, 7, 8)).astype("float32")


def _subclass(K):
    class NoKeyBias(K.layers.MultiHeadAttention):
        """Whisper's attention: the key projection has no bias."""

        def build(self, query_shape, value_shape, key_shape=None):
            key_shape = value_shape if key_shape is None else key_shape
            common = self._get_common_kwargs_for_sublayer()
            self._query_dense = K.layers.EinsumDense(
                "abc,cde->abde", output_shape=(None, self._num_heads, self._key_dim),
                bias_axes="de" if self._use_bias else None, name="query", **common)
            self._query_dense.build(query_shape)
            self._key_dense = K.layers.EinsumDense(
                "abc,cde->abde", output_shape=(None, self._num_heads, self._key_dim),
                bias_axes=None, name="key", **self._get_common_kwargs_for_sublayer())
            self._key_dense.build(key_shape)
            self._value_dense = K.layers.EinsumDense(
                "abc,cde->abde", output_shape=(None, self._num_heads, self._value_dim),
                bias_axes="de" if self._use_bias else None, name="value",
                **self._get_common_kwargs_for_sublayer())
            self._value_dense.build(value_shape)
            self._build_attention(4)
            self._output_dense = K.layers.EinsumDense(
                "abcd,cde->abe", output_shape=(None, query_shape[-1]),
                bias_axes="e" if self._use_bias else None, name="attention_output",
                **self._get_common_kwargs_for_sublayer())
            self._output_dense.build((None, None, self._num_heads, self._value_dim))
            self.built = True

        def call(self, query, value, attention_mask=None, training=None):
            output, scores = self._compute_attention(
                query=self._query_dense(query), key=self._key_dense(value),
                value=self._value_dense(value), attention_mask=attention_mask,
                return_attention_scores=True, training=training)
            return self._output_dense(output), scores

    return NoKeyBias


@pytest.mark.parametrize("masked", [False, True])
def test_a_subclass_on_keras_internals_equals_keras(masked):
    mask = np.tril(np.ones((2, 5, 7), bool)) if masked else None
    layers = {K: _subclass(K)(num_heads=2, key_dim=4) for K in (keras, kg)}
    for K, layer in layers.items():
        layer.build(_Q.shape, _V.shape)
    theirs = layers[keras]
    ours = layers[kg]
    assert [w.shape for w in ours.weights] == [tuple(w.shape) for w in theirs.weights]
    assert len(ours._key_dense.weights) == 1  # the kernel: Whisper's key has no bias
    ours.set_weights([np.asarray(w) for w in theirs.get_weights()])
    out_ours, scores_ours = ours(_Q, _V, attention_mask=mask)
    out_theirs, scores_theirs = theirs(_Q, _V, attention_mask=mask)
    np.testing.assert_allclose(np.asarray(out_ours), np.asarray(out_theirs), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(np.asarray(scores_ours), np.asarray(scores_theirs), rtol=1e-5,
                               atol=1e-6)


def test_keras_private_names_are_the_layers_attributes():
    layer = kg.layers.MultiHeadAttention(num_heads=2, key_dim=4, use_bias=False)
    layer.build(_Q.shape, _V.shape)
    assert layer._query_dense is layer.query_dense and layer._num_heads == 2
    assert layer._key_dim == 4 and layer._value_dim == 4 and layer._use_bias is False
    initializer = kg.initializers.HeNormal(seed=1)
    layer = kg.layers.MultiHeadAttention(num_heads=2, key_dim=4, kernel_initializer=initializer)
    common = layer._get_common_kwargs_for_sublayer()
    assert type(common["kernel_initializer"]) is type(layer.kernel_initializer)
    assert common["kernel_initializer"] is not layer.kernel_initializer  # a fresh copy
    assert common["dtype"] is layer.dtype_policy
