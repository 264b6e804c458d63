"""``plan``: compile a model's training step for a TPU pod (or any mesh) from shapes alone.

The program planned is the one ``fit`` runs (``Trainer.fit_batches``: loss, optimizer
update, running metrics, remat, precision, scanned blocks), lowered from abstract
weights, optimizer state and batch, and compiled by XLA for the topology's chips. No
weight value is made. The ``Plan`` tells whether it fits in each chip's memory, how the
bytes divide, the step time estimated from the compiled program (``roofline``), FLOPs
and the MFU they imply, and the collectives the program runs; a configuration that does
not fit is a plan with ``fits=False`` and XLA's reason.

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
from kgraph.base import target_platform
from kgraph import optimizers
from runtime.planning import collectives as collectives_lib
from runtime.planning import flops as flops_lib
from runtime.planning import presets, roofline, search, shapes
from runtime.planning.hlo_program import HloProgram
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
    step_parts: dict = dataclasses.field(default_factory=dict)
    hbm_traffic: int | None = None
    flops_per_step: int = 0
    model_flops_per_step: int = 0
    peak_flops: float | None = None
    collectives: dict = dataclasses.field(default_factory=dict)
    compile_seconds: float = 0.0
    settings: dict = dataclasses.field(default_factory=dict)
    candidates: list = dataclasses.field(default_factory=list, repr=False)
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
               if f.name not in ("hlo", "module", "candidates")}
        out["candidates"] = [c.row() for c in self.candidates]
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
            ("step time (roofline)", self._step_text()),
            *([("  note", self.step_note)] if self.step_note and self.step_seconds is not None
              else []),
            ("FLOPs per step / per chip",
             f"{self.flops_per_step:.3e} / {self.flops_per_chip:.3e}"),
            ("model FLOPs per step", f"{self.model_flops_per_step:.3e}"),
            ("HBM traffic per chip", gib(self.hbm_traffic)),
            ("MFU (estimated)", "-" if self.mfu is None else f"{self.mfu:.1%}"),
            ("collectives", ", ".join(f"{k} x{v['count']} ({v['bytes'] / 2**20:.1f} MiB)"
                                      for k, v in self.collectives.items()) or "none"),
            ("compile time", f"{self.compile_seconds:.1f} s"),
        ]
        width = max(len(k) for k, _ in rows)
        text = "\n".join(f"{k:<{width}}  {v}" for k, v in rows)
        if self.candidates:
            text += (f"\ncandidates compiled ({len(self.candidates)}, "
                     f"{sum(c.compile_seconds for c in self.candidates):.0f} s):\n"
                     + self.candidates_table())
        return text

    def row(self) -> dict:
        """One line of a search's table: the settings and the figures that rank them."""
        return {**self.settings, "fits": self.fits,
                "total_gib": None if self.total is None else round(self.total / _GIB, 3),
                "step_ms": None if self.step_seconds is None else round(
                    self.step_seconds * 1e3, 3),
                "mfu": None if self.mfu is None else round(self.mfu, 4),
                "compile_s": round(self.compile_seconds, 1)}

    def candidates_table(self) -> str:
        """The candidates a search compiled, one per line (the chosen one marked)."""
        lines = []
        for c in self.candidates:
            mark = "*" if c is self else " "
            setting = ", ".join(f"{k}={v}" for k, v in c.settings.items()
                                if k in ("sharding", "remat", "scan_blocks", "batch",
                                         "gradient_accumulation_steps"))
            figures = ("does not fit" if not c.fits else
                       f"{c.total / _GIB:.2f} GiB, "
                       + ("-" if c.step_seconds is None else f"{c.step_seconds * 1e3:.2f} ms")
                       + ("" if c.mfu is None else f", MFU {c.mfu:.1%}"))
            lines.append(f"{mark} {setting}: {figures} ({c.compile_seconds:.0f} s)")
        return "\n".join(lines)

    def _step_text(self) -> str:
        if self.step_seconds is None:
            return self.step_note or "-"
        parts = ", ".join(f"{k} {v * 1e3:.2f}" for k, v in self.step_parts.items()
                          if k != "bound")
        return (f"{self.step_seconds * 1e3:.2f} ms, {self.step_parts['bound']}-bound "
                f"({parts} ms)")


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


def _keras_layout(sharding):
    """``(rules, mesh shape, data axis)`` of a Keras ``LayoutMap``, ``ModelParallel`` or
    ``DataParallel`` (its ``DeviceMesh``'s shape and axis names, on the topology's chips:
    ``compile(distribution=...)``'s rules), else None."""
    if hasattr(sharding, "layout_rules") and hasattr(sharding, "device_mesh"):
        rules, data_axis = sharding.layout_rules(), sharding.batch_dim_name
    elif hasattr(sharding, "device_mesh") and hasattr(sharding, "items"):  # a LayoutMap
        rules, data_axis = [(p, layout.spec) for p, layout in sharding.items()], None
    else:
        return None
    device_mesh = sharding.device_mesh
    shape = dict(zip(device_mesh.axis_names, device_mesh.shape))
    return ShardingRules(rules, allow_unused=True), shape, data_axis or next(iter(shape))


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
                        "runtime.ShardingRules, a keras.distribution.LayoutMap or a "
                        f"ModelParallel / DataParallel; received {type(sharding).__name__}.")
    return presets.preset_layout(sharding, where.chips, _abstract_params(model))


def _abstract_params(model):
    """The model's params as ``ShapeDtypeStruct``s (no value made)."""
    program = compiler.compile(model)
    return jax.eval_shape(lambda k: program.init(k)[0], jax.random.PRNGKey(0))


def _oom_reason(error: Exception) -> str | None:
    text = str(error)
    for line in text.splitlines():
        if "RESOURCE_EXHAUSTED" in line or "HbmOom" in line or "Ran out of memory" in line:
            return line.strip()
    return None


def plan(model, *, topology, batch, optimizer=None, loss=None, metrics=None, sharding="fsdp",
         mesh=None, remat=None, precision=None, gradient_accumulation_steps=None,
         scan_blocks=True, hlo=False) -> Plan:
    """Compile ``model``'s training step for ``topology`` from shapes, and measure it;
    with settings left to kgraph (``"auto"``, rows ``None``), the best of a search.

    Args:
      model: a kgraph model, compiled or not (compile's optimizer, loss, metrics, remat
        and precision are the defaults of the arguments below).
      topology: a TPU name (``"v5e-256"``, ``"v4-32"``, ``"v5p-128"``, ``"v6e-64"``,
        ``"v5e-256x2"``: two slices), a ``runtime.planning.Topology``, or a
        ``jax.sharding.Mesh`` (its devices; with ``sharding=ShardingRules`` its axes).
      batch: one step's global batch, ``(x, y)`` or ``(x, y, sample_weight)``: shapes
        (``x``'s take the Inputs' dtypes, others float32), ``ShapeDtypeStruct``s or arrays.
        Shapes whose rows are ``None`` (``(None, 2048)``): kgraph chooses the rows.
      optimizer, loss, metrics: as ``Trainer``'s (default: Adam; the model's compile).
      sharding: ``"fsdp"`` (default), ``"dp"``, ``"fsdp+tp"`` / ``"fsdp+tpN"``
        (``runtime.planning.presets``), ``runtime.ShardingRules`` with ``mesh``, a Keras
        ``LayoutMap`` / ``ModelParallel`` / ``DataParallel`` (its ``DeviceMesh``'s shape
        and axes laid on the topology's chips: make it with
        ``devices=topology(...).devices``), or ``"auto"`` (``runtime.planning.search``).
      mesh: ``{axis: size}`` of the mesh the rules name (on ``topology``'s devices).
      remat, precision, scan_blocks: as ``Trainer``'s (``remat=False``: none, whatever
        the model was compiled with); remat and scan_blocks may be ``"auto"``.
      gradient_accumulation_steps: the optimizer's (its accumulators are in the state);
        ``"auto"``: micro-batches when the whole batch does not fit.
      hlo: keep the program's text: ``Plan.module`` as lowered (StableHLO), ``Plan.hlo``
        as XLA optimized it for the chips.
    """
    chosen = dict(sharding=sharding, remat=remat, scan_blocks=scan_blocks,
                  gradient_accumulation_steps=gradient_accumulation_steps)
    fixed = dict(topology=topology, optimizer=optimizer, loss=loss, metrics=metrics,
                 mesh=mesh, precision=precision, hlo=hlo)
    if search.wants_search(batch, **chosen):
        where = as_topology(topology)
        # weights and two moments
        replica = 3 * shapes.bytes_per_device(_abstract_params(model))
        return search.auto_plan(lambda **s: _plan_one(model, **fixed, **s), batch=batch,
                                chips=where.chips, replica_bytes=replica,
                                capacity=where.hbm_bytes, **chosen)
    return _plan_one(model, batch=batch, **fixed, **chosen)


def _plan_one(model, *, topology, batch, optimizer, loss, metrics, sharding, mesh, remat,
              precision, gradient_accumulation_steps, scan_blocks, hlo) -> Plan:
    where = as_topology(topology)
    compiled_with = _compile_settings(model)
    optimizer = _optimizer(optimizer if optimizer is not None else compiled_with["optimizer"],
                           gradient_accumulation_steps)
    loss = loss if loss is not None else compiled_with["loss"]
    metrics = metrics if metrics is not None else (compiled_with["metrics"] or ())
    remat = None if remat is False else remat if remat is not None else compiled_with["remat"]
    precision = precision if precision is not None else compiled_with["precision"]
    keras_layout = _keras_layout(sharding)
    if keras_layout is not None:
        rules, mesh_shape, data_axis = keras_layout
    else:
        if isinstance(topology, jax.sharding.Mesh) and mesh is None and isinstance(
                sharding, ShardingRules):
            mesh_shape = dict(topology.shape)
        else:
            mesh_shape = mesh
        mesh_shape, rules = _mesh_and_rules(model, where, sharding, mesh_shape)
        # presets split the batch over their first axis ("data" / "fsdp"); rules: the mesh's
        data_axis = None if isinstance(sharding, ShardingRules) else next(iter(mesh_shape))
    the_mesh = where.mesh(mesh_shape)
    trainer_settings = dict(optimizer=optimizer, loss=loss, metrics=metrics, remat=remat,
                            precision=precision, scan_blocks=scan_blocks,
                            loss_weights=compiled_with["loss_weights"])
    trainer = Trainer(model, mesh=the_mesh, sharding=rules, data_axis=data_axis,
                      **trainer_settings)
    traced, train_state, step_batch = _traced_step(trainer, batch, where.platform)
    settings = {"sharding": sharding if isinstance(sharding, str) else "rules"
                if isinstance(sharding, ShardingRules) else type(sharding).__name__,
                "remat": remat, "precision": precision, "scan_blocks": scan_blocks,
                "optimizer": getattr(optimizer, "name", type(optimizer).__name__),
                "batch": tuple(jax.tree_util.tree_leaves(step_batch)[0].shape[1:])}
    if gradient_accumulation_steps:
        settings["gradient_accumulation_steps"] = gradient_accumulation_steps

    counted = flops_lib.jaxpr_flops(traced.jaxpr)
    model_flops = counted if remat is None else _flops_without_remat(
        model, {**trainer_settings, "remat": None}, the_mesh, rules, data_axis, batch,
        where.platform)
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
    result.compile_seconds = time.perf_counter() - start
    text = compiled.as_text()
    program = HloProgram(text)
    result.collectives = collectives_lib.collectives(program)
    result.hbm_traffic = roofline.hbm_traffic(program)
    estimate = roofline.estimate(program, result.flops_per_chip, where)
    if estimate is None:
        result.step_note = f"none: no published peak figures for {where.kind}"
    else:
        result.step_seconds = estimate.seconds
        result.step_parts = {"compute": estimate.compute, "memory": estimate.memory,
                             "collectives": estimate.collectives, "bound": estimate.bound}
        if program.unknown_trip_counts:
            result.step_note = (f"{program.unknown_trip_counts} loop(s) of unknown trip "
                                "count counted once: an underestimate")
    if hlo:
        result.hlo = text
    if result.capacity is not None and result.total > result.capacity:
        result.fits = False
        result.reason = (f"{result.total / _GIB:.2f} GiB per chip exceeds the available "
                         f"HBM ({result.capacity / _GIB:.2f} GiB, as the compiler counts it)")
    return result


def _traced_step(trainer, batch, platform):
    """``(traced, train_state, step_batch)``: ``fit``'s step traced for ``platform``'s
    chips on the abstract, packed train state and one step's batch."""
    train_state = shapes.abstract_train_state(trainer)
    step_batch = shapes.abstract_batch(trainer, batch)
    with target_platform.tracing_for(platform):  # the program the chips would run
        traced = trainer.fit_batches.trace(shapes.packed(trainer, train_state), step_batch)
    return traced, train_state, step_batch


def _flops_without_remat(model, settings, mesh, rules, data_axis, batch, platform) -> int:
    plain = Trainer(model, mesh=mesh, sharding=rules, data_axis=data_axis, **settings)
    return flops_lib.jaxpr_flops(_traced_step(plain, batch, platform)[0].jaxpr)
