"""``ReversibleEmbedding``: one layer embeds ids and maps vectors back to logits; the same
numbers as Keras's (tied and untied, soft cap), and files both ways."""


import keras
import numpy as np
import pytest

import kgraph as kg

IDS = np.random.default_rng(0).integers(1, 50, (3, 6)).astype("int32")


def _model(lib, **kwargs):
    ids = lib.Input((6,), dtype="int32")
    embed = lib.layers.ReversibleEmbedding(50, 8, name="embed", **kwargs)
    h = lib.layers.Dense(8, activation="tanh", name="mix")(embed(ids))
    return lib.Model(ids, embed(h, reverse=True))


@pytest.mark.parametrize("kwargs", [{}, {"tie_weights": False},
                                    {"logit_soft_cap": 0.5, "mask_zero": True}])
def test_reversible_embedding_matches_keras_both_ways_through_files(kwargs, tmp_path):
    theirs, ours = _model(keras, **kwargs), _model(kg, **kwargs)
    assert [w.name for w in ours.weights] == [w.name for w in theirs.weights]
    ours.set_weights([np.asarray(w) for w in theirs.get_weights()])
    reference = np.asarray(theirs(IDS))
    assert reference.shape == (3, 6, 50)
    np.testing.assert_allclose(np.asarray(ours(IDS)), reference, rtol=1e-5, atol=1e-6)

    ours.save(tmp_path / "kgraph.keras")
    np.testing.assert_allclose(np.asarray(keras.saving.load_model(tmp_path / "kgraph.keras")(IDS)),
                               reference, rtol=1e-5, atol=1e-6)
    theirs.save(tmp_path / "keras.keras")
    loaded = kg.load_model(tmp_path / "keras.keras")
    for a, b in zip(loaded.get_weights(), theirs.get_weights(), strict=True):
        np.testing.assert_array_equal(a, np.asarray(b))
    ours_config, theirs_config = loaded.layers[1].get_config(), theirs.layers[1].get_config()
    assert set(ours_config) == set(theirs_config)
    assert {k: v for k, v in ours_config.items() if k != "dtype"} == \
        {k: v for k, v in theirs_config.items() if k != "dtype"}


def test_forward_mode_masks_padding_as_keras():
    ids = IDS.copy()
    ids[:, 4:] = 0
    outputs = []
    for lib in (keras, kg):
        x = lib.Input((6,), dtype="int32")
        embed = lib.layers.ReversibleEmbedding(50, 8, mask_zero=True)
        model = lib.Model(x, lib.layers.GlobalAveragePooling1D()(embed(x)))
        if lib is kg:
            model.set_weights([np.asarray(w) for w in reference_weights])
        reference_weights = model.get_weights()
        outputs.append(np.asarray(model(ids)))
    np.testing.assert_allclose(outputs[1], outputs[0], rtol=1e-5, atol=1e-6)


def test_mixed_precision_logits_are_float32_as_kerass(tmp_path):
    outputs = []
    for lib in (keras, kg):
        lib.mixed_precision.set_global_policy("mixed_bfloat16")
        try:
            model = _model(lib, logit_soft_cap=2.0)
            if lib is kg:
                model.set_weights([np.asarray(w) for w in reference_weights])
            reference_weights = model.get_weights()
            outputs.append(np.asarray(model(IDS)))
            if lib is kg:  # symbolic dtype as computed (Keras's own symbolic one says bf16)
                assert model.outputs[0].dtype == outputs[-1].dtype
        finally:
            lib.mixed_precision.set_global_policy("float32")
    assert outputs[1].dtype == outputs[0].dtype == np.float32
    np.testing.assert_allclose(outputs[1], outputs[0], rtol=1e-5, atol=1e-5)
