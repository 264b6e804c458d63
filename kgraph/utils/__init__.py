"""``keras.utils``: data and model utilities."""

from kgraph.utils.timeseries import TimeseriesDataset, timeseries_dataset_from_array

__all__ = ["TimeseriesDataset", "timeseries_dataset_from_array"]
