"""Models (``keras.models``): ``Model``, ``Sequential``, ``Functional``, ``clone_model`` and
``model_from_json``; subclassed models are traced into graphs (``tracing``).

>>> import kgraph as kg
>>> model = kg.models.Sequential([kg.Input(shape=(3,)), kg.layers.Dense(2)])
>>> kg.models.clone_model(model).count_params()
8
"""

from kgraph import saving
from kgraph.models.cloning import clone_model
from kgraph.models.functional import Functional
from kgraph.models.model import Model
from kgraph.models.sequential import Sequential


def model_from_json(json_string, custom_objects=None):
    """A model rebuilt from ``model.to_json()`` (see ``kgraph.saving.model_from_json``)."""
    return saving.model_from_json(json_string, custom_objects=custom_objects)


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):
    """The model saved in ``filepath`` (see ``kgraph.saving.load_model``)."""
    return saving.load_model(filepath, custom_objects=custom_objects, compile=compile, safe_mode=safe_mode)


def save_model(model, filepath, overwrite=True, **kwargs):
    """``model.save(filepath)`` (see ``kgraph.saving.save_model``)."""
    saving.save_model(model, filepath, overwrite=overwrite, **kwargs)


__all__ = ["Functional", "Model", "Sequential", "clone_model", "load_model", "model_from_json",
           "save_model"]
