"""RandAugment and AugMix: Keras's sub-layers and configs, Keras's composition for given
choices (Keras's ``transform_images``), and choices drawn afresh at every call."""

import jax
import keras
import numpy as np
import pytest

import compiler
import kgraph as kg

_img = (np.random.default_rng(0).random((3, 10, 9, 3)) * 255).astype("float32")
_SKIPPED = {"name", "seed", "dtype", "trainable", "data_format"}


@pytest.mark.parametrize("name, kwargs", [
    ("RandAugment", {"factor": 0.3, "value_range": (0, 1), "interpolation": "nearest"}),
    ("AugMix", {"factor": (0.1, 0.6), "all_ops": False})])
def test_sub_layers_and_configs_are_kerass(name, kwargs):
    ours, theirs = getattr(kg.layers, name)(**kwargs), getattr(keras.layers, name)(**kwargs)
    names = ours._operations()
    assert names == (theirs._AUGMENT_LAYERS if name == "RandAugment" else
                     theirs._augment_layers)
    for op in names:
        mine, keras_op = getattr(ours, op).get_config(), getattr(theirs, op).get_config()
        for key in set(mine) & set(keras_op) - _SKIPPED:
            assert np.allclose(mine[key], keras_op[key]) if isinstance(
                mine[key], (int, float, tuple, list)) and not isinstance(mine[key], str) \
                else mine[key] == keras_op[key], (op, key, mine[key], keras_op[key])
    config = theirs.get_config()
    assert set(ours.get_config()) <= set(config) | {"data_format"}
    for key in set(ours.get_config()) - _SKIPPED:
        assert list(np.ravel(ours.get_config()[key])) == list(np.ravel(config[key])), key
    again = getattr(kg.layers, name).from_config(ours.get_config())
    assert again.get_config() == ours.get_config()


def test_randaugment_applies_the_chosen_operations_as_keras():
    """Two deterministic operations chosen (equalization, then auto-contrast): Keras's
    transform with those choices and kgraph's agree."""
    ours, theirs = kg.layers.RandAugment(num_ops=2), keras.layers.RandAugment(num_ops=2)
    names = theirs._AUGMENT_LAYERS
    chosen = [names.index("equalization"), names.index("auto_contrast")]
    transformation = theirs.get_random_transformation(_img)
    transformation["layer_idxes"] = np.array(chosen)
    expected = np.asarray(theirs.transform_images(_img, transformation))
    got = np.asarray(ours._apply(_img, np.array(chosen), jax.random.PRNGKey(0)))
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-3)


def test_augmix_mixes_its_chains_as_keras():
    ours, theirs = kg.layers.AugMix(num_chains=3, chain_depth=2), keras.layers.AugMix(
        num_chains=3, chain_depth=2)
    names = ours._operations()
    none = len(names)
    choices = np.array([[names.index("auto_contrast"), none],
                        [names.index("equalization"), names.index("auto_contrast")],
                        [none, none]])
    mixing, weight = np.array([0.5, 0.3, 0.2], "float32"), np.float32(0.35)
    chains = [[{"layer_name": names[c], "transformation": None} for c in row if c != none]
              for row in choices]
    expected = np.asarray(theirs.transform_images(_img, {
        "chain_mixing_weights": mixing, "weight_sample": weight, "chain_transforms": chains}))
    got = np.asarray(ours._mix(_img, mixing, weight, choices, jax.random.PRNGKey(0)))
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-3)


def test_choices_are_drawn_afresh_in_a_compiled_program():
    """Keras's AugMix picks its chains with Python's ``random`` once per trace; here each
    step of a compiled program draws them from its key, so the images differ."""
    x = kg.Input(_img.shape[1:])
    for layer in (kg.layers.RandAugment(num_ops=1, factor=0.5),
                  kg.layers.AugMix(factor=0.5)):
        program = compiler.compile(kg.Model(x, layer(x)))
        params, state = program.init(jax.random.PRNGKey(0))
        run = jax.jit(lambda key: program.apply(params, state, _img, training=True,
                                                key=key)[0])
        outs = [np.asarray(run(jax.random.PRNGKey(i))) for i in range(4)]
        assert len({o.tobytes() for o in outs}) == 4
        np.testing.assert_array_equal(outs[0], np.asarray(run(jax.random.PRNGKey(0))))
        np.testing.assert_array_equal(np.asarray(layer(_img, training=False)), _img)


def test_every_operation_gets_chosen_and_masks_keep_their_shape():
    layer = kg.layers.RandAugment(num_ops=1)
    seen = {int(layer._choices(jax.random.PRNGKey(i))[0]) for i in range(200)}
    assert seen == set(range(11))
    masks = (np.random.default_rng(1).random((3, 10, 9, 1)) * 3).astype("int32")
    out = kg.layers.AugMix(factor=0.9, seed=2)({"images": _img, "segmentation_masks": masks})
    assert np.asarray(out["segmentation_masks"]).shape == masks.shape
    with pytest.raises(ValueError, match="factor"):
        kg.layers.RandAugment(factor=1.5)
