"""A seeded image layer's eager draws, as Keras's: they follow from the layer's seed and
its own calls (two layers of one seed draw alike, whatever was drawn in between; a layer's
second call draws anew), and ``RandomColorJitter``'s steps draw as the step layers of its
seed do on their own. The same properties are checked on Keras and on kgraph."""

from __future__ import annotations

import keras
import numpy as np
import pytest

import kgraph as kg

_images = np.random.default_rng(0).uniform(0, 1, (6, 8, 8, 3)).astype("float32")


@pytest.mark.parametrize("module", [keras, kg], ids=["keras", "kgraph"])
@pytest.mark.parametrize("name, kwargs", [("RandomContrast", {"factor": 0.5}),
                                          ("RandomFlip", {}),
                                          ("RandomTranslation", {"height_factor": 0.3,
                                                                 "width_factor": 0.3})])
def test_a_seed_gives_the_layer_its_own_stream(module, name, kwargs):
    first = getattr(module.layers, name)(seed=11, **kwargs)
    once = np.asarray(first(_images))
    module.random.uniform((3,))  # draws elsewhere do not move the layer's stream
    second = getattr(module.layers, name)(seed=11, **kwargs)
    np.testing.assert_allclose(np.asarray(second(_images)), once)
    assert not np.allclose(np.asarray(second(_images)), once)


@pytest.mark.parametrize("module", [keras, kg], ids=["keras", "kgraph"])
@pytest.mark.parametrize("step, layer, factor", [("contrast_factor", "RandomContrast", 0.5),
                                                 ("hue_factor", "RandomHue", 0.5),
                                                 ("brightness_factor", "RandomBrightness",
                                                  0.3)])
def test_color_jitter_steps_draw_as_their_layers_of_its_seed(module, step, layer, factor):
    jitter = module.layers.RandomColorJitter(value_range=(0, 1), seed=5, **{step: factor})
    alone = getattr(module.layers, layer)(factor, value_range=(0, 1), seed=5)
    np.testing.assert_allclose(np.asarray(jitter(_images)), np.asarray(alone(_images)),
                               rtol=1e-5, atol=1e-6)
