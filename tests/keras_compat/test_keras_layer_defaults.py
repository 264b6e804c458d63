"""Every layer class Keras and kgraph both offer, just made: built as Keras's is (a layer
that defines no ``build`` is built when made) and ``supports_masking`` as Keras's."""

from __future__ import annotations

import inspect

import keras
import pytest

import kgraph as kg
from tests.support.keras_constructors import constructor_arguments


def _layer_classes():
    for name in sorted(dir(keras.layers)):
        theirs = getattr(keras.layers, name)
        if (name.startswith("_") or not inspect.isclass(theirs)
                or not issubclass(theirs, keras.layers.Layer) or not hasattr(kg.layers, name)):
            continue
        yield pytest.param(name, id=name)


def _made(lib, name):
    cls = getattr(lib.layers, name)
    parameters = inspect.signature(getattr(keras.layers, name).__init__).parameters
    return cls(**constructor_arguments(lib, name, parameters))


@pytest.mark.parametrize("name", list(_layer_classes()))
def test_a_new_layer_is_built_and_masks_as_kerass(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    try:
        theirs = _made(keras, name)
    except ImportError:  # Keras's string preprocessing needs TensorFlow
        pytest.importorskip("tensorflow")
    except Exception:  # noqa: BLE001 - Keras refuses these arguments itself
        return
    ours = _made(kg, name)
    assert (ours.built, ours.supports_masking) == (theirs.built, theirs.supports_masking)
