"""A deep KerasHub decoder on kgraph: its blocks scanned and stacked, trained on 8 devices,
exported. Run by ``tests/keras_compat/test_keras_hub.py`` in a process of its own:

    JAX_NUM_CPU_DEVICES=8 python tests/support/keras_hub_deep.py DIRECTORY

With ``kgraph.compat.install()``, KerasHub builds a ``LlamaCausalLM`` of ``LAYERS``
decoder blocks (its backbone a functional model nested in the task model; each block takes
the previous one's output and the shared padding mask). The process writes
``DIRECTORY/deep.json``:

- ``runs``: the runs of repeated blocks ``compiler.compile`` finds (length, weight path
  prefix, carry position) and the stacked keys of the train state;
- ``scan``: whether the jitted train step loops (``stablehlo.while``);
- ``stacked_vs_unrolled``: the largest difference of losses and weights after ``STEPS``
  SGD steps of the default Trainer (blocks scanned, weights stacked) against
  ``scan_blocks=False`` (every block unrolled), relative to the weights' scale;
- ``fsdp_vs_one_device``: the same, fully-sharded rules on an 8-device mesh (every
  kernel and embedding split over ``"data"``, the batch too) against one device; and
  ``fsdp_devices``: how many devices hold a slice (not the whole) of a stacked kernel;
- ``export``: the largest difference of the exported backbone (``compiler.export``, run
  with ``jax.export`` alone) against ``backbone(inputs)``, at two batch sizes.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile

os.environ.setdefault("JAX_NUM_CPU_DEVICES", "8")
os.environ.setdefault("KERAS_BACKEND", "jax")

import numpy as np  # noqa: E402

LAYERS = 6
STEPS = 3
VOCABULARY = 64
SEQUENCE = 8
CONFIG = dict(vocabulary_size=VOCABULARY, num_layers=LAYERS, hidden_dim=16,
              intermediate_dim=32, num_query_heads=2, num_key_value_heads=1)


def _batch(seed, batch=8):
    rng = np.random.default_rng(seed)
    tokens = rng.integers(1, VOCABULARY, (batch, SEQUENCE)).astype("int32")
    mask = np.ones((batch, SEQUENCE), "int32")
    mask[1::2, -3:] = 0  # padded rows: the mask the blocks share matters
    return ({"token_ids": tokens, "padding_mask": mask}, np.roll(tokens, -1, axis=1),
            mask.astype("float32"))


def _causal_lm(keras, keras_hub):
    keras.utils.set_random_seed(0)
    backbone = keras_hub.models.LlamaBackbone(**CONFIG)
    return keras_hub.models.LlamaCausalLM(backbone=backbone, preprocessor=None)


def _difference(a, b) -> float:
    import jax
    leaves_a, leaves_b = jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)
    assert len(leaves_a) == len(leaves_b) > 0
    scale = max(float(np.max(np.abs(np.asarray(y)))) for y in leaves_b)
    return max(float(np.max(np.abs(np.asarray(x) - np.asarray(y)))) for x, y in
               zip(leaves_a, leaves_b)) / max(scale, 1.0)


def _train(trainer, steps=STEPS):
    """Losses and the trained weights (named layout) of ``steps`` SGD steps."""
    import jax
    ts = trainer.init_from_model(jax.random.PRNGKey(0))
    losses = []
    for step in range(steps):
        ts, logs = trainer.train_step(ts, _batch(step))
        losses.append(float(logs["loss"]))
    params, _ = trainer.program.unstack(ts.params, ts.state)
    return ts, losses, jax.device_get(params)


def main(directory):
    import kgraph.compat
    kgraph.compat.install()
    import jax
    import keras
    import keras_hub
    from jax.sharding import PartitionSpec as P

    import compiler
    from runtime import Trainer
    from runtime.sharding import ShardingRules

    assert jax.device_count() == 8, jax.devices()
    lm = _causal_lm(keras, keras_hub)
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    x, y, weights = _batch(0)
    lm(x)  # built
    report = {}

    default = Trainer(lm, keras.optimizers.SGD(0.1), loss)
    report["runs"] = {
        "found": [[len(run.nodes), list(run.prefix), run.carry]
                  for run in default.program.block_runs],
        "stacked": [list(run.path) for run in default.program.stacked_runs]}
    ts = default.init_from_model(jax.random.PRNGKey(0))
    report["scan"] = "stablehlo.while" in default.train_step.lower(ts, (x, y, weights)).as_text()

    _, scanned_losses, scanned = _train(default)
    _, unrolled_losses, unrolled = _train(Trainer(lm, keras.optimizers.SGD(0.1), loss,
                                                  scan_blocks=False))
    report["stacked_vs_unrolled"] = max(_difference(scanned, unrolled),
                                        _difference(scanned_losses, unrolled_losses))

    mesh = jax.make_mesh((8,), ("data",))
    rules = ShardingRules([  # every kernel and embedding split over the 8 devices
        (r".*/(query|key|value)/kernel", P("data", None, None)),
        (r".*/attention_output/kernel", P(None, None, "data")),
        (r".*/feedforward_(gate|intermediate)_dense/kernel", P("data", None)),
        (r".*/feedforward_output_dense/kernel", P(None, "data")),
        (r".*/token_embedding/embeddings", P("data", None)),
        (r".*/token_embedding/reverse_embeddings", P(None, "data"))])
    sharded = Trainer(lm, keras.optimizers.SGD(0.1), loss, mesh=mesh, sharding=rules)
    ts, sharded_losses, sharded_params = _train(sharded)
    stacked_kernel = ts.params["llama_backbone"][
        f"transformer_layer_0..transformer_layer_{LAYERS - 1}"]["self_attention"]["query"][
        "kernel"]
    report["fsdp_devices"] = len({shard.device for shard in stacked_kernel.addressable_shards
                                  if shard.data.size < stacked_kernel.size})
    report["fsdp_vs_one_device"] = max(_difference(sharded_params, scanned),
                                       _difference(sharded_losses, scanned_losses))

    backbone = lm.backbone
    folder = os.path.join(tempfile.mkdtemp(dir=directory), "exported")
    compiler.export(backbone, folder, shapes={"token_ids": ("b", "length"),
                                              "padding_mask": ("b", "length")})
    with open(os.path.join(folder, "program.jaxexport"), "rb") as file:
        exported = jax.export.deserialize(bytearray(file.read()))
    params, state = compiler.variables(backbone)
    differences = []
    for batch in (1, 3):
        inputs = _batch(batch, batch)[0]
        differences.append(_difference(exported.call(params, state, inputs),
                                       backbone(inputs)))
    report["export"] = max(differences)
    with open(os.path.join(directory, "deep.json"), "w") as file:
        json.dump(report, file, indent=2)


if __name__ == "__main__":
    main(sys.argv[1])
