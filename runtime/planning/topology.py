"""TPU topologies by name, compiled for on any machine through ``libtpu``.

``topology("v5e-256")`` gives the 256 chips of a TPU v5e pod as JAX devices that are not
attached (``jax.experimental.topologies``): a program can be compiled for them by XLA's
real TPU compiler, on a CPU-only machine. Names are Google Cloud's: ``v5e-N`` and
``v6e-N`` count chips, ``v4-N`` and ``v5p-N`` count TensorCores (two per chip, run as
one "megacore" device). ``"v5e-256x2"`` is two slices joined by the data-center network;
an explicit ``"v5e:16x16"`` (chips per dimension) works too. A ``jax.sharding.Mesh`` over
such devices, or over local ones, is taken as it is.

Each chip's figures: the HBM the compiler lets a program use (read from the compiler
itself, once per chip kind: it is what decides whether a program fits) and the peak
bfloat16 FLOP/s of Google's specification (for MFU).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import math
import os
import re

import jax
import numpy as np
from jax.experimental import mesh_utils

__all__ = ["Topology", "topology", "tpu_compiling"]

# chip kind (JAX's device_kind) -> peak dense bfloat16 FLOP/s per chip (Cloud TPU docs)
PEAK_FLOPS = {"TPU v4": 275e12, "TPU v5 lite": 197e12, "TPU v5": 459e12,
              "TPU v6 lite": 918e12}
# chip kind -> HBM bandwidth per chip, bytes/s (Cloud TPU docs)
HBM_BANDWIDTH = {"TPU v4": 1200e9, "TPU v5 lite": 819e9, "TPU v5": 2765e9,
                 "TPU v6 lite": 1640e9}
# chip kind -> inter-chip interconnect bandwidth per chip, bytes/s (Cloud TPU docs: 2,400,
# 1,600, 4,800 and 3,584 Gbps)
ICI_BANDWIDTH = {"TPU v4": 300e9, "TPU v5 lite": 200e9, "TPU v5": 600e9,
                 "TPU v6 lite": 448e9}
# generation in a name -> (topology prefix, chips counted per name unit, dims, megacore)
_GENERATIONS = {"v4": ("v4", 2, 3, True), "v5p": ("v5", 2, 3, True),
                "v5e": ("v5e", 1, 2, False), "v6e": ("v6e", 1, 2, False)}
_INSTALL = ('Compiling for a TPU topology needs libtpu: pip install "kgraph[tpu]" '
            "(or pip install libtpu). Running JAX on the CPU meanwhile: JAX_PLATFORMS=cpu.")


@dataclasses.dataclass(frozen=True)
class Topology:
    """Devices to compile for (attached or not) and what each chip offers."""

    name: str
    devices: tuple
    slices: int = 1

    @property
    def kind(self) -> str:
        return self.devices[0].device_kind

    @property
    def platform(self) -> str:
        return self.devices[0].platform

    @property
    def chips(self) -> int:
        return len(self.devices)

    @property
    def peak_flops(self) -> float | None:
        """Peak bfloat16 FLOP/s per chip (None: a kind without a published figure)."""
        return PEAK_FLOPS.get(self.kind)

    @property
    def hbm_bandwidth(self) -> float | None:
        """HBM bytes/s per chip (None: a kind without a published figure)."""
        return HBM_BANDWIDTH.get(self.kind)

    @property
    def ici_bandwidth(self) -> float | None:
        """Inter-chip interconnect bytes/s per chip (None: no published figure)."""
        return ICI_BANDWIDTH.get(self.kind)

    @property
    def hbm_bytes(self) -> int | None:
        """The memory per chip the compiler lets a program use (None off TPU)."""
        if self.platform != "tpu":
            return None
        return _usable_hbm(self.devices[0])

    def mesh(self, shape: dict) -> jax.sharding.Mesh:
        """A mesh of ``shape`` ({axis name: size}, in order; one size may be -1: the rest)
        over these devices, the first axis across slices."""
        names, sizes = list(shape), list(shape.values())
        if sizes.count(-1) > 1:
            raise ValueError(f"mesh shape {shape}: at most one axis may be -1.")
        known = math.prod(s for s in sizes if s != -1)
        if -1 in sizes:
            sizes[sizes.index(-1)] = self.chips // known if known and not self.chips % known else 0
        if math.prod(sizes) != self.chips:
            raise ValueError(f"mesh shape {shape} does not cover the {self.chips} devices of "
                             f"{self.name}: its sizes multiply to {math.prod(sizes)}.")
        if self.platform != "tpu":
            devices = np.array(self.devices).reshape(sizes)
        elif self.slices > 1:  # the first axis spans the slices, the rest stays in one
            if sizes[0] % self.slices:
                raise ValueError(f"{self.name} has {self.slices} slices: the mesh's first "
                                 f"axis ({names[0]}={sizes[0]}) must be a multiple of them.")
            devices = mesh_utils.create_hybrid_device_mesh(
                [sizes[0] // self.slices, *sizes[1:]], [self.slices] + [1] * (len(sizes) - 1),
                self.devices)
        else:
            devices = mesh_utils.create_device_mesh(sizes, self.devices,
                                                    allow_split_physical_axes=True)
        return jax.sharding.Mesh(devices, tuple(names))


def _dims(chips: int, rank: int) -> list[int]:
    """Chips per dimension of a slice of ``chips`` (a power of two) as Cloud TPU builds
    it: from 2x2x1 (or 1x1), the smallest dimension doubles, the last of equals first
    (2x2x2, 2x2x4, 2x4x4, 4x4x4, ...; 2x4, 4x4, 4x8, ...)."""
    smallest = 4 if rank == 3 else 1
    if chips < smallest or chips & (chips - 1):
        raise ValueError(f"a TPU slice of {chips} chips: give a power of two (at least "
                         f"{smallest}), or the topology itself (e.g. 'v4:2x2x3').")
    dims = [2, 2, 1] if rank == 3 else [1, 1]
    while math.prod(dims) < chips:
        low = min(dims)
        dims[max(i for i, d in enumerate(dims) if d == low)] *= 2
    return dims


def _wrap(dims: list[int]) -> tuple:
    """Which dimensions close into a ring (Cloud TPU's full-size slices: a v5e/v6e
    dimension of 16 chips, every dimension of a v4/v5p slice from 4x4x4)."""
    if len(dims) == 3:
        return (min(dims) >= 4,) * 3
    return (dims[0] == 16, dims[1] == 16, False)


def _parse(name: str):
    """``(topology_name, chip_config, slices)`` for a pod name or an explicit topology."""
    text = name.strip().lower()
    slices = 1
    match = re.fullmatch(r"(.+?)x(\d+)", text) if "-" in text else None
    if match and "-" in match.group(1):
        text, slices = match.group(1), int(match.group(2))
    if ":" in text:
        prefix = text.split(":")[0]
        megacore = prefix in ("v4", "v5", "v5p")
        return text.replace("v5p:", "v5:"), "megacore" if megacore else "default", slices
    match = re.fullmatch(r"(v4|v5p|v5e|v6e|v5litepod)-(\d+)", text)
    if not match:
        raise ValueError(
            f"Unknown TPU topology {name!r}: give a Cloud TPU name such as 'v4-32', "
            "'v5e-256', 'v5p-128', 'v6e-64' (append 'x2' for two slices), or an explicit "
            "topology such as 'v5e:16x16'.")
    generation = "v5e" if match.group(1) == "v5litepod" else match.group(1)
    prefix, per_chip, rank, megacore = _GENERATIONS[generation]
    units = int(match.group(2))
    if units % per_chip:
        raise ValueError(f"{name!r}: {generation} names count TensorCores, two per chip; "
                         f"give an even number.")
    dims = _dims(units // per_chip, rank)
    return (f"{prefix}:{'x'.join(map(str, dims))}", "megacore" if megacore else "default",
            slices)


@contextlib.contextmanager
def tpu_compiling():
    """Around compiles for chips that are not attached: ``XLA_FLAGS`` without the flags
    only XLA's CPU compiler knows (``--xla_cpu_...``; libtpu reads the variable as it
    starts and compiles, and stops the process on a flag it does not know), and JAX's
    persistent compilation cache off (an executable compiled for absent chips cannot be
    loaded back)."""
    flags = os.environ.get("XLA_FLAGS")
    caching = jax.config.jax_enable_compilation_cache
    if flags is not None:
        os.environ["XLA_FLAGS"] = " ".join(f for f in flags.split()
                                           if not f.startswith("--xla_cpu_"))
    jax.config.update("jax_enable_compilation_cache", False)
    try:
        yield
    finally:
        jax.config.update("jax_enable_compilation_cache", caching)
        if flags is not None:
            os.environ["XLA_FLAGS"] = flags


@functools.lru_cache(maxsize=None)
def _tpu_devices(topology_name: str, chip_config: str, slices: int) -> tuple:
    try:
        import libtpu  # noqa: F401
    except ImportError:
        raise ImportError(_INSTALL) from None
    # planning runs in any process: libtpu's one-process-per-host lock is for real chips
    os.environ.setdefault("ALLOW_MULTIPLE_LIBTPU_LOAD", "1")
    from jax.experimental import topologies

    dims = [int(d) for d in topology_name.split(":")[1].split("x")]
    with tpu_compiling():
        description = topologies.get_topology_desc(
            platform="tpu", topology_name=topology_name, chip_config_name=chip_config,
            chips_per_host_bounds=(2, 2, 1) if math.prod(dims) >= 4 else (1, 1, 1),
            num_slices=slices, wrap=_wrap(dims))
    return tuple(description.devices)


def topology(spec) -> Topology:
    """A ``Topology`` from a TPU name (``"v5e-256"``), a ``Topology``, or a mesh (its
    devices, attached or not)."""
    if isinstance(spec, Topology):
        return spec
    if isinstance(spec, jax.sharding.Mesh):
        devices = tuple(spec.devices.flat)
        slices = len({getattr(d, "slice_index", 0) or 0 for d in devices})
        return Topology(f"{len(devices)} x {devices[0].device_kind}", devices, slices)
    if not isinstance(spec, str):
        raise TypeError("topology must be a TPU name such as 'v5e-256', a "
                        f"jax.sharding.Mesh or a Topology; received {spec!r}.")
    topology_name, chip_config, slices = _parse(spec)
    return Topology(spec, _tpu_devices(topology_name, chip_config, slices), slices)


_HBM = re.compile(r"exceeds available HBM \(([\d.]+)([KMGT])\)")


@functools.lru_cache(maxsize=None)
def _usable_hbm_of_kind(kind: str, device) -> int:
    """Asks the compiler: a program needing far more than any chip has is refused with
    the memory it may use, which is the figure that decides whether a plan fits."""
    import jax.numpy as jnp
    from jax.sharding import NamedSharding, PartitionSpec

    mesh = jax.sharding.Mesh(np.array([device]), ("x",))
    probe = jax.ShapeDtypeStruct((1 << 19,), jnp.float32,
                                 sharding=NamedSharding(mesh, PartitionSpec()))
    try:
        with tpu_compiling():
            jax.jit(lambda a: jnp.sort(jnp.outer(a, a), axis=0)[0]).trace(probe).lower(
                lowering_platforms=("tpu",)).compile()
    except Exception as error:  # noqa: BLE001 - the refusal is the answer
        found = _HBM.search(str(error))
        if found:
            scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}[found.group(2)]
            return int(float(found.group(1)) * scale)
        raise
    raise RuntimeError(f"The TPU compiler accepted 1 TiB of temporaries on a {kind} chip; "
                       "cannot tell its memory.")


def _usable_hbm(device) -> int:
    return _usable_hbm_of_kind(device.device_kind, device)
