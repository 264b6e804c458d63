"""Keras 3's distribution API (``keras.distribution``) on JAX meshes.

A ``DeviceMesh`` is a ``jax.sharding.Mesh``, a ``TensorLayout`` a ``PartitionSpec`` on it,
and a ``LayoutMap`` a set of sharding rules from weight paths to layouts, matched as Keras
matches them: the exact path first, else the one key that ``re.fullmatch``es the path
(two are an error; a path no key matches is replicated; a key that matches nothing is
fine). ``set_distribution`` makes a
``DataParallel`` or ``ModelParallel`` the default of every ``model.compile`` that names no
mesh of its own: ``fit``, ``evaluate`` and ``predict`` then run on its mesh, the batch
split along its batch axis and each weight laid out as the layout map says.

>>> mesh = DeviceMesh((1,), ["batch"], list_devices()[:1])
>>> layouts = LayoutMap(mesh)
>>> layouts["dense.*kernel"] = (None, "batch")
>>> layouts["dense_1/kernel"].axes, layouts["other/bias"]
((None, 'batch'), None)
"""

from __future__ import annotations

import contextlib
import math
import sys
import warnings

import jax
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec

from kgraph.path_keys import PatternMap

__all__ = ["DataParallel", "DeviceMesh", "Distribution", "LayoutMap", "ModelParallel",
           "TensorLayout", "distribute_tensor", "distribution", "get_device_count",
           "initialize", "list_devices", "set_distribution"]

_current = None  # the distribution set by set_distribution


def list_devices(device_type=None) -> list:
    """Keras's device names (``"cpu:0"``, ``"tpu:3"``, ...) of ``device_type`` (default:
    the default backend's)."""
    return [f"{d.platform}:{d.id}" for d in jax.devices(device_type)]


def get_device_count(device_type=None) -> int:
    """How many devices of ``device_type`` there are (all processes)."""
    return len(jax.devices(device_type))


def initialize(job_addresses=None, num_processes=None, process_id=None) -> None:
    """Start multi-process JAX (``jax.distributed.initialize``): ``job_addresses`` is a
    comma-separated list whose first address is the coordinator."""
    coordinator = job_addresses.split(",")[0] if job_addresses else None
    jax.distributed.initialize(coordinator_address=coordinator,
                               num_processes=num_processes, process_id=process_id)


def _device(entry):
    if not isinstance(entry, str):
        return entry  # a jax Device
    platform, _, index = entry.partition(":")
    for device in jax.devices(platform or None):
        if str(device.id) == index:
            return device
    raise ValueError(f"No device {entry!r}; the devices are {list_devices(platform or None)}.")


class DeviceMesh:
    """Devices laid out in a grid with named axes: ``DeviceMesh((2, 4), ["batch", "model"],
    devices)``; ``devices`` are Keras's names (``list_devices()``, the default) or JAX
    devices. As Keras's: ``shape``, ``axis_names`` and ``devices`` (reshaped to ``shape``)
    as given, and ``backend_mesh``, the ``jax.sharding.Mesh`` (also ``mesh``).

    >>> mesh = DeviceMesh((1,), ["batch"], list_devices()[:1])
    >>> mesh, mesh.devices.tolist(), dict(mesh.backend_mesh.shape)
    (<DeviceMesh shape=(1,), axis_names=['batch']>, ['cpu:0'], {'batch': 1})
    """

    def __init__(self, shape, axis_names, devices=None):
        if not shape or not axis_names:
            raise ValueError(f"DeviceMesh: shape and axis_names must not be empty; received "
                             f"shape={shape}, axis_names={axis_names}.")
        if len(shape) != len(axis_names):
            raise ValueError(f"DeviceMesh: shape {shape} and axis_names {axis_names} must "
                             "have the same length.")
        given = np.array(list_devices() if devices is None else devices)
        if math.prod(shape) != given.size:
            raise ValueError(f"DeviceMesh: shape {shape} holds {math.prod(shape)} devices, "
                             f"received {given.size}.")
        self._shape, self._axis_names = shape, axis_names
        self._devices = np.reshape(given, shape)
        self._mesh = None

    @property
    def mesh(self) -> jax.sharding.Mesh:
        """The ``jax.sharding.Mesh`` of the devices, made on first use (as Keras's, a mesh
        naming devices this process lacks fails only then)."""
        if self._mesh is None:
            placed = np.array([_device(d) for d in self._devices.ravel()], dtype=object)
            self._mesh = jax.sharding.Mesh(placed.reshape(tuple(self._shape)),
                                           tuple(self._axis_names))
        return self._mesh

    @property
    def shape(self):
        return self._shape

    @property
    def axis_names(self):
        return self._axis_names

    @property
    def devices(self) -> np.ndarray:
        return self._devices

    @property
    def backend_mesh(self):
        return self.mesh

    def __repr__(self):
        return f"<{type(self).__name__} shape={self.shape}, axis_names={self.axis_names}>"


class TensorLayout:
    """How a tensor is split over a mesh: one mesh axis name (or None) per dimension.
    ``device_mesh`` may be set later, once; ``backend_layout`` is the ``NamedSharding``.

    >>> TensorLayout(("batch", None), DeviceMesh((1,), ["batch"], list_devices()[:1]))
    <TensorLayout axes=('batch', None), device_mesh=<DeviceMesh shape=(1,), axis_names=['batch']>>
    """

    def __init__(self, axes, device_mesh=None):
        self._axes = tuple(axes)
        self._device_mesh = device_mesh
        self._validate_axes()

    @property
    def axes(self) -> tuple:
        return self._axes

    @property
    def device_mesh(self):
        return self._device_mesh

    @device_mesh.setter
    def device_mesh(self, device_mesh):
        if self._device_mesh is not None:
            raise ValueError(f"This TensorLayout already has the device mesh "
                             f"{self._device_mesh}; it cannot be replaced by {device_mesh}.")
        self._device_mesh = device_mesh
        self._validate_axes()

    @property
    def spec(self) -> PartitionSpec:
        return PartitionSpec(*self.axes)

    @property
    def backend_layout(self) -> NamedSharding:
        if self.device_mesh is None:
            raise ValueError(f"{self!r} has no device_mesh, so it places nothing yet.")
        return NamedSharding(self.device_mesh.mesh, self.spec)

    def _validate_axes(self):
        if self._device_mesh is None:
            return
        unknown = sorted(set(self._axes) - {None} - set(self._device_mesh.axis_names))
        if unknown:
            raise ValueError(f"TensorLayout axes {self._axes}: {unknown} name no axis of the "
                             f"device mesh, whose axes are {list(self._device_mesh.axis_names)}.")

    def __repr__(self):
        return f"<{type(self).__name__} axes={self.axes}, device_mesh={self.device_mesh}>"


class LayoutMap(PatternMap):
    """Weight-path patterns to ``TensorLayout``s (a tuple of axes is made one), for
    ``ModelParallel``. A path no key matches has the layout None (replicated)."""

    _what = "Layout map"

    def __init__(self, device_mesh):
        super().__init__()
        self.device_mesh = device_mesh

    def _entry(self, key, layout):
        if isinstance(layout, (tuple, list)):
            layout = TensorLayout(layout, self.device_mesh)
        if not isinstance(layout, TensorLayout):
            raise ValueError(f"A layout map value must be a TensorLayout or a tuple of axes, "
                             f"received {layout!r} for {key!r}.")
        if layout.device_mesh is None:
            layout.device_mesh = self.device_mesh
        return layout


class Distribution:
    """How a model is spread over a mesh: its ``device_mesh``, the axis ``batch_dim_name``
    the batch is split along, and the layout of the weights (``layout_rules()``).

    As Keras's: ``get_data_layout(shape)`` / ``get_variable_layout(variable)`` /
    ``get_tensor_layout(path)`` give ``TensorLayout``s, ``num_model_replicas`` the number
    of model copies the batch is split over, ``with dist.scope():`` makes it the current
    distribution (``distribution()``) inside the block, ``distribute_dataset`` shards a
    ``tf.data.Dataset`` over processes. ``with dist:`` is ``dist.scope()``.
    """

    def __init__(self, device_mesh, batch_dim_name=None, auto_shard_dataset=True):
        self._device_mesh = device_mesh
        self._batch_dim_name = batch_dim_name
        self._auto_shard_dataset = auto_shard_dataset
        self._num_processes, self._process_id = jax.process_count(), jax.process_index()
        self._is_multi_process = self._num_processes > 1
        self._scopes = []

    @property
    def device_mesh(self) -> DeviceMesh:
        return self._device_mesh

    @property
    def mesh(self):
        """The ``jax.sharding.Mesh`` of ``device_mesh``."""
        return self.device_mesh.mesh

    @property
    def batch_dim_name(self):
        return self._batch_dim_name

    @property
    def auto_shard_dataset(self) -> bool:
        return self._auto_shard_dataset

    @auto_shard_dataset.setter
    def auto_shard_dataset(self, value) -> None:
        self._auto_shard_dataset = value

    @property
    def num_processes(self) -> int:
        """How many processes the run has."""
        return self._num_processes

    @property
    def num_model_replicas(self) -> int:
        """How many copies of the model the batch is split over."""
        raise NotImplementedError(f"{type(self).__name__} does not say how many model "
                                  "replicas it has.")

    @property
    def data_shard_id(self) -> int:
        """Which shard of the data this process reads."""
        replicas = self.num_model_replicas
        if replicas >= self.num_processes:
            return self._process_id
        return self._process_id // (self.num_processes // replicas)

    def get_data_layout(self, data_shape) -> TensorLayout:
        """The layout of input data of ``data_shape``: split along the batch axis."""
        return TensorLayout([self.batch_dim_name] + [None] * (len(data_shape) - 1),
                            self.device_mesh)

    def get_variable_layout(self, variable) -> TensorLayout:
        """The layout of ``variable``: its own (``variable._layout``), else replicated."""
        own = getattr(variable, "_layout", None)
        if own is not None:
            return own
        return TensorLayout([None] * len(variable.shape), self.device_mesh)

    def get_tensor_layout(self, path):
        """The layout of the intermediate tensor at ``path`` (None: as it comes)."""
        return None

    def layout_rules(self) -> list:
        """``[(path pattern, PartitionSpec)]``: how weights are laid out, as sharding rules
        (matched as a ``LayoutMap`` matches; a weight no rule matches is replicated)."""
        return []

    @contextlib.contextmanager
    def scope(self):
        """This distribution is ``distribution()`` inside the block; the one before it is
        again after it (an exception leaving the block too)."""
        previous = distribution()
        set_distribution(self)
        try:
            yield
        finally:
            set_distribution(previous)

    def __enter__(self):
        scope = self.scope()
        scope.__enter__()
        self._scopes.append(scope)
        return self

    def __exit__(self, *exc_info):
        self._scopes.pop().__exit__(*exc_info)
        return False

    def distribute_dataset(self, dataset):
        """``dataset`` as this process reads it: as it is on one process or without
        ``auto_shard_dataset``; a ``tf.data.Dataset`` sharded over the processes else."""
        if not self._is_multi_process or not self.auto_shard_dataset:
            return dataset
        tf = sys.modules.get("tensorflow")
        if tf is not None and isinstance(dataset, tf.data.Dataset):
            return self.distribute_tf_dataset(dataset)
        raise ValueError(f"{type(self).__name__}.distribute_dataset shards only a "
                         f"tf.data.Dataset over processes; received {type(dataset).__name__}. "
                         "Shard it yourself and set auto_shard_dataset = False.")

    def distribute_tf_dataset(self, dataset):
        """A batched ``tf.data.Dataset`` cut to this process's share of each global batch."""
        import tensorflow as tf
        from tensorflow.python.data.experimental.ops import distribute as tf_distribute

        known = all(getattr(spec, "shape", None) is not None and spec.shape.rank
                    for spec in tf.nest.flatten(dataset.element_spec))
        batch = int(tf_distribute.compute_batch_size(dataset).numpy()) if known else -1
        if batch < 0:
            raise ValueError("distribute_dataset needs a batched dataset of known batch size "
                             "(e.g. dataset.batch(batch_size)).")
        replicas = self.num_model_replicas
        if replicas == 1:  # every process reads the whole batch
            return dataset.prefetch(tf.data.AUTOTUNE)
        shards, index = ((self.num_processes, self._process_id)
                         if replicas >= self.num_processes else (replicas, self.data_shard_id))
        if batch % shards:
            raise ValueError(f"The global batch size {batch} must be divisible by the "
                             f"{shards} shards the data is split into.")
        return dataset.rebatch(batch // shards).shard(num_shards=shards, index=index).prefetch(
            tf.data.AUTOTUNE)

    def __repr__(self):
        return f"<{type(self).__name__} device_mesh={self.device_mesh}>"


class DataParallel(Distribution):
    """Every weight on every device, the batch split over them: a one-axis mesh named
    "batch" over ``devices`` (default: all), or ``device_mesh``, whose first axis the batch
    is split along.

    >>> dist = DataParallel(devices=list_devices()[:1])
    >>> dist.num_model_replicas, dist.get_data_layout((16, 3)).axes
    (1, ('batch', None))
    >>> with dist.scope():
    ...     distribution() is dist
    True
    """

    def __init__(self, device_mesh=None, devices=None, auto_shard_dataset=True):
        if device_mesh is not None:
            if not isinstance(device_mesh, DeviceMesh):
                raise ValueError(f"DataParallel: device_mesh must be a DeviceMesh, received "
                                 f"{type(device_mesh).__name__}.")
            if len(device_mesh.shape) != 1:
                warnings.warn(f"DataParallel expects a one-axis device mesh, received "
                              f"{device_mesh}: the batch is split along its first axis.",
                              stacklevel=2)
        else:
            devices = np.array(list_devices() if devices is None or not len(devices)
                               else devices)
            device_mesh = DeviceMesh(devices.shape, ["batch"], devices)
        super().__init__(device_mesh, device_mesh.axis_names[0], auto_shard_dataset)

    @property
    def num_model_replicas(self) -> int:
        return int(self.device_mesh.devices.size)


class ModelParallel(Distribution):
    """Weights laid out by ``layout_map`` (on its mesh), the batch split along
    ``batch_dim_name`` (default: the mesh's first axis)."""

    def __init__(self, *, layout_map=None, batch_dim_name=None, auto_shard_dataset=True,
                 **kwargs):
        device_mesh = kwargs.pop("device_mesh", None)
        if kwargs:
            raise TypeError(f"ModelParallel got unexpected arguments {sorted(kwargs)}.")
        if layout_map is None:
            raise ValueError("ModelParallel needs layout_map=LayoutMap(device_mesh).")
        if not isinstance(layout_map, LayoutMap):
            raise ValueError(f"ModelParallel: layout_map must be a LayoutMap, received "
                             f"{type(layout_map).__name__}.")
        mesh = layout_map.device_mesh
        if device_mesh is not None and device_mesh is not mesh:
            warnings.warn("ModelParallel lays the weights out on the layout map's device "
                          "mesh; the device_mesh given is not used (as in Keras).",
                          stacklevel=2)
        super().__init__(mesh, batch_dim_name or mesh.axis_names[0], auto_shard_dataset)
        self.layout_map = layout_map
        if (self.num_processes > self.num_model_replicas
                and self.num_processes % self.num_model_replicas):
            raise ValueError(f"ModelParallel on {self.num_processes} processes needs a number "
                             f"of model replicas dividing it; the mesh has "
                             f"{self.num_model_replicas} along {self.batch_dim_name!r}.")

    @property
    def num_model_replicas(self) -> int:
        axis = list(self.device_mesh.axis_names).index(self.batch_dim_name)
        return int(self.device_mesh.shape[axis])

    def get_variable_layout(self, variable) -> TensorLayout:
        """``variable``'s own layout, else the layout map's for its path, else replicated."""
        own = getattr(variable, "_layout", None)
        if own is not None:
            return own
        return self.layout_map[variable.path] or super().get_variable_layout(variable)

    def get_tensor_layout(self, path):
        return self.layout_map[path]

    def layout_rules(self) -> list:
        return [(pattern, layout.spec) for pattern, layout in self.layout_map.items()]


def set_distribution(value) -> None:
    """Make ``value`` (a ``Distribution``, or None) the default of every ``compile``."""
    global _current
    if value is not None and not isinstance(value, Distribution):
        raise TypeError(f"set_distribution expects a Distribution or None, received "
                        f"{type(value).__name__}.")
    _current = value


def distribution():
    """The distribution ``set_distribution`` set, or None."""
    return _current


def distribute_tensor(tensor, layout):
    """``tensor`` placed on ``layout``'s mesh as it says (a ``TensorLayout``, or a JAX
    sharding)."""
    if isinstance(layout, TensorLayout):
        if layout.device_mesh is None:
            raise ValueError("distribute_tensor: the layout has no device_mesh.")
        layout = NamedSharding(layout.device_mesh.mesh, layout.spec)
    return jax.device_put(tensor, layout)
