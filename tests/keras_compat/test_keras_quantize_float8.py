"""``quantize("float8")`` against Keras: the same variables and numbers, the delayed-scaling
updates of training steps (scales and amax histories in ``state``, each written with its
gradient as Keras's optimizer overwrites it: the gradients equal Keras's), weights and
every scale and history equal to Keras's after several ``fit`` steps (in float64 or
mixed bfloat16: float8's rounding amplifies float32's last bits), also under
``gradient_accumulation_steps`` (with ``use_ema``), ``loss_scale_factor`` and a frozen
layer, with Keras's optimizer variables (the accumulators of the scales and histories
included), and files both ways, also mid-accumulation."""

import h5py
import jax
import keras
import numpy as np
import pytest

import compiler
import kgraph as kg

RNG = np.random.default_rng(0)
X = (RNG.normal(size=(16, 6)) * 3).astype("float32")
Y = RNG.normal(size=(16, 3)).astype("float32")


def _model(lib, policy="float32"):
    lib.config.set_dtype_policy(policy)
    try:
        x = lib.Input((6,))
        h = lib.layers.Dense(8, activation="tanh", name="dense")(x)
        for i in range(4):  # repeated blocks: kgraph runs them in one scan
            h = lib.layers.Dense(8, activation="tanh", name=f"block_{i}")(h)
        y = lib.layers.EinsumDense("ab,bc->ac", output_shape=3, bias_axes="c", name="einsum")(h)
        return lib.Model(x, y)
    finally:
        lib.config.set_dtype_policy("float32")


def _pair(policy="float32"):
    keras.utils.set_random_seed(0)  # Keras's initial weights: the same in every run
    theirs, ours = _model(keras, policy), _model(kg, policy)
    ours.set_weights([np.asarray(w) for w in theirs.get_weights()])
    theirs.quantize("float8")
    ours.quantize("float8")
    return theirs, ours


def _differences(ours, theirs):
    """The largest difference of each weight, by path."""
    mine = {w.path: np.asarray(w.numpy(), "float64") for w in ours.weights}
    assert set(mine) == {w.path for w in theirs.weights}
    return {w.path: float(np.abs(mine[w.path] - np.asarray(w.numpy(), "float64")).max())
            for w in theirs.weights}


@pytest.mark.parametrize("policy", ["float64", "mixed_bfloat16"])
def test_float8_model_trains_as_keras(policy):
    with jax.enable_x64(policy == "float64"):
        _trains_as_keras(policy)


def _trains_as_keras(policy):
    theirs, ours = _pair(policy)
    assert [(w.path, tuple(w.shape), str(w.dtype)) for w in theirs.weights] == [
        (w.path, w.shape, w.dtype.name) for w in ours.weights]
    layer = ours.get_layer("dense")
    assert layer.dtype_policy.name == f"float8_from_{policy}"
    assert layer.get_config()["dtype"] == keras.dtype_policies.serialize(
        theirs.get_layer("dense").dtype_policy)
    reference = np.asarray(theirs(X), "float32")
    np.testing.assert_array_equal(np.asarray(ours(X), "float32"), reference)
    ours(X, training=True)  # an eager call updates nothing, as Keras's
    assert not np.asarray(layer.inputs_amax_history).any()
    for model, lib in ((theirs, keras), (ours, kg)):
        model.compile(optimizer=lib.optimizers.SGD(0.1), loss="mse")
    for _ in range(2):
        theirs.fit(X, Y, batch_size=16, epochs=1, verbose=0, shuffle=False)
        ours.fit(X, Y, batch_size=16, epochs=1, verbose=0, shuffle=False)
    _assert_same_weights(ours, theirs)
    history = np.asarray(layer.inputs_amax_history)  # two steps' amax rolled in
    assert history[0] > 0 and history[-1] > 0 and not history[1:-1].any()
    assert float(layer.kernel_scale) != 1.0


def _assert_same_weights(ours, theirs):
    mine = {w.path: np.asarray(w.numpy(), "float64") for w in ours.weights}
    assert set(mine) == {w.path for w in theirs.weights}
    for w in theirs.weights:
        np.testing.assert_allclose(mine[w.path], np.asarray(w.numpy(), "float64"), rtol=1e-5,
                                   atol=1e-7, err_msg=w.path)


@pytest.mark.parametrize("policy, batch_size", [("float64", 8), ("float64", 6),
                                                ("mixed_bfloat16", 8)])
def test_float8_fit_records_output_gradient_amax_as_keras(policy, batch_size):
    """After six to nine steps, the output gradients' amax histories and scales (which
    rescale the later steps' gradients) and so every weight are Keras's; with a partial last
    batch too."""
    with jax.enable_x64(policy == "float64"):
        theirs, ours = _pair(policy)
        for model, lib in ((theirs, keras), (ours, kg)):
            model.compile(optimizer=lib.optimizers.SGD(0.1), loss="mse")
            model.fit(X, Y, batch_size=batch_size, epochs=3, verbose=0, shuffle=False)
        _assert_same_weights(ours, theirs)
    for layer in ("dense", "block_2", "einsum"):
        history = np.asarray(ours.get_layer(layer).outputs_grad_amax_history)
        assert history[0] > 0 and history[-1] > 0  # every step's gradient amax rolled in
        assert float(ours.get_layer(layer).outputs_grad_scale) != 1.0


def _state_gradients(lib, model, params, state):
    """The gradients of the sum of ``model``'s training-mode outputs with respect to its
    float8 scales and histories, by path."""
    if lib is keras:
        trainable = [v.value for v in model.trainable_variables]
        frozen = [v.value for v in model.non_trainable_variables]

        def total(trainable):
            return model.stateless_call(trainable, frozen, X, training=True)[0].sum()

        grads = jax.grad(total)(trainable)
        return {v.path: np.asarray(g) for v, g in zip(model.trainable_variables, grads)
                if "_scale" in v.path or "_history" in v.path}
    program = compiler.compile(model)
    grads = jax.grad(lambda s: program.apply(params, s, X, training=True)[0].sum())(state)
    return {f"{layer}/{name}": np.asarray(g) for layer, weights in grads.items()
            for name, g in weights.items()}


def test_compiled_training_run_gives_the_scale_updates_as_gradients_and_files_load(tmp_path):
    theirs, ours = _pair()
    for model, lib in ((theirs, keras), (ours, kg)):
        model.compile(optimizer=lib.optimizers.SGD(0.1), loss="mse")
        model.fit(X, Y, batch_size=8, epochs=1, verbose=0, shuffle=False)
    program = compiler.compile(ours)
    assert program.block_runs  # the repeated blocks, scanned
    params, state = compiler.variables(ours)
    assert set(state["dense"]) == {"inputs_scale", "inputs_amax_history", "kernel_scale",
                                   "kernel_amax_history", "outputs_grad_scale",
                                   "outputs_grad_amax_history"}
    assert set(params["dense"]) == {"kernel", "bias"}
    outputs, same = jax.jit(program.apply)(params, state, X)
    np.testing.assert_array_equal(np.asarray(outputs), np.asarray(ours(X)))
    assert jax.tree_util.tree_all(jax.tree_util.tree_map(np.array_equal, same, state))
    # a training run leaves them (Keras's stateless_call too: its optimizer writes them);
    # their gradients are their next values, Keras's
    _, trained = program.apply(params, state, X, training=True)
    assert jax.tree_util.tree_all(jax.tree_util.tree_map(np.array_equal, trained, state))
    mine, reference = (_state_gradients(kg, ours, params, state),
                       _state_gradients(keras, theirs, None, None))
    assert set(mine) == set(reference) and len(mine) == 36
    for path, value in reference.items():
        np.testing.assert_allclose(mine[path], value, rtol=1e-5, atol=1e-12, err_msg=path)
    history = mine["dense/inputs_amax_history"]
    previous = np.asarray(state["dense"]["inputs_amax_history"])
    np.testing.assert_array_equal(history[1:], np.roll(previous, -1)[1:])
    assert history[0] == np.abs(X).max()
    reference = np.asarray(theirs(X))
    theirs.save(tmp_path / "keras.keras")
    ours.save(tmp_path / "kgraph.keras")
    loaded = kg.load_model(tmp_path / "keras.keras")
    np.testing.assert_array_equal(np.asarray(loaded(X)), reference)
    assert _differences(loaded, theirs) == dict.fromkeys(_differences(loaded, theirs), 0.0)
    keras_loaded = keras.saving.load_model(tmp_path / "kgraph.keras")
    np.testing.assert_array_equal(np.asarray(keras_loaded(X)), np.asarray(ours(X)))
    assert _differences(ours, keras_loaded) == dict.fromkeys(_differences(ours, keras_loaded),
                                                              0.0)


def test_amax_history_length_comes_from_the_policy():
    policy = {"module": "keras.dtype_policies", "class_name": "QuantizedFloat8DTypePolicy",
              "config": {"mode": "float8", "source_name": "float32", "amax_history_length": 16},
              "registered_name": None}
    layers = [keras.layers.Dense(3, dtype=keras.dtype_policies.deserialize(policy)),
              kg.layers.Dense(3, dtype=policy)]
    for layer in layers:
        layer.build((None, 4))
    assert [(w.name, tuple(w.shape)) for w in layers[0].weights] == [
        (w.name, w.shape) for w in layers[1].weights]
    assert layers[1].inputs_amax_history.shape == (16,)
    assert [w.name for w in layers[1]._keras_ordered_variables()] == \
        layers[0].variable_serialization_spec["float8"]


def _assert_same_optimizer_variables(ours, theirs):
    mine, reference = ours.optimizer.variables, theirs.optimizer.variables
    assert [v.name for v in mine] == [v.name for v in reference]
    for a, b in zip(mine, reference, strict=True):
        np.testing.assert_allclose(np.asarray(a.numpy(), "float64"),
                                   np.asarray(b.numpy(), "float64"), rtol=1e-5, atol=1e-7,
                                   err_msg=b.path)


@pytest.mark.parametrize("steps", [2, 3])
@pytest.mark.parametrize("use_ema", [False, True])
def test_float8_under_gradient_accumulation_trains_as_keras(steps, use_ema):
    """Keras's optimizer writes the scales and histories at update steps only, with the
    largest of the values the batches since the last update gave, kept in its
    accumulators: seven batches (the last one partial) leave weights, scales, histories
    and optimizer variables (accumulators mid-accumulation) equal to Keras's. In float64:
    quantizing to float8 turns a last-bit difference of two float32 programs into a whole
    float8 step, where a value falls near a rounding boundary."""
    with jax.enable_x64(True):
        theirs, ours = _pair("float64")
        for model, lib in ((theirs, keras), (ours, kg)):
            model.compile(optimizer=lib.optimizers.SGD(
                0.1, momentum=0.9, gradient_accumulation_steps=steps, use_ema=use_ema,
                ema_momentum=0.5), loss="mse")
            model.fit(X[:13], Y[:13], batch_size=2, epochs=1, verbose=0, shuffle=False)
        _assert_same_weights(ours, theirs)  # after 7 batches: between updates
        _assert_same_optimizer_variables(ours, theirs)
    accumulator = [v for v in theirs.optimizer.variables
                   if v.name == "dense_inputs_amax_history_gradient_accumulator"]
    assert np.asarray(accumulator[0].numpy()).any()  # a batch since the last update
    assert float(ours.get_layer("dense").outputs_grad_scale) != 1.0


def test_float8_with_loss_scale_factor_trains_as_keras():
    """The output gradient's history holds the scaled gradient's amax, as in Keras (whose
    optimizer leaves the gradients of the weights it overwrites unscaled)."""
    with jax.enable_x64(True):
        theirs, ours = _pair("float64")
        for model, lib in ((theirs, keras), (ours, kg)):
            model.compile(optimizer=lib.optimizers.SGD(0.1, loss_scale_factor=4.0),
                          loss="mse")
            model.fit(X, Y, batch_size=4, epochs=2, verbose=0, shuffle=False)
        _assert_same_weights(ours, theirs)


def test_frozen_float8_layer_keeps_its_scales_as_keras():
    with jax.enable_x64(True):
        theirs, ours = _pair("float64")
        for model, lib in ((theirs, keras), (ours, kg)):
            model.get_layer("block_1").trainable = False
            model.compile(optimizer=lib.optimizers.SGD(0.1), loss="mse")
            model.fit(X, Y, batch_size=8, epochs=2, verbose=0, shuffle=False)
        _assert_same_weights(ours, theirs)
    assert not np.asarray(ours.get_layer("block_1").inputs_amax_history).any()


def _optimizer_vars(path):
    with h5py.File(path) as file:
        group = file["optimizer/vars"]
        return [np.asarray(group[str(i)]) for i in range(len(group))]


def test_files_written_mid_accumulation_hold_keras_variables_and_resume(tmp_path):
    """A weights file saved between updates holds Keras's optimizer variables, the
    accumulators of the scales and histories included; a model loading Keras's file, or
    kgraph's, continues as Keras does."""
    def compiled(lib, model):
        model.compile(optimizer=lib.optimizers.SGD(0.1, momentum=0.9,
                                                   gradient_accumulation_steps=2), loss="mse")
        return model

    theirs, ours = _pair()
    for model, lib in ((theirs, keras), (ours, kg)):
        compiled(lib, model).fit(X, Y, batch_size=6, epochs=1, verbose=0, shuffle=False)
        model.save_weights(tmp_path / f"{lib.__name__}.weights.h5")
    mine, reference = (_optimizer_vars(tmp_path / "kgraph.weights.h5"),
                       _optimizer_vars(tmp_path / "keras.weights.h5"))
    assert len(mine) == len(reference) == 2 + (12 + 6 * 6) + 12  # accumulators, moments
    for a, b in zip(mine, reference):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)
    resumed = []
    for name in ("keras", "kgraph"):
        model = _model(kg)
        model.quantize("float8")
        compiled(kg, model).load_weights(tmp_path / f"{name}.weights.h5")
        resumed.append(model)
    for model in (theirs, *resumed):
        model.fit(X, Y, batch_size=6, epochs=1, verbose=0, shuffle=False)
    for model in resumed:
        _assert_same_weights(model, theirs)
        _assert_same_optimizer_variables(model, theirs)


def test_float8_scales_are_trainable_weights_the_list_api_overwrites_as_keras():
    """Keras lists the scales and histories with the trainable weights (its optimizer
    overwrites them with their gradient): the same lists here, and Keras's JAX training
    step (``stateless_call`` gradients, ``stateless_apply``) gives Keras's values."""
    dy = RNG.normal(size=(16, 4)).astype("float32")
    layers = []
    for lib in (keras, kg):
        layer = lib.layers.Dense(4, name="f8")
        layer.build((None, 6))
        layers.append(layer)
    theirs, ours = layers
    ours.set_weights([np.asarray(w) for w in theirs.get_weights()])
    for layer in layers:
        layer.quantize("float8")
    assert [w.name for w in ours.trainable_weights] == [w.name for w in theirs.trainable_weights]
    assert len(ours.trainable_weights) == 8 and ours.non_trainable_weights == []
    assert [w.overwrite_with_gradient for w in ours.trainable_weights] == [
        w.overwrite_with_gradient for w in theirs.trainable_weights]
    params, state = compiler.variables(kg.Sequential([kg.Input((6,)), ours]))
    assert set(params["f8"]) == {"kernel", "bias"} and len(state["f8"]) == 6
    for layer, lib in zip(layers, (keras, kg)):
        optimizer = lib.optimizers.SGD(0.1)
        optimizer.build(layer.trainable_variables)

        def loss(trainable, x, layer=layer):
            return (layer.stateless_call(trainable, [], x, training=True)[0] * dy).sum()

        grad_fn = jax.jit(jax.grad(loss))
        for _ in range(3):
            trainable = [v.value for v in layer.trainable_variables]
            grads = grad_fn(trainable, X)
            trainable, values = optimizer.stateless_apply(
                [v.value for v in optimizer.variables], grads, trainable)
            for variable, value in zip(layer.trainable_variables, trainable):
                variable.assign(value)
            for variable, value in zip(optimizer.variables, values):
                variable.assign(value)
    assert float(ours.kernel_scale) != 1.0 and np.asarray(ours.inputs_amax_history)[-2] > 0
    for a, b in zip(ours.weights, theirs.weights, strict=True):
        np.testing.assert_allclose(np.asarray(a.numpy()), np.asarray(b.numpy()), rtol=1e-5,
                                   atol=1e-6, err_msg=b.name)
