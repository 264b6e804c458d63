"""ShardingRules: matching weight paths, and every mistake refused before anything runs.

An abstract mesh (no devices needed) stands in for 2 x 4 devices.
"""

import jax
import numpy as np
import pytest
from jax.sharding import AbstractMesh
from jax.sharding import PartitionSpec as P

from runtime.sharding import ShardingRules

MESH = AbstractMesh((2, 4), ("data", "model"))
PARAMS = {"dense": {"kernel": np.zeros((16, 32), np.float32), "bias": np.zeros(32, np.float32)},
          "dense_1": {"kernel": np.zeros((32, 8), np.float32)},
          "encoder": {"dense": {"kernel": jax.ShapeDtypeStruct((8, 8), np.float32)}}}


def test_exact_paths_win_over_patterns_and_nested_paths_match():
    rules = ShardingRules([(r".*kernel", P("data", None)),
                           ("dense_1/kernel", P("model", "data")),
                           ("encoder/dense/kernel", P(None, "model"))])
    specs = rules.specs(PARAMS, MESH)
    assert specs["dense"]["kernel"] == P("data", None)
    assert specs["dense_1"]["kernel"] == P("model", "data")
    assert specs["encoder"]["dense"]["kernel"] == P(None, "model")
    assert specs["dense"]["bias"] == P()  # no rule: replicated


@pytest.mark.parametrize("rules, message", [
    ([(r"dense.*/kernel", P()), (r".*/kernel", P())],
     r'Weight "dense/kernel" matches 2 sharding rules: .*exact path wins'),
    ([("dense/kernel", P("data"))],
     r'"dense/kernel" of shape \(16, 32\): rule .* has 1 entries for a rank-2 weight'),
    ([("dense/kernel", P(None, "model", None))], r"has 3 entries for a rank-2"),
    ([("dense/kernel", P("pipe", None))],
     r"names mesh axis 'pipe', but the mesh has axes \{'data': 2, 'model': 4\}"),
    ([("dense/kernel", P("data", "data"))], r"uses mesh axis 'data' twice"),
    ([("dense/kernel", P(None, ("data", "data")))], r"uses mesh axis 'data' twice"),
    ([("odd/kernel", P(None, ("data", "model")))],
     r'"odd/kernel" of shape \(6, 12\).* splits dimension 1 \(size 12\) into 8 parts '
     r"over mesh axes \('data', 'model'\), which does not divide it"),
])
def test_mistakes_are_errors_naming_weight_shape_and_rule(rules, message):
    params = {**PARAMS, "odd": {"kernel": np.zeros((6, 12), np.float32)}}
    with pytest.raises(ValueError, match=message):
        ShardingRules(rules).specs(params, MESH)


def test_refusing_unmatched_weights_above_a_size():
    rules = ShardingRules([(r"dense/.*", P())], refuse_unmatched_above=1000)
    with pytest.raises(ValueError, match=r'"dense_1/kernel" of shape \(32, 8\) \(1,024 bytes\) '
                                         r"matches no sharding rule"):
        rules.specs(PARAMS, MESH)
    small = ShardingRules([(r"dense.*", P())], refuse_unmatched_above=1000)
    assert small.specs(PARAMS, MESH)["encoder"]["dense"]["kernel"] == P()  # 256 bytes


def test_bad_rules_are_refused_when_made():
    with pytest.raises(TypeError, match=r"rule 0 must be \(pattern, PartitionSpec\)"):
        ShardingRules([("dense/kernel", ("data", None))])
    with pytest.raises(ValueError, match="not a regular expression"):
        ShardingRules([("dense/(kernel", P())])


def test_report_counts_bytes_per_device_and_the_replicated_share():
    rules = ShardingRules([("dense/kernel", P("data", "model")), ("dense_1/kernel", P("model", None))])
    report = rules.report(PARAMS, MESH, state={"bn": {"mean": np.zeros(32, np.float32)}})
    rows = {p.path: p for p in report.placements}
    assert rows["dense/kernel"].bytes_per_device == 16 * 32 * 4 // 8
    assert rows["dense_1/kernel"].bytes_per_device == 32 * 8 * 4 // 4
    assert rows["bn/mean"].rule is None and rows["bn/mean"].bytes_per_device == 128
    total = (16 * 32 + 32 + 32 * 8 + 64 + 32) * 4
    assert report.total_bytes == total
    assert report.bytes_per_device == 256 + 128 + 256 + 256 + 128
    assert report.fraction_replicated == pytest.approx((128 + 256 + 128) / total)
    text = str(report)
    assert "replicated (no rule)" in text and "8 devices" in text


def _trainer(activations):
    import optax

    import kgraph as kg
    from runtime import Trainer

    x = kg.Input(shape=(16,))
    h = kg.layers.Dense(64, activation="relu", name="up")(x)
    model = kg.Model(x, kg.layers.Dense(8, name="down")(h))
    mesh = jax.make_mesh((1, 1), ("data", "model"))  # one device: the program is the same
    return Trainer(model, optax.sgd(0.1), "mse", mesh=mesh,
                   sharding=ShardingRules(activations=activations))


BATCH = (np.ones((8, 16), np.float32), np.ones((8, 8), np.float32))


def test_activation_hints_constrain_the_named_node_outputs():
    def lowered(activations):
        trainer = _trainer(activations)
        return trainer.train_step.lower(trainer.init(jax.random.PRNGKey(0)), BATCH).as_text()

    plain, hinted = lowered(()), lowered([("up/output", P("data", "model"))])
    # The forward output and its cotangent are constrained over the "model" axis.
    assert hinted.count('"model"') >= plain.count('"model"') + 2


@pytest.mark.parametrize("activations, message", [
    ([("upp/output", P("data", None))], r"Activation hints \['upp/output'\] name no layer"),
    ([("up/output", P("data", None, None))],
     r'"up/output": .* has 3 entries, but the output has rank 2 \(shape \(8, 64\)\)'),
    ([("up/output", P("pipe", None))], r"names mesh axis 'pipe'"),
    ([("up", P("data", None))], r'is \("<layer path>/output", PartitionSpec\)'),
])
def test_activation_hint_mistakes_are_errors(activations, message):
    with pytest.raises(ValueError, match=message):
        trainer = _trainer(activations)
        trainer.train_step(trainer.init(jax.random.PRNGKey(0)), BATCH)


def test_a_misspelled_hint_is_an_error_before_any_step():
    with pytest.raises(ValueError, match=r"Activation hints \['upp/output'\] name no layer"):
        _trainer([("upp/output", P("data", None))])


def test_a_rule_that_matches_no_weight_is_an_error_unless_rules_are_shared():
    import kgraph as kg
    from runtime import Trainer

    x = kg.Input(shape=(16,))
    model = kg.Model(x, kg.layers.Dense(8, name="down")(x))
    mesh = jax.make_mesh((1, 1), ("data", "model"))
    typo = [("down/kernel", P(None, "model")), (r"dwn/.*", P())]
    with pytest.raises(ValueError, match=r"rules \('dwn/\.\*', P\(\)\) match no weight of "
                                         r"model .*\"down/bias\""):
        Trainer(model, "sgd", "mse", mesh=mesh, sharding=ShardingRules(typo))
    with pytest.raises(ValueError, match="match no weight"):  # at compile, as early as can be
        model.compile("sgd", "mse", mesh=mesh, sharding=ShardingRules(typo))
    Trainer(model, "sgd", "mse", mesh=mesh, sharding=ShardingRules(typo, allow_unused=True))
