"""``keras.distribution``: Keras 3's API for many devices, on JAX meshes
(``kgraph.distribution.distribution_lib``).

>>> import kgraph as kg
>>> kg.distribution.get_device_count() >= 1
True
"""

from kgraph.distribution.distribution_lib import (DataParallel, DeviceMesh, Distribution,
                                                  LayoutMap, ModelParallel, TensorLayout,
                                                  distribute_tensor, distribution,
                                                  get_device_count, initialize, list_devices,
                                                  set_distribution)

__all__ = ["DataParallel", "DeviceMesh", "Distribution", "LayoutMap", "ModelParallel",
           "TensorLayout", "distribute_tensor", "distribution", "get_device_count",
           "initialize", "list_devices", "set_distribution"]
