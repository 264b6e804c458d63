"""``keras.preprocessing``: image and sequence utilities and the dataset builders, by
Keras's names (the same functions as ``kgraph.utils``'s).

>>> import kgraph as kg
>>> kg.preprocessing.sequence.pad_sequences([[1, 2], [3]], maxlen=3).tolist()
[[0, 1, 2], [0, 0, 3]]
"""

from kgraph.preprocessing import image, sequence
from kgraph.utils.dataset_loaders import image_dataset_from_directory, text_dataset_from_directory
from kgraph.utils.timeseries import timeseries_dataset_from_array

__all__ = ["image", "image_dataset_from_directory", "sequence", "text_dataset_from_directory",
           "timeseries_dataset_from_array"]
