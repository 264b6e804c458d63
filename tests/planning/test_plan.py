"""``runtime.planning.plan`` on real TPU topologies, compiled here by libtpu (no TPU):
figures against XLA's own analyses of the same compiled program, refusals that carry
XLA's reason, and the planned step being the one ``fit`` runs."""

import json
import os
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import compiler
import kgraph as kg
from runtime.planning import count_flops, plan, roofline, shapes, topology
from runtime.planning.hlo_program import HloProgram
from runtime.planning.presets import preset_layout
from runtime.planning.topology import tpu_compiling
from runtime.sharding.rules import ShardingRules
from runtime.trainer import Trainer

_CHILD = os.path.join(os.path.dirname(os.path.dirname(__file__)), "support",
                      "plan_fit_child.py")


def _mlp(width=256, depth=4, classes=10):
    x = kg.Input((width,), name="x")
    h = x
    for i in range(depth):
        h = kg.layers.Dense(width, activation="relu", name=f"block_{i}")(h)
    return kg.Model(x, kg.layers.Dense(classes, name="head")(h))


def _param_count(model):
    return sum(int(np.prod(w.shape)) for w in model.weights)


@pytest.mark.parametrize("name, chips, kind", [
    ("v4-8", 4, "TPU v4"), ("v5e-8", 8, "TPU v5 lite"), ("v5p-8", 4, "TPU v5"),
    ("v6e-8", 8, "TPU v6 lite"), ("v5e-8x2", 16, "TPU v5 lite"), ("v5e:2x4", 8, "TPU v5 lite")])
def test_topology_names_give_cloud_tpu_chips(name, chips, kind):
    found = topology(name)
    assert (found.chips, found.kind, found.platform) == (chips, kind, "tpu")
    assert found.slices == (2 if name.endswith("x2") else 1)


def test_unknown_topologies_are_refused_with_the_names_that_work():
    with pytest.raises(ValueError, match="v5e-256"):
        topology("tpu-9000")
    with pytest.raises(ValueError, match="two per chip"):
        topology("v4-7")


def test_capacity_is_what_the_compiler_lets_a_program_use():
    # v5e chips have 16 GiB, of which XLA's TPU compiler gives a program 15.75 GiB
    assert topology("v5e-8").hbm_bytes == int(15.75 * (1 << 30))
    assert topology("v4-8").hbm_bytes > topology("v5e-8").hbm_bytes


@pytest.mark.parametrize("name", ["v4-8", "v5e-8"])
def test_figures_are_xla_analyses_of_the_same_program(name):
    model = _mlp()
    planned = plan(model, topology=name, batch=((64, 256), (64,)),
                   loss="sparse_categorical_crossentropy", sharding="fsdp", hlo=True)
    assert planned.fits and planned.reason is None
    chips = topology(name).chips
    # weights split over every chip (each has a dimension of 256) and Adam's 2 moments
    weights_per_chip = 4 * _param_count(model) / chips
    assert planned.weights == pytest.approx(weights_per_chip, rel=0.05)
    assert planned.optimizer_state == pytest.approx(2 * weights_per_chip, rel=0.05)
    # the memory figures are XLA's memory_analysis of the program compiled again here
    mesh = topology(name).mesh(planned.mesh)
    params = jax.eval_shape(lambda k: compiler.compile(model).init(k)[0],
                            jax.random.PRNGKey(0))
    _, rules = preset_layout("fsdp", chips, params)
    trainer = Trainer(model, "adam", "sparse_categorical_crossentropy", mesh=mesh,
                      sharding=rules)
    again = trainer.fit_batches.trace(
        shapes.packed(trainer, shapes.abstract_train_state(trainer)),
        shapes.abstract_batch(trainer, ((64, 256), (64,)))).lower(
            lowering_platforms=("tpu",))
    assert again.as_text() == planned.module
    with tpu_compiling():
        analysis = again.compile().memory_analysis()
    assert (planned.arguments, planned.outputs, planned.temporaries, planned.aliased) == (
        analysis.argument_size_in_bytes, analysis.output_size_in_bytes,
        analysis.temp_size_in_bytes, analysis.alias_size_in_bytes)
    assert planned.total <= planned.capacity
    assert planned.step_seconds is not None and planned.step_seconds > 0
    # FSDP gathers weights and reduces gradients across chips
    assert planned.collectives["all-gather"]["count"] > 0
    assert "all-gather" in planned.hlo
    assert 0 < planned.mfu < 1


def test_flops_count_every_scanned_block_and_what_remat_recomputes():
    model = _mlp(depth=6)
    batch = ((128, 256), (128,))
    kwargs = dict(topology="v5e-8", batch=batch, loss="sparse_categorical_crossentropy")
    scanned = plan(model, **kwargs)
    unrolled = plan(model, scan_blocks=False, **kwargs)
    # forward 2*B*N; backward twice that, but the first layer's input gradient is not
    # needed: unrolled, it is not computed; the scan over the 6 blocks computes it
    dense = [(256, 256)] * 6 + [(256, 10)]
    expected = sum(6 * 128 * a * b for a, b in dense) - 2 * 128 * 256 * 256
    assert unrolled.flops_per_step == unrolled.model_flops_per_step == expected
    assert scanned.flops_per_step == expected + 2 * 128 * 256 * 256
    remat = plan(model, remat="nothing_saveable", **kwargs)
    assert remat.flops_per_step > scanned.flops_per_step == remat.model_flops_per_step
    assert remat.temporaries < scanned.temporaries


def test_a_step_that_does_not_fit_is_a_plan_with_xlas_reason():
    x = kg.Input((1024,))
    model = kg.Model(x, kg.layers.Dense(1 << 18)(x))  # 2**17 rows of 2**18 logits: 128 GiB
    planned = plan(model, topology="v5e-8", batch=((1 << 17, 1024), (1 << 17,)),
                   loss="sparse_categorical_crossentropy", sharding="dp")
    assert planned.fits is False
    assert "HBM" in planned.reason and "exceeds" in planned.reason
    assert "NO:" in str(planned)


def test_plan_reads_the_models_compile_and_prints_a_table():
    model = _mlp()
    model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
    planned = plan(model, topology="v5e-8", batch=((64, 256), (64,)))
    assert planned.settings["optimizer"] == "sgd"
    assert planned.optimizer_state < 64  # plain SGD keeps no moments (a step count)
    text = str(planned)
    assert "v5e-8 (8 x TPU v5 lite)" in text and "fits" in text
    assert json.dumps(planned.as_dict())  # plain values for scripts


def test_presets_split_weights_as_they_say():
    model = _mlp()
    kwargs = dict(topology="v5e-8", batch=((64, 256), (64,)),
                  loss="sparse_categorical_crossentropy")
    dp, fsdp, tp = (plan(model, sharding=s, **kwargs) for s in ("dp", "fsdp", "fsdp+tp4"))
    assert (dp.mesh, fsdp.mesh, tp.mesh) == ({"data": 8}, {"fsdp": 8}, {"fsdp": 2, "model": 4})
    assert dp.weights == pytest.approx(4 * _param_count(model), rel=0.01)
    assert fsdp.weights < dp.weights / 7
    assert tp.weights < dp.weights / 7
    with pytest.raises(ValueError, match="Unknown sharding preset"):
        plan(model, sharding="zero3", **kwargs)


def test_gradient_accumulation_adds_its_accumulators_to_the_state():
    model = _mlp()
    kwargs = dict(topology="v5e-8", batch=((64, 256), (64,)),
                  loss="sparse_categorical_crossentropy", optimizer="adam")
    plain = plan(model, **kwargs)
    accumulating = plan(model, gradient_accumulation_steps=4, **kwargs)
    assert accumulating.optimizer_state == pytest.approx(1.5 * plain.optimizer_state, rel=0.05)


def test_count_flops_of_a_convolution():
    image = jax.ShapeDtypeStruct((2, 8, 8, 3), jnp.float32)
    kernel = jax.ShapeDtypeStruct((3, 3, 3, 5), jnp.float32)
    conv = lambda a, k: jax.lax.conv_general_dilated(  # noqa: E731
        a, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    assert count_flops(conv, image, kernel) == 2 * (2 * 8 * 8 * 5) * (3 * 3 * 3)


def test_the_planned_step_is_the_one_fit_runs():
    done = subprocess.run([sys.executable, _CHILD], capture_output=True, text=True,
                          timeout=600, env={**os.environ, "JAX_PLATFORMS": "cpu"})
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["calls"] == 2 and found["fits"]
    assert found["same_module"], found["diff"]


def test_loops_count_as_often_as_they_run():
    # the blocks' scan is one loop whose body XLA's own analyses count once; the plan
    # counts each block: collectives and HBM traffic grow by the same step per block
    kwargs = dict(topology="v5e-8", batch=((256, 512), (256,)),
                  loss="sparse_categorical_crossentropy")
    plans = [plan(_mlp(width=512, depth=depth), **kwargs) for depth in (4, 6, 8)]
    for kind in ("all-gather", "collective-permute", "all-reduce", "reduce-scatter"):
        counts = [p.collectives.get(kind, {}).get("count", 0) for p in plans]
        assert counts[2] - counts[1] == counts[1] - counts[0], (kind, counts)
    sent = [sum(e["sent"] for e in p.collectives.values()) for p in plans]
    assert sent[2] - sent[1] == sent[1] - sent[0] > 0
    traffic = [p.hbm_traffic for p in plans]
    assert traffic[2] - traffic[1] == pytest.approx(traffic[1] - traffic[0], rel=0.02)
    assert traffic[1] > traffic[0]


def test_the_step_time_is_a_roofline_of_the_compiled_program():
    planned = plan(_mlp(width=512, depth=8), topology="v5e-8", batch=((256, 512), (256,)),
                   loss="sparse_categorical_crossentropy", hlo=True)
    where = topology("v5e-8")
    parts = planned.step_parts
    # matmuls at the chip's peak, the other instructions' HBM traffic at its bandwidth,
    # collectives overlapped with both
    assert parts["compute"] == pytest.approx(planned.flops_per_chip / where.peak_flops)
    matmul, other = roofline.hbm_traffic(HloProgram(planned.hlo), split=True)
    assert matmul + other == planned.hbm_traffic and matmul > 0 and other > 0
    assert parts["memory"] == pytest.approx(other / where.hbm_bandwidth)
    sent = sum(e["sent"] for e in planned.collectives.values())
    assert parts["collectives"] == pytest.approx(sent / where.ici_bandwidth)
    assert planned.step_seconds == pytest.approx(max(parts["compute"] + parts["memory"],
                                                     parts["collectives"]))
    assert parts["bound"] in str(planned) and 0 < planned.mfu < 1


def test_no_estimate_is_said_not_invented():
    # CPU devices have no published peak figures: no step time and no MFU, and the
    # plan says why
    x = kg.Input((16,))
    planned = plan(kg.Model(x, kg.layers.Dense(4)(x)), topology=jax.make_mesh((1,), ("d",)),
                   batch=((8, 16), (8, 4)), loss="mse", sharding="dp")
    assert planned.step_seconds is None and planned.mfu is None
    assert "no published peak" in planned.step_note and planned.step_note in str(planned)


def test_presets_keep_activations_split_as_the_batch():
    # an embedding table whose rows 8 chips do not divide is split on its features; left
    # alone, XLA gathers the batch there and every later activation is whole on each chip
    x = kg.Input((128,), dtype="int32", name="ids")
    h = kg.layers.Embedding(1001, 256, name="embed")(x)
    for i in range(4):
        h = kg.layers.Dense(256, activation="relu", name=f"block_{i}")(h)
    model = kg.Model(x, kg.layers.Dense(10, name="head")(kg.layers.GlobalAveragePooling1D()(h)))
    kwargs = dict(topology="v5e-8", batch=((256, 128), (256,)),
                  loss="sparse_categorical_crossentropy")
    split = plan(model, sharding="fsdp", **kwargs)
    params = jax.eval_shape(lambda k: compiler.compile(model).init(k)[0],
                            jax.random.PRNGKey(0))
    mesh, rules = preset_layout("fsdp", 8, params)
    assert rules.split_activations
    whole = plan(model, sharding=ShardingRules(rules.rules, allow_unused=True), mesh=mesh,
                 **kwargs)
    sent = [sum(e["sent"] for e in p.collectives.values()) for p in (split, whole)]
    assert sent[0] * 10 < sent[1]
    assert split.step_seconds * 5 < whole.step_seconds


def test_keras_layouts_plan_the_program_their_rules_give():
    # a Keras LayoutMap / ModelParallel, its DeviceMesh laid on the topology's chips, plans
    # the program the same rules written as ShardingRules give (compile's own reading)
    model = _mlp()
    pod = topology("v5e-8")
    device_mesh = kg.distribution.DeviceMesh((4, 2), ("batch", "model"), devices=pod.devices)
    layout = kg.distribution.LayoutMap(device_mesh)
    layout["block_.*/kernel"] = ("batch", "model")
    parallel = kg.distribution.ModelParallel(layout_map=layout, batch_dim_name="batch")
    kwargs = dict(topology="v5e-8", batch=((64, 256), (64,)),
                  loss="sparse_categorical_crossentropy", hlo=True)
    rules = ShardingRules([("block_.*/kernel", jax.sharding.PartitionSpec("batch", "model"))],
                          allow_unused=True)
    written = plan(model, sharding=rules, mesh={"batch": 4, "model": 2}, **kwargs)
    for sharding in (parallel, layout):
        planned = plan(model, sharding=sharding, **kwargs)
        assert planned.mesh == {"batch": 4, "model": 2}
        assert planned.settings["sharding"] == type(sharding).__name__
        assert planned.module == written.module and planned.total == written.total
    with pytest.raises(TypeError, match="LayoutMap"):
        plan(model, sharding=object(), **kwargs)


def test_a_program_planned_for_tpu_is_traced_for_tpu():
    # on CPU, scans over convolving steps and blocks are unrolled (XLA:CPU's convolution
    # gradients run slowly in loops); planned for TPU from this CPU machine they stay loops
    x = kg.Input((16, 16, 8), name="image")
    h = x
    for i in range(4):  # a run of 4 repeated blocks: scanned
        h = kg.layers.Conv2D(8, 3, padding="same", activation="relu", name=f"conv_{i}")(h)
    model = kg.Model(x, kg.layers.Dense(4, name="head")(kg.layers.Flatten()(h)))
    kwargs = dict(batch=((8, 16, 16, 8), (8, 4)), loss="mse", sharding="dp", hlo=True)
    on_tpu = plan(model, topology="v5e-8", **kwargs)
    on_cpu = plan(model, topology=jax.make_mesh((1,), ("data",)), **kwargs)
    loops = [p.module.count("stablehlo.while") for p in (on_tpu, on_cpu)]
    # fit's loop over steps, and the blocks' scan forward and backward; on CPU the blocks
    # run unrolled
    assert loops == [3, 1]
