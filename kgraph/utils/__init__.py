"""``keras.utils``: data utilities, model plotting, serialization helpers and seeding.

>>> import kgraph as kg
>>> kg.utils.to_categorical([1, 0], num_classes=2).tolist()
[[0.0, 1.0], [1.0, 0.0]]
"""

from kgraph.backend import clear_session
from kgraph.config import (disable_interactive_logging, enable_interactive_logging,
                           is_interactive_logging_enabled, standardize_dtype)
from kgraph.display.plotting import model_to_dot, plot_model
from kgraph.graph.keras_tensor import is_keras_tensor
from kgraph.random import set_random_seed
from kgraph.saving import (CustomObjectScope, custom_object_scope, deserialize_keras_object,
                           get_custom_objects, get_registered_name, get_registered_object,
                           register_keras_serializable, serialize_keras_object)
from kgraph.utils.data_utils import (get_source_inputs, normalize, pack_x_y_sample_weight,
                                     pad_sequences, to_categorical, unpack_x_y_sample_weight)
from kgraph.utils.config import Config
from kgraph.utils.dataset_loaders import (audio_dataset_from_directory,
                                          image_dataset_from_directory,
                                          text_dataset_from_directory)
from kgraph.utils.dataset_utils import split_dataset
from kgraph.utils.feature_space import FeatureSpace
from kgraph.utils.file_utils import get_file
from kgraph.utils.image_utils import (array_to_img, img_to_array, load_img, save_img,
                                      smart_resize)
from kgraph.utils.progbar import Progbar
from kgraph.utils.py_dataset import PyDataset, Sequence
from kgraph.utils.timeseries import TimeseriesDataset, timeseries_dataset_from_array
from kgraph.legacy import saving as legacy  # noqa: F401 - keras.utils.legacy
from kgraph.utils import bounding_boxes  # noqa: F401 - keras.utils.bounding_boxes

__all__ = ["array_to_img", "img_to_array", "load_img", "save_img", "smart_resize",
           "audio_dataset_from_directory", "image_dataset_from_directory", "split_dataset",
           "text_dataset_from_directory",
           "Config", "CustomObjectScope", "FeatureSpace", "Progbar", "PyDataset", "Sequence", "TimeseriesDataset", "clear_session", "custom_object_scope",
           "deserialize_keras_object", "disable_interactive_logging",
           "enable_interactive_logging", "get_custom_objects", "get_file", "get_registered_name",
           "get_registered_object", "get_source_inputs", "is_interactive_logging_enabled",
           "is_keras_tensor", "model_to_dot", "normalize", "pack_x_y_sample_weight",
           "pad_sequences", "plot_model", "register_keras_serializable",
           "serialize_keras_object", "set_random_seed", "standardize_dtype",
           "timeseries_dataset_from_array", "to_categorical", "unpack_x_y_sample_weight"]
