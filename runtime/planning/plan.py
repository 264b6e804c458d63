"""``plan``: compile a model's training step for a TPU pod (or any mesh) from shapes alone.

The program planned is the one ``fit`` runs (``Trainer.fit_batches``: loss, optimizer
update, running metrics, remat, precision, scanned blocks), lowered from abstract
weights, optimizer state and batch, and compiled by XLA for the topology's chips. No
weight value is made. The ``Plan`` tells whether it fits in each chip's memory, how the
bytes divide, XLA's estimated step time, FLOPs and the MFU they imply, and the
collectives the program runs; a configuration that does not fit is a plan with
``fits=False`` and XLA's reason.

>>> import kgraph as kg
>>> x = kg.Input((16,))
>>> model = kg.Model(x, kg.layers.Dense(4)(x))
>>> p = plan(model, topology=jax.make_mesh((1,), ("data",)), batch=((8, 16), (8, 4)),
...          loss="mse", sharding="dp")
>>> p.fits, p.chips, p.flops_per_step
(True, 1, 2048)
"""

from __future__ import annotations

import dataclasses
import time

import jax

import compiler
from kgraph import optimizers
from runtime.planning import collectives as collectives_lib
from runtime.planning import flops as flops_lib
from runtime.planning import presets, shapes
from runtime.planning.topology import Topology, topology as as_topology, tpu_compiling
from runtime.sharding.rules import ShardingRules
from runtime.trainer import Trainer

__all__ = ["Plan", "plan"]

_GIB = float(1 << 30)


@dataclasses.dataclass
class Plan:
    """What a training step needs on a topology, per chip unless said (bytes, seconds)."""

    topology: str
    chip: str
    chips: int
    mesh: dict
    fits: bool
    reason: str | None
    capacity: int | None
    weights: int
    optimizer_state: int
    batch: int
    arguments: int | None = None
    temporaries: int | None = None
    outputs: int | None = None
    aliased: int | None = None
    generated_code: int | None = None
    step_seconds: float | None = None
    step_note: str | None = None
    flops_per_step: int = 0
    model_flops_per_step: int = 0
    peak_flops: float | None = None
    collectives: dict = dataclasses.field(default_factory=dict)
    compile_seconds: float = 0.0
    settings: dict = dataclasses.field(default_factory=dict)
    hlo: str | None = dataclasses.field(default=None, repr=False)
    module: str | None = dataclasses.field(default=None, repr=False)

    @property
    def total(self) -> int | None:
        """Bytes per chip while the step runs: arguments + outputs + temporaries -
        aliased (outputs written over donated arguments)."""
        if self.arguments is None:
            return None
        return self.arguments + self.outputs + self.temporaries - self.aliased

    @property
    def flops_per_chip(self) -> float:
        return self.flops_per_step / self.chips

    @property
    def mfu(self) -> float | None:
        """Model FLOPs utilisation implied by the estimated step time: the model's own
        training FLOPs (no recomputation) over what the chips could do meanwhile."""
        if not self.step_seconds or not self.peak_flops:
            return None
        return self.model_flops_per_step / (self.chips * self.peak_flops * self.step_seconds)

    def as_dict(self) -> dict:
        """Every figure as plain Python values (the program's text left out)."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
               if f.name not in ("hlo", "module")}
        out.update(total=self.total, flops_per_chip=self.flops_per_chip, mfu=self.mfu)
        return out

    def __str__(self) -> str:
        def gib(n):
            return "-" if n is None else f"{n / _GIB:.3f} GiB"

        rows = [
            ("topology", f"{self.topology} ({self.chips} x {self.chip}), mesh {self.mesh}"),
            ("settings", ", ".join(f"{k}={v}" for k, v in self.settings.items())),
            ("fits", "yes" if self.fits else f"NO: {self.reason}"),
            ("capacity per chip", gib(self.capacity)),
            ("total per chip", gib(self.total)),
            ("  weights", gib(self.weights)),
            ("  optimizer state", gib(self.optimizer_state)),
            ("  batch", gib(self.batch)),
            ("  temporaries", gib(self.temporaries)),
            ("  arguments / outputs / aliased",
             f"{gib(self.arguments)} / {gib(self.outputs)} / {gib(self.aliased)}"),
            ("step time (XLA's estimate)",
             (self.step_note or "-") if self.step_seconds is None
             else f"{self.step_seconds * 1e3:.2f} ms"),
            ("FLOPs per step / per chip",
             f"{self.flops_per_step:.3e} / {self.flops_per_chip:.3e}"),
            ("model FLOPs per step", f"{self.model_flops_per_step:.3e}"),
            ("MFU (estimated)", "-" if self.mfu is None else f"{self.mfu:.1%}"),
            ("collectives", ", ".join(f"{k} x{v['count']} ({v['bytes'] / 2**20:.1f} MiB)"
                                      for k, v in self.collectives.items()) or "none"),
            ("compile time", f"{self.compile_seconds:.1f} s"),
        ]
        width = max(len(k) for k, _ in rows)
        return "\n".join(f"{k:<{width}}  {v}" for k, v in rows)


def _compile_settings(model):
    config = getattr(getattr(model, "_training_setup", None), "config", None) or {}
    return {k: config.get(k) for k in ("optimizer", "loss", "metrics", "loss_weights",
                                        "remat", "precision")}


def _optimizer(optimizer, accumulation):
    optimizer = optimizers.get(optimizer if optimizer is not None else "adam")
    if accumulation:
        if not hasattr(optimizer, "get_config"):
            raise ValueError("gradient_accumulation_steps needs a Keras optimizer (a name "
                             "or a kgraph optimizer), not an optax transformation.")
        optimizer = type(optimizer).from_config(
            {**optimizer.get_config(), "gradient_accumulation_steps": int(accumulation)})
    return optimizer


def _mesh_and_rules(model, where: Topology, sharding, mesh_shape):
    if isinstance(sharding, ShardingRules):
        if mesh_shape is None:
            raise ValueError("sharding=ShardingRules(...) needs mesh={axis: size} (or a "
                             "jax.sharding.Mesh as topology) to say the axes it names.")
        return mesh_shape, sharding
    if sharding is None:
        sharding = "dp"
    if not isinstance(sharding, str):
        raise TypeError("sharding must be a preset ('dp', 'fsdp', 'fsdp+tp', 'fsdp+tp4'), "
                        f"or runtime.ShardingRules; received {type(sharding).__name__}.")
    program = compiler.compile(model)
    params = jax.eval_shape(lambda k: program.init(k)[0], jax.random.PRNGKey(0))
    return presets.preset_layout(sharding, where.chips, params)


def _oom_reason(error: Exception) -> str | None:
    text = str(error)
    for line in text.splitlines():
        if "RESOURCE_EXHAUSTED" in line or "HbmOom" in line or "Ran out of memory" in line:
            return line.strip()
    return None


def plan(model, *, topology, batch, optimizer=None, loss=None, metrics=None, sharding="fsdp",
         mesh=None, remat=None, precision=None, gradient_accumulation_steps=None,
         scan_blocks=True, hlo=False) -> Plan:
    """Compile ``model``'s training step for ``topology`` from shapes, and measure it.

    Args:
      model: a kgraph model, compiled or not (compile's optimizer, loss, metrics, remat
        and precision are the defaults of the arguments below).
      topology: a TPU name (``"v5e-256"``, ``"v4-32"``, ``"v5p-128"``, ``"v6e-64"``,
        ``"v5e-256x2"``: two slices), a ``runtime.planning.Topology``, or a
        ``jax.sharding.Mesh`` (its devices; with ``sharding=ShardingRules`` its axes).
      batch: one step's global batch, ``(x, y)`` or ``(x, y, sample_weight)``: shapes
        (``x``'s take the Inputs' dtypes, others float32), ``ShapeDtypeStruct``s or arrays.
      optimizer, loss, metrics: as ``Trainer``'s (default: Adam; the model's compile).
      sharding: ``"fsdp"`` (default), ``"dp"``, ``"fsdp+tp"`` / ``"fsdp+tpN"``
        (``runtime.planning.presets``), or ``runtime.ShardingRules`` with ``mesh``.
      mesh: ``{axis: size}`` of the mesh the rules name (on ``topology``'s devices).
      remat, precision, scan_blocks: as ``Trainer``'s.
      gradient_accumulation_steps: the optimizer's (its accumulators are in the state).
      hlo: keep the program's text: ``Plan.module`` as lowered (StableHLO), ``Plan.hlo``
        as XLA optimized it for the chips.
    """
    where = as_topology(topology)
    compiled_with = _compile_settings(model)
    optimizer = _optimizer(optimizer if optimizer is not None else compiled_with["optimizer"],
                           gradient_accumulation_steps)
    loss = loss if loss is not None else compiled_with["loss"]
    metrics = metrics if metrics is not None else (compiled_with["metrics"] or ())
    remat = remat if remat is not None else compiled_with["remat"]
    precision = precision if precision is not None else compiled_with["precision"]
    if isinstance(topology, jax.sharding.Mesh) and mesh is None and isinstance(
            sharding, ShardingRules):
        mesh_shape = dict(topology.shape)
    else:
        mesh_shape = mesh
    mesh_shape, rules = _mesh_and_rules(model, where, sharding, mesh_shape)
    the_mesh = where.mesh(mesh_shape)
    # presets split the batch over their first axis ("data" / "fsdp"); rules: the mesh's
    data_axis = None if isinstance(sharding, ShardingRules) else next(iter(mesh_shape))
    trainer_settings = dict(optimizer=optimizer, loss=loss, metrics=metrics, remat=remat,
                            precision=precision, scan_blocks=scan_blocks,
                            loss_weights=compiled_with["loss_weights"])
    trainer = Trainer(model, mesh=the_mesh, sharding=rules, data_axis=data_axis,
                      **trainer_settings)
    traced, train_state, step_batch = _traced_step(trainer, batch)
    settings = {"sharding": sharding if isinstance(sharding, str) else "rules",
                "remat": remat, "precision": precision, "scan_blocks": scan_blocks,
                "optimizer": getattr(optimizer, "name", type(optimizer).__name__),
                "batch": tuple(jax.tree_util.tree_leaves(step_batch)[0].shape[1:])}
    if gradient_accumulation_steps:
        settings["gradient_accumulation_steps"] = gradient_accumulation_steps

    counted = flops_lib.jaxpr_flops(traced.jaxpr)
    model_flops = counted if remat is None else _flops_without_remat(
        model, {**trainer_settings, "remat": None}, the_mesh, rules, data_axis, batch)
    result = Plan(
        topology=where.name, chip=where.kind, chips=where.chips, mesh=dict(mesh_shape),
        fits=True, reason=None, capacity=where.hbm_bytes,
        weights=shapes.bytes_per_device((train_state.params, train_state.state)),
        optimizer_state=shapes.bytes_per_device(train_state.opt_state),
        batch=shapes.bytes_per_device(step_batch), flops_per_step=counted,
        model_flops_per_step=model_flops, peak_flops=where.peak_flops, settings=settings)
    platforms = (where.platform,)
    start = time.perf_counter()
    try:
        lowered = traced.lower(lowering_platforms=platforms)
        if hlo:
            result.module = lowered.as_text()
        with tpu_compiling():
            compiled = lowered.compile()
    except Exception as error:  # noqa: BLE001 - only running out of memory is an answer
        reason = _oom_reason(error)
        if reason is None:
            raise
        result.fits, result.reason = False, reason
        result.compile_seconds = time.perf_counter() - start
        return result
    memory = compiled.memory_analysis()
    result.arguments = memory.argument_size_in_bytes
    result.outputs = memory.output_size_in_bytes
    result.temporaries = memory.temp_size_in_bytes
    result.aliased = memory.alias_size_in_bytes
    result.generated_code = memory.generated_code_size_in_bytes
    cost = compiled.cost_analysis()
    result.step_seconds = _estimate(cost)
    if result.step_seconds is None:
        result.step_note = ("none: XLA's cost model gives no time for this program (it "
                            "does not for asynchronous slices, which XLA makes of large "
                            "weights stacked for a scan)")
    result.compile_seconds = time.perf_counter() - start
    text = compiled.as_text()
    result.collectives = collectives_lib.collectives(text)
    if hlo:
        result.hlo = text
    if result.capacity is not None and result.total > result.capacity:
        result.fits = False
        result.reason = (f"{result.total / _GIB:.2f} GiB per chip exceeds the available "
                         f"HBM ({result.capacity / _GIB:.2f} GiB, as the compiler counts it)")
    return result


def _estimate(cost) -> float | None:
    """XLA's estimated seconds (None where its cost model gives none: it returns a
    negative number for a program holding asynchronous slices, ``slice-start``)."""
    if isinstance(cost, list):
        cost = cost[0] if cost else {}
    seconds = (cost or {}).get("optimal_seconds")
    return float(seconds) if seconds is not None and seconds > 0 else None


def _traced_step(trainer, batch):
    """``(traced, train_state, step_batch)``: ``fit``'s step traced on the abstract,
    packed train state and one step's batch."""
    train_state = shapes.abstract_train_state(trainer)
    step_batch = shapes.abstract_batch(trainer, batch)
    traced = trainer.fit_batches.trace(shapes.packed(trainer, train_state), step_batch)
    return traced, train_state, step_batch


def _flops_without_remat(model, settings, mesh, rules, data_axis, batch) -> int:
    plain = Trainer(model, mesh=mesh, sharding=rules, data_axis=data_axis, **settings)
    return flops_lib.jaxpr_flops(_traced_step(plain, batch)[0].jaxpr)
