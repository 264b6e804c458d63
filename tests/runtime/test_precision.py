"""Model-level mixed precision: bfloat16 compute, float32 weights, optimizer state,
accumulations and losses, for the whole model or by layer path."""

import re

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

import kgraph as kg
from runtime import Trainer
from runtime.precision import Precision

RNG = np.random.default_rng(0)
BATCH = (RNG.normal(size=(8, 16)).astype("f4"), RNG.normal(size=(8, 4)).astype("f4"))


def _model(blocks=0):
    kg.utils.set_random_seed(0)
    x = kg.Input(shape=(16,))
    h = kg.layers.Dense(32, activation="relu", name="up")(x)
    for i in range(blocks):
        h = kg.layers.Dense(32, activation="tanh", name=f"block{i}")(h)
    h = kg.layers.LayerNormalization(name="norm")(h)
    return kg.Model(x, kg.layers.Dense(4, name="head")(h))


def _dots(trainer, ts):
    """(lhs, rhs, result) tensor types of every dot_general of the lowered train step."""
    text = trainer.train_step.lower(ts, BATCH).as_text()
    return re.findall(r"dot_general.*?: \((tensor<[^>]*>), (tensor<[^>]*>)\) -> "
                      r"(tensor<[^>]*>)", text)


def _dtypes(tree):
    return {str(a.dtype) for a in jax.tree_util.tree_leaves(tree) if jnp.ndim(a)}


def test_the_whole_model_computes_in_bfloat16_with_float32_weights_and_sums():
    losses = {}
    for precision in (None, "mixed_bfloat16"):
        trainer = Trainer(_model(), optax.adam(1e-2), "mse", precision=precision)
        ts = trainer.init(jax.random.PRNGKey(0))
        dots = _dots(trainer, ts)
        for _ in range(3):
            ts, logs = trainer.train_step(ts, BATCH)
        losses[precision] = float(logs["loss"])
        assert _dtypes((ts.params, ts.opt_state)) == {"float32"}
        assert logs["loss"].dtype == jnp.float32
        assert all(d[2].endswith("xf32>") for d in dots)  # every sum in float32
        run = trainer.program.run(ts.params, ts.state, BATCH[0], capture=["up", "head"],
                                  hooks=(trainer.precision,) if precision else ())
        expected = jnp.bfloat16 if precision else jnp.float32
        assert run.captured["up"].dtype == run.captured["head"].dtype == expected
    assert losses["mixed_bfloat16"] == pytest.approx(losses[None], rel=2e-2)
    assert losses["mixed_bfloat16"] != losses[None]


def test_by_path_the_first_matching_rule_wins():
    trainer = Trainer(_model(), optax.sgd(0.1), "mse",
                      precision={"head": "float32", ".*": "mixed_bfloat16"})
    ts = trainer.init(jax.random.PRNGKey(0))
    run = trainer.program.run(ts.params, ts.state, BATCH[0], capture=["up", "norm", "head"],
                              hooks=(trainer.precision,))
    dtypes = {name: value.dtype for name, value in run.captured.items()}
    assert dtypes == {"up": jnp.bfloat16, "norm": jnp.bfloat16, "head": jnp.float32}


def test_a_rule_holds_for_the_layers_a_nested_model_calls():
    inner_x = kg.Input(shape=(16,))
    inner = kg.Model(inner_x, kg.layers.Dense(8, name="inside")(inner_x), name="encoder")
    x = kg.Input(shape=(16,))
    model = kg.Model(x, kg.layers.Dense(2, name="out")(inner(x)))
    trainer = Trainer(model, "sgd", "mse", precision={"encoder": "mixed_bfloat16"})
    ts = trainer.init(jax.random.PRNGKey(0))
    run = trainer.program.run(ts.params, ts.state, BATCH[0], hooks=(trainer.precision,),
                              capture=["encoder/inside", "out"])
    assert run.captured["encoder/inside"].dtype == jnp.bfloat16
    assert run.captured["out"].dtype == jnp.float32


def test_repeated_blocks_scan_only_when_their_precision_agrees():
    def jaxpr(precision):
        trainer = Trainer(_model(blocks=4), "sgd", "mse", precision=precision)
        ts = trainer.init(jax.random.PRNGKey(0))
        text = str(jax.make_jaxpr(trainer._train_step)(ts, BATCH))
        return text, trainer.program.unstack(ts.params, ts.state)[0]

    uniform, _ = jaxpr({"block.*": "mixed_bfloat16"})
    assert "scan[" in uniform
    mixed, params = jaxpr({"block[01]": "mixed_bfloat16", "block[23]": "float32"})
    assert "scan[" not in mixed and "block3" in params  # unrolled, each its own dtype
    assert "bf16" in mixed


def test_fit_and_predict_through_model_compile():
    model = _model()
    model.compile("adam", "mse", precision="mixed_bfloat16")
    history = model.fit(*BATCH, batch_size=4, epochs=2, verbose=0)
    assert np.isfinite(history.history["loss"]).all()
    assert {w.dtype for w in model.get_weights()} == {np.dtype("float32")}
    # the last layer's compute dtype, as Keras (keep "head" in float32 to get float32)
    assert model.predict(BATCH[0], verbose=0).dtype == jnp.bfloat16


def test_integer_layers_keep_their_integers():
    x = kg.Input(shape=(5,), dtype="int32")
    h = kg.layers.Embedding(10, 8, name="embed")(x)
    model = kg.Model(x, kg.layers.Dense(1)(kg.layers.GlobalAveragePooling1D()(h)))
    trainer = Trainer(model, "sgd", "mse", precision="mixed_bfloat16")
    ids = np.arange(10, dtype="int32").reshape(2, 5)
    ts, logs = trainer.train_step(trainer.init(jax.random.PRNGKey(0)),
                                  (ids, np.zeros((2, 1), "f4")))
    assert np.isfinite(float(logs["loss"]))


def test_bad_policies_and_unused_patterns_are_errors():
    with pytest.raises(ValueError, match="precision: 'mixed_bfloat17' is not a dtype policy"):
        Precision("mixed_bfloat17")
    with pytest.raises(ValueError, match="does not compute in floats"):
        Precision({"dense": "int32"})
    with pytest.raises(TypeError, match="precision must be"):
        Precision(3)
    with pytest.raises(ValueError, match=r"precision patterns \['haed'\] match no layer"):
        Trainer(_model(), "sgd", "mse", precision={"haed": "float32"})  # before any step


def test_a_subclassed_model_takes_a_whole_model_policy_and_remat():
    """A model whose call is its own code is one node to the rules: ".*" covers it."""
    class Two(kg.Model):
        def __init__(self):
            super().__init__()
            self.hidden, self.out = kg.layers.Dense(4), kg.layers.Dense(1)

        def call(self, x):
            return self.out(self.hidden(x))

    x, y = np.ones((8, 3), np.float32), np.ones((8, 1), np.float32)
    model = Two()
    model.compile("sgd", "mse", precision="mixed_bfloat16", remat="nothing_saveable")
    assert np.isfinite(model.fit(x, y, verbose=0).history["loss"][0])
    assert model.predict(x, verbose=0).dtype == np.dtype("bfloat16")
    assert model.get_weights()[0].dtype == np.float32
