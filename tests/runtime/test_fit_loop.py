"""fit/evaluate/predict against a hand-written JAX loop: padding, fused steps, inputs."""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

import compiler
import kgraph as kg
from runtime import Trainer, data as data_lib, losses


def _model(batchnorm=False):
    x = kg.Input(shape=(5,), name="features")
    h = kg.layers.Dense(8, activation="tanh", name="hidden")(x)
    if batchnorm:
        h = kg.layers.BatchNormalization(name="bn")(h)
    return kg.Model(x, kg.layers.Dense(3, name="logits")(h))


def _data(n, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 5)).astype(np.float32)
    return x, (x[:, 0] > 0).astype(np.int32) + (x[:, 1] > 1).astype(np.int32)


def _loss():
    return losses.SparseCategoricalCrossentropy(from_logits=True)


def _hand_fit(model, x, y, batch_size, epochs, lr=1e-2, sample_weight=None):
    """The reference: a plain loop over unpadded batches (the last one smaller)."""
    program = compiler.compile(model)
    params, state = jax.tree_util.tree_map(jnp.copy, compiler.variables(model))
    opt = optax.adam(lr)
    opt_state = opt.init(params)

    @jax.jit
    def step(params, state, opt_state, xb, yb, wb):
        def objective(p):
            logits, new_state = program.apply(p, state, xb, training=True)
            values = optax.softmax_cross_entropy_with_integer_labels(logits, yb)
            return jnp.sum(values * wb) / values.shape[0], new_state

        (loss, new_state), grads = jax.value_and_grad(objective, has_aux=True)(params)
        updates, opt_state = opt.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), new_state, opt_state, loss

    weights = np.ones(len(x), np.float32) if sample_weight is None else sample_weight
    epoch_losses = []
    for _ in range(epochs):
        total = 0.0
        for start in range(0, len(x), batch_size):
            s = slice(start, start + batch_size)
            params, state, opt_state, loss = step(params, state, opt_state, x[s], y[s],
                                                  weights[s])
            total += float(loss) * len(x[s])
        epoch_losses.append(total / len(x))
    return params, state, epoch_losses


def _assert_trees_close(a, b, tol=1e-6):
    for u, v in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b), strict=True):
        np.testing.assert_allclose(u, v, rtol=tol, atol=tol)


@pytest.mark.parametrize("batchnorm, gather_per_step",
                         [(False, False), (True, False), (True, True)])
@pytest.mark.slow
def test_fit_equals_a_hand_written_loop_with_a_partial_last_batch(batchnorm, gather_per_step,
                                                                   monkeypatch):
    if gather_per_step:  # as for large batches: each step gathers its rows
        monkeypatch.setattr(data_lib, "EPOCH_GATHER_MAX_BATCH_BYTES", 0)
    x, y = _data(70)  # 32 + 32 + 6: the last batch is padded to 32 and masked
    reference = _model(batchnorm)
    kg.reset_names()
    model = _model(batchnorm)
    model.set_weights(reference.get_weights())
    params, state, epoch_losses = _hand_fit(reference, x, y, 32, epochs=2)
    model.compile(optax.adam(1e-2), _loss())
    history = model.fit(x, y, batch_size=32, epochs=2, shuffle=False, verbose=0)
    _assert_trees_close(compiler.variables(model), (params, state))
    np.testing.assert_allclose(history.history["loss"], epoch_losses, rtol=1e-6)
    trainer = model._trainer
    assert trainer.traces["train"] == 1  # one compiled step served the padded last batch


def test_evaluate_and_predict_equal_unbatched_computation():
    x, y = _data(45)
    model = _model(batchnorm=True)
    model.compile(optax.adam(1e-2), _loss(), metrics=["accuracy"])
    model.fit(x, y, batch_size=16, epochs=1, verbose=0)
    logits = np.asarray(model(x))
    loss, accuracy = model.evaluate(x, y, batch_size=16, verbose=0)
    np.testing.assert_allclose(loss, float(_loss()(y, logits)), rtol=1e-6)
    np.testing.assert_allclose(accuracy, np.mean(logits.argmax(-1) == y), rtol=1e-6)
    np.testing.assert_allclose(model.predict(x, batch_size=16, verbose=0), logits,
                               rtol=1e-5, atol=1e-6)
    assert model._trainer.traces["eval"] == 1


def test_steps_per_execution_equals_single_steps():
    x, y = _data(100)  # 7 steps of 16: one fused block of 4, then 3 single steps
    results = []
    for k in (1, 4):
        kg.reset_names()
        kg.random.set_seed(0)
        model = _model()
        model.compile(optax.adam(1e-2), _loss(), metrics=["accuracy"], steps_per_execution=k)
        history = model.fit(x, y, batch_size=16, epochs=2, verbose=0)
        results.append((compiler.variables(model), history.history))
    _assert_trees_close(results[0][0], results[1][0], tol=1e-6)
    for name in results[0][1]:
        np.testing.assert_allclose(results[0][1][name], results[1][1][name], rtol=1e-6)


def test_train_steps_scan_equals_single_train_steps():
    x, y = _data(64)
    trainer = Trainer(_model(), optax.adam(1e-2), _loss())
    ts1 = trainer.init(jax.random.PRNGKey(0))
    ts2 = jax.tree_util.tree_map(jnp.copy, ts1)
    for i in range(4):
        ts1, _ = trainer.train_step(ts1, (x[16 * i:16 * (i + 1)], y[16 * i:16 * (i + 1)]))
    ts2, logs = trainer.train_steps(ts2, (x.reshape(4, 16, 5), y.reshape(4, 16)))
    _assert_trees_close(ts1.params, ts2.params)
    assert int(ts2.step) == 4


@pytest.mark.parametrize("convolves", [False, True])
def test_fused_steps_loop_unless_they_convolve_on_cpu(convolves):
    """XLA:CPU runs convolution gradients slowly inside a loop, so those steps unroll; a
    step without convolutions stays a loop (much faster to run than unrolled)."""
    x = kg.Input(shape=(6, 1) if convolves else (6,))
    h = kg.layers.Conv1D(2, 3)(x) if convolves else kg.layers.Dense(2)(x)
    trainer = Trainer(kg.Model(x, kg.layers.Flatten()(h)), optax.sgd(0.1), "mse")
    ts = trainer.init(jax.random.PRNGKey(0))
    batches = (jnp.ones((4, 2, *x.shape[1:])), jnp.ones((4, 2, 8 if convolves else 2)))
    text = trainer.train_steps.lower(ts, batches).as_text()
    assert ("stablehlo.while" in text) is (not convolves or jax.default_backend() != "cpu")


def test_fit_is_bitwise_deterministic_for_a_seed():
    results = []
    for _ in range(2):
        kg.reset_names()
        kg.random.set_seed(3)
        inputs = kg.Input(shape=(5,))
        h = kg.layers.Dropout(0.3)(kg.layers.Dense(8, activation="relu")(inputs))
        model = kg.Model(inputs, kg.layers.Dense(3)(h))
        model.compile("adam", _loss(), seed=11)
        model.fit(*_data(50), batch_size=8, epochs=2, verbose=0)
        results.append(compiler.variables(model))
    for a, b in zip(jax.tree_util.tree_leaves(results[0]), jax.tree_util.tree_leaves(results[1])):
        np.testing.assert_array_equal(a, b)


def test_shuffled_epochs_are_the_same_gathered_per_epoch_or_per_step(monkeypatch):
    weights = []
    for limit in (data_lib.EPOCH_GATHER_MAX_BATCH_BYTES, 0):
        monkeypatch.setattr(data_lib, "EPOCH_GATHER_MAX_BATCH_BYTES", limit)
        kg.reset_names()
        kg.random.set_seed(0)
        model = _model()
        model.compile(optax.adam(1e-2), _loss(), seed=5)
        model.fit(*_data(45), batch_size=8, epochs=2, verbose=0)
        weights.append(model.get_weights())
    for a, b in zip(*weights, strict=True):
        np.testing.assert_array_equal(a, b)


def test_generator_and_reiterable_inputs():
    x, y = _data(40)
    batches = [(x[i:i + 16], y[i:i + 16]) for i in range(0, 40, 16)]  # 16, 16, 8

    class Batches:  # a re-iterable source (like a Keras PyDataset): restarts every epoch
        def __iter__(self):
            return iter(batches)
    reference = _model()
    kg.reset_names()
    model = _model()
    model.set_weights(reference.get_weights())
    params, state, _ = _hand_fit(reference, x, y, 16, epochs=2)
    model.compile(optax.adam(1e-2), _loss())
    model.fit(Batches(), epochs=2, verbose=0)
    _assert_trees_close(compiler.variables(model)[0], params)

    def endless():
        while True:
            yield from batches

    model.fit(endless(), steps_per_epoch=3, epochs=2, verbose=0)
    assert model._trainer.traces["train"] == 1  # 8-row batches were padded to 16


def test_a_bad_generator_batch_is_named_and_keeps_completed_steps():
    x, y = _data(48)
    model = _model()
    model.compile(optax.adam(1e-2), _loss())
    reference = compiler.variables(model)

    def batches():
        yield x[:16], y[:16]
        yield x[16:32], y[16:32]
        yield x[32:], y[32:, None].astype(np.float32)  # wrong structure

    with pytest.raises(ValueError, match="Batch 3 from the data iterable does not match"):
        model.fit(batches(), epochs=1, verbose=0)
    after = compiler.variables(model)[0]
    assert not np.allclose(after["logits"]["kernel"], reference[0]["logits"]["kernel"])
    assert all(np.isfinite(leaf).all() for leaf in jax.tree_util.tree_leaves(after))


def test_errors_before_training_leave_weights_untouched():
    model = _model()
    model.compile("adam", "sparse_categorical_crossentropy")
    before = jax.tree_util.tree_map(np.array, compiler.variables(model))
    x, y = _data(16)
    with pytest.raises(ValueError, match="same number of samples"):
        model.fit(x, y[:5], verbose=0)
    with pytest.raises(ValueError, match="categorical_crossentropy"):
        model.fit(x, np.eye(3, dtype=np.float32)[y], verbose=0)  # one-hot for a sparse loss
    for a, b in zip(jax.tree_util.tree_leaves(before),
                    jax.tree_util.tree_leaves(compiler.variables(model))):
        np.testing.assert_array_equal(a, b)


def test_dict_inputs_and_missing_input_name():
    a, b = kg.Input(shape=(3,), name="a"), kg.Input(shape=(2,), name="b")
    out = kg.layers.Dense(1)(kg.layers.Concatenate()([a, b]))
    model = kg.Model({"a": a, "b": b}, out)
    model.compile("adam", "mse")
    rng = np.random.default_rng(0)
    xa, xb = rng.normal(size=(20, 3)), rng.normal(size=(20, 2))
    y = xa.sum(1, keepdims=True)
    history = model.fit({"a": xa, "b": xb}, y, batch_size=8, epochs=2, verbose=0)
    assert len(history.history["loss"]) == 2
    with pytest.raises(ValueError, match=r"missing input\(s\) \['b'\]"):
        model.fit({"a": xa}, y, verbose=0)


def test_multi_output_losses_weights_and_logs():
    x = kg.Input(shape=(4,), name="x")
    h = kg.layers.Dense(8, activation="relu")(x)
    model = kg.Model(x, [kg.layers.Dense(3, name="cls")(h), kg.layers.Dense(1, name="reg")(h)])
    with pytest.raises(KeyError, match=r"no weight for the outputs \['cls'\]"):  # as Keras
        model.compile("adam", loss={"cls": _loss(), "reg": "mse"}, loss_weights={"reg": 0.5})
        model.evaluate(np.zeros((2, 4)), [np.zeros(2), np.zeros((2, 1))], verbose=0)
    model.compile("adam", loss={"cls": _loss(), "reg": "mse"},
                  loss_weights={"cls": 1.0, "reg": 0.5},
                  metrics={"cls": ["accuracy"], "reg": ["mae"]})
    rng = np.random.default_rng(0)
    xs = rng.normal(size=(24, 4)).astype(np.float32)
    ys = [rng.integers(0, 3, 24), rng.normal(size=(24, 1)).astype(np.float32)]
    logs = model.evaluate(xs, ys, batch_size=10, return_dict=True, verbose=0)
    assert list(logs) == sorted(["loss", "cls_loss", "reg_loss", "cls_accuracy", "reg_mae"])
    cls, reg = (np.asarray(o) for o in model(xs))
    np.testing.assert_allclose(logs["cls_loss"], float(_loss()(ys[0], cls)), rtol=1e-5)
    np.testing.assert_allclose(logs["reg_loss"], np.mean((reg - ys[1]) ** 2), rtol=1e-5)
    np.testing.assert_allclose(logs["loss"], logs["cls_loss"] + 0.5 * logs["reg_loss"],
                               rtol=1e-5)


def test_validation_split_class_weight_and_initial_epoch():
    x, y = _data(50)
    model = _model()
    model.compile(optax.adam(1e-2), _loss())
    history = model.fit(x, y, batch_size=16, epochs=3, initial_epoch=1,
                        validation_split=0.2, verbose=0)
    assert history.epoch == [1, 2]
    np.testing.assert_allclose(history.history["val_loss"][-1],
                               model.evaluate(x[40:], y[40:], verbose=0), rtol=1e-6)
    kg.reset_names()
    weighted, explicit = _model(), None
    kg.reset_names()
    explicit = _model()
    explicit.set_weights(weighted.get_weights())
    class_weight = {0: 1.0, 1: 3.0, 2: 0.5}
    for m, kwargs in ((weighted, {"class_weight": class_weight}),
                      (explicit, {"sample_weight": np.array([class_weight[c] for c in y])})):
        m.compile(optax.adam(1e-2), _loss())
        m.fit(x, y, batch_size=16, epochs=1, shuffle=False, verbose=0, **kwargs)
    _assert_trees_close(compiler.variables(weighted), compiler.variables(explicit))


def test_non_finite_loss_stops_training_naming_the_step():
    x, y = _data(64)
    x[40] = np.nan  # the third batch of 16 (step 2) poisons the loss
    model = _model()
    model.compile(optax.adam(1e-2), _loss())
    with pytest.warns(RuntimeWarning, match=r"Epoch 1, batch 2 \(step 2\).*non-finite"):
        history = model.fit(x, y, batch_size=16, epochs=5, shuffle=False, verbose=0)
    assert history.epoch == [0]


def test_output_masks_weight_the_loss_per_timestep():
    tokens = kg.Input(shape=(6,), dtype="int32")
    h = kg.layers.Embedding(10, 4, mask_zero=True)(tokens)
    out = kg.layers.Dense(1)(kg.layers.SimpleRNN(3, return_sequences=True)(h))
    model = kg.Model(tokens, out)
    model.compile("sgd", "mse")
    rng = np.random.default_rng(0)
    ids = rng.integers(1, 10, size=(8, 6))
    ids[:, 4:] = 0  # padded positions
    target = rng.normal(size=(8, 6, 1)).astype(np.float32)
    loss = model.evaluate(ids, target, batch_size=8, verbose=0)
    pred = np.asarray(model(ids))
    mask = ids != 0
    expected = np.sum(((pred - target) ** 2)[..., 0] * mask) / mask.sum()
    np.testing.assert_allclose(loss, expected, rtol=1e-5)


def test_optax_multisteps_and_weight_decay_mask_by_path():
    from runtime import mask_by_path

    x, y = _data(32)
    trainer = Trainer(_model(), optax.MultiSteps(optax.sgd(0.1), every_k_schedule=2), _loss())
    ts = trainer.init(jax.random.PRNGKey(0))
    kernel = np.asarray(ts.params["logits"]["kernel"]).copy()
    ts, _ = trainer.train_step(ts, (x[:16], y[:16]))
    np.testing.assert_array_equal(ts.params["logits"]["kernel"], kernel)  # accumulating
    ts, _ = trainer.train_step(ts, (x[16:], y[16:]))
    assert not np.allclose(ts.params["logits"]["kernel"], kernel)

    decay_kernels = mask_by_path(lambda path: path[-1] == "kernel")
    results = []
    for opt in (optax.chain(optax.add_decayed_weights(0.5, mask=decay_kernels), optax.sgd(0.1)),
                optax.sgd(0.1)):
        kg.reset_names()
        trainer = Trainer(_model(), opt, _loss())
        ts, _ = trainer.train_step(trainer.init(jax.random.PRNGKey(0)), (x, y))
        results.append(ts.params)
    decayed, plain = results
    np.testing.assert_array_equal(decayed["logits"]["bias"], plain["logits"]["bias"])
    assert not np.allclose(decayed["logits"]["kernel"], plain["logits"]["kernel"])


def test_steps_per_epoch_with_arrays_limits_the_epoch():
    x, y = _data(64)
    model = _model()
    model.compile(optax.adam(1e-2), _loss())
    model.fit(x, y, batch_size=16, epochs=2, steps_per_epoch=2, verbose=0)
    assert int(jax.tree_util.tree_leaves(
        [leaf for leaf in jax.tree_util.tree_leaves(model._opt_state) if leaf.ndim == 0])[0]) == 4


@pytest.mark.slow
def test_similar_dataset_sizes_share_compiled_steps():
    model = _model()
    model.compile(optax.adam(1e-2), _loss(), metrics=["accuracy"])
    for n in (100, 97, 103):  # data bucketed to 104 rows, index tables to 16 rows (batch 8)
        x, y = _data(n, seed=n)
        model.fit(x, y, batch_size=8, epochs=1, verbose=0)
        logs = model.evaluate(x, y, batch_size=8, return_dict=True, verbose=0)
        np.testing.assert_allclose(logs["loss"], float(_loss()(y, np.asarray(model(x)))),
                                   rtol=1e-5)
        assert model.predict(x, batch_size=8, verbose=0).shape == (n, 3)
    assert model._trainer.traces["train"] == 1 and model._trainer.traces["eval"] == 1
    assert model._trainer.traces["predict"] == 1


def test_shuffle_batch_shuffles_inside_each_batch_as_keras():
    from runtime.data import ArrayData

    data = ArrayData(np.arange(10, dtype=np.float32)[:, None], np.zeros(10), batch_size=4)
    data.shuffle = "batch"
    order = data.epoch_order(np.random.default_rng(0))
    assert [sorted(order[i:i + 4]) for i in (0, 4, 8)] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert list(order) != list(range(10))
    model = _model()
    model.compile(optax.sgd(0.1), _loss())
    with pytest.raises(ValueError, match="shuffle must be True, False or 'batch'"):
        model.fit(*_data(16), shuffle="rows", verbose=0)


def test_padding_steps_of_the_epoch_table_run_no_forward_pass():
    # 3 batches: the device-side table is padded to 16 rows (one program for similar sizes);
    # only the 3 real batches may run the model
    passes = []

    def counted(h):
        jax.debug.callback(lambda: passes.append(1))
        return h

    x = kg.Input(shape=(5,))
    model = kg.Model(x, kg.layers.Dense(3)(kg.layers.Lambda(counted)(x)))
    model.compile(optax.sgd(0.1), _loss())
    features, labels = _data(20)
    assert model.predict(features, batch_size=8, verbose=0).shape == (20, 3)
    jax.effects_barrier()
    assert len(passes) == 3
    passes.clear()
    model.evaluate(features, labels, batch_size=8, verbose=0)
    jax.effects_barrier()
    assert len(passes) == 3


def test_predict_on_fewer_rows_than_a_batch_runs_a_smaller_batch():
    traced_batches = []

    def recorded(h):
        traced_batches.append(h.shape[0])
        return h

    x = kg.Input(shape=(5,))
    model = kg.Model(x, kg.layers.Dense(3)(kg.layers.Lambda(recorded)(x)))
    features, _ = _data(3)
    traced_batches.clear()
    out = model.predict(features, verbose=0)  # batch_size 32: 3 rows batched by 4
    np.testing.assert_allclose(out, np.asarray(model(features)), rtol=1e-6)
    assert 4 in traced_batches and 32 not in traced_batches

    fixed = kg.Input(batch_shape=(8, 5))  # a fixed batch size keeps its batches
    model = kg.Model(fixed, kg.layers.Dense(3)(fixed))
    out = model.predict(features, batch_size=8, verbose=0)
    np.testing.assert_allclose(out, np.asarray(model(np.resize(features, (8, 5))))[:3],
                               rtol=1e-6)


def test_read_only_train_states_hold_the_models_own_arrays():
    # evaluate / predict never donate their train state: no copy of the weights is made;
    # training steps donate theirs, so their train state holds copies
    model = _model(batchnorm=True)
    trainer = Trainer(model, loss=None)
    params, state = compiler.variables(model)
    for read_only, same in ((True, True), (False, False)):
        ts = trainer.init_from_model(jax.random.PRNGKey(0), opt_state=(), read_only=read_only)
        pairs = list(zip(jax.tree_util.tree_leaves((ts.params, ts.state)),
                         jax.tree_util.tree_leaves((params, state))))
        assert pairs and all((a is b) == same for a, b in pairs)
