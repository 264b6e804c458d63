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
    devices)``; ``devices`` are Keras's names (``list_devices()``) or JAX devices (default:
    all)."""

    def __init__(self, shape, axis_names, devices=None):
        shape, axis_names = tuple(shape), tuple(axis_names)
        if len(shape) != len(axis_names):
            raise ValueError(f"DeviceMesh: shape {shape} and axis_names {axis_names} must "
                             "have the same length.")
        devices = [_device(d) for d in (jax.devices() if devices is None
                                        else np.asarray(devices).ravel())]
        if int(np.prod(shape)) != len(devices):
            raise ValueError(f"DeviceMesh: shape {shape} holds {int(np.prod(shape))} devices, "
                             f"received {len(devices)}.")
        self.shape, self.axis_names = shape, axis_names
        self.devices = np.array(devices, dtype=object).reshape(shape)
        self.mesh = jax.sharding.Mesh(self.devices, axis_names)

    def __repr__(self):
        return f"DeviceMesh(shape={self.shape}, axis_names={self.axis_names})"


class TensorLayout:
    """How a tensor is split over a mesh: one mesh axis name (or None) per dimension."""

    def __init__(self, axes, device_mesh=None):
        self.axes = tuple(axes)
        self.device_mesh = device_mesh

    @property
    def spec(self) -> PartitionSpec:
        return PartitionSpec(*self.axes)

    def __repr__(self):
        return f"TensorLayout(axes={self.axes})"


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
    """How a model is spread over a mesh: ``mesh`` (a ``jax.sharding.Mesh``), the batch
    axis ``batch_dim_name``, and the layout of the weights (``layout_rules()``)."""

    def __init__(self, device_mesh, batch_dim_name=None, auto_shard_dataset=True):
        self.device_mesh = device_mesh
        self.batch_dim_name = batch_dim_name or device_mesh.axis_names[0]
        self.auto_shard_dataset = auto_shard_dataset

    @property
    def mesh(self):
        return self.device_mesh.mesh

    def layout_rules(self) -> list:
        """``[(path pattern, PartitionSpec)]``: how weights are laid out, as sharding rules
        (matched as a ``LayoutMap`` matches; a weight no rule matches is replicated)."""
        return []

    def __enter__(self):
        self._previous = distribution()
        set_distribution(self)
        return self

    def __exit__(self, *exc_info):
        set_distribution(self._previous)
        return False


class DataParallel(Distribution):
    """Every weight on every device, the batch split over them (a one-axis mesh named
    "batch" over ``devices``, or ``device_mesh``'s first axis)."""

    def __init__(self, device_mesh=None, devices=None, auto_shard_dataset=True):
        if device_mesh is None:
            devices = list(jax.devices()) if devices is None else list(devices)
            device_mesh = DeviceMesh((len(devices),), ["batch"], devices)
        super().__init__(device_mesh, device_mesh.axis_names[0], auto_shard_dataset)


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
        super().__init__(device_mesh or layout_map.device_mesh, batch_dim_name,
                         auto_shard_dataset)
        self.layout_map = layout_map

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
