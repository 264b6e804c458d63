"""``keras.src.legacy.saving.legacy_h5_format``: Keras's functions writing and reading the
legacy HDF5 model file (``model.h5``), as ``model.save("model.h5")`` and
``load_model("model.h5")`` do (``kgraph.saving.legacy_h5_save``, ``kgraph.saving.legacy_h5``),
without the warning that the format is legacy.

>>> import os, tempfile, kgraph as kg
>>> x = kg.Input(shape=(3,))
>>> model = kg.Model(x, kg.layers.Dense(2)(x))
>>> path = os.path.join(tempfile.mkdtemp(), "model.h5")
>>> save_model_to_hdf5(model, path)
>>> load_model_from_hdf5(path).count_params()
8
"""

from kgraph.saving import keras_file, legacy_h5, legacy_h5_save

__all__ = ["load_model_from_hdf5", "save_model_to_hdf5"]


def save_model_to_hdf5(model, filepath, overwrite=True, include_optimizer=True):
    """Write ``model`` (config, weights and, unless ``include_optimizer=False``, the
    optimizer's variables) to the legacy HDF5 file ``filepath``."""
    legacy_h5_save.save_model(model, str(filepath), keras_file.model_config(model),
                              keras_file.KERAS_FORMAT_VERSION, overwrite,
                              include_optimizer=include_optimizer, warn=False)


def load_model_from_hdf5(filepath, custom_objects=None, compile=True, safe_mode=True):  # noqa: A002
    """The model a legacy HDF5 file holds (compiled as saved, unless ``compile=False``)."""
    return legacy_h5.load_model(str(filepath), custom_objects=custom_objects,
                                safe_mode=safe_mode, compile=compile)
