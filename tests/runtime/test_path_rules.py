"""One matcher for every choice made by path (``runtime.path_rules``): sharding rules,
remat, precision and activation hints share its semantics, checked here on each user:
an exact path wins over a pattern, one pattern that fullmatches applies, two are an error,
and a rule that matches nothing is an error."""

import jax
import numpy as np
import pytest
from jax.sharding import AbstractMesh
from jax.sharding import PartitionSpec as P

import kgraph as kg
from runtime import Precision, Remat, ShardingRules
from runtime.path_rules import PathRules
from runtime.sharding.placement import _ActivationHints

MESH = AbstractMesh((2,), ("data",))
PATHS = ["block_0", "block_1", "head"]


def _users(rules):
    """Each user of the matcher, made from ``{pattern: choice}``, as a ``value_for``."""
    sharding = ShardingRules([(pattern, P()) for pattern in rules])
    yield "sharding", lambda path: (None if sharding.match(path) is None
                                    else sharding.match(path)[0])
    remat = Remat({pattern: "dots_saveable" for pattern in rules})
    yield "remat", lambda path: _which(remat.rules, path)
    precision = Precision({pattern: "mixed_bfloat16" for pattern in rules})
    yield "precision", lambda path: _which(precision.rules, path)
    hints = _ActivationHints({f"{pattern}/output": P() for pattern in rules}, MESH)
    yield "activation hints", lambda path: _which(hints.rules, path)


def _which(rules, path):
    rule = rules.match(path)
    return None if rule is None else rule[0]


@pytest.mark.parametrize("user", ["sharding", "remat", "precision", "activation hints"])
def test_every_user_matches_exact_first_then_one_pattern(user):
    rules = {"block_.*": None, "head": None, "he.*": None}
    value_for = dict(_users(rules))[user]
    assert value_for("block_1") == "block_.*"
    assert value_for("head") == "head"  # exact, though "he.*" matches too
    assert value_for("stem") is None
    ambiguous = dict(_users({"block_.*": None, "block_[01]": None}))[user]
    with pytest.raises(ValueError, match=r'"block_1" matches 2 .*rules: .*exact path wins'):
        ambiguous("block_1")


def test_every_user_refuses_a_rule_that_matches_nothing():
    model_paths = ["dense", "dense_1"]
    for rules in (Remat({"dens": "dots_saveable"}), Precision({"dens": "float32"}),
                  _ActivationHints({"dens/output": P()}, MESH)):
        with pytest.raises(ValueError, match="dens"):
            rules.check_paths(model_paths, "m")
    with pytest.raises(ValueError, match="match no weight of model 'm'"):
        ShardingRules([("dens/.*", P())]).check_used(["dense/kernel"], "m")
    ShardingRules([("dens/.*", P())], allow_unused=True).check_used(["dense/kernel"], "m")


def test_an_activation_hint_may_be_a_pattern():
    mesh = jax.make_mesh((1,), ("data",))
    x = kg.Input((4,))
    h = kg.layers.Dense(4, name="dense_a")(x)
    model = kg.Model(x, kg.layers.Dense(4, name="dense_b")(h))
    from runtime import Trainer

    trainer = Trainer(model, "sgd", "mse", mesh=mesh,
                      sharding=ShardingRules(activations=[("dense_.*/output", P("data", None))]))
    data = np.ones((2, 4), np.float32)
    trainer.train_step(trainer.init(jax.random.PRNGKey(0)), (data, data))
    assert trainer.placement.hints.rules.used == {"dense_.*"}


def test_the_matcher_alone():
    rules = PathRules([("a.*", 1), ("ab", 2)], "example")
    assert [rules.value_for(p) for p in ("ab", "ac", "b")] == [2, 1, None]
    assert rules.unused(["ac"]) == [("ab", 2)]
    with pytest.raises(ValueError, match="example patterns \\['ab'\\] match no layer"):
        rules.check_paths(["ac"], "m")
    with pytest.raises(ValueError, match="is not a regular expression"):
        PathRules({"a(": 1}, "example")
