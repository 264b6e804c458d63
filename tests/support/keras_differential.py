"""A seeded generator of small training scripts, each run under Keras 3 (JAX backend) and
under kgraph, for the differential test (``tests/keras_compat/test_keras_differential.py``).

``draw(seed)`` makes a ``Script``: a random graph of named layers (Dense with an
activation, LayerNormalization, BatchNormalization, Add and Concatenate of earlier tensors,
one or two heads: regression, classes, binary), written functionally, as a subclass
overriding ``compute_loss``, as a subclass overriding ``train_step`` in Keras's JAX form, or
as a subclassed model of nested custom layers with constructor arguments (one head), saved
to a ``.keras`` file and loaded back after training; sometimes quantized to float8 before
training; compile options (an optimizer class, sometimes with ``use_ema`` and
``gradient_accumulation_steps`` together, a loss per head, ``metrics``,
``weighted_metrics``, ``loss_weights``); fit options (``batch_size``, ``epochs``,
``class_weight``, ``sample_weight``, ``validation_split`` / ``validation_data``,
``validation_freq``, ``initial_epoch``, ``steps_per_epoch``, always ``shuffle=False``);
callbacks that change the learning rate (per epoch, or assigned in ``on_epoch_begin``), set
the weights, stop early, or stop in ``on_epoch_begin``; and sometimes a second ``fit`` after
compiling again with the same optimizer. ``run(script, lib)`` runs it with ``lib`` (the
``keras`` or ``kgraph`` module) from given initial weights and returns the histories, an
``evaluate`` (as a dict, and as the list ``evaluate`` returns without ``return_dict``), the
final weights, and the reloaded model's predictions.
"""

from __future__ import annotations

import dataclasses

import jax
import numpy as np

ROWS, VALIDATION_ROWS, WIDTH = 36, 12, 5


@dataclasses.dataclass
class Script:
    seed: int
    form: str  # "functional", "compute_loss" or "train_step"
    layers: list  # (kind, name, arguments, input indices)
    heads: list  # (kind, name, units, source index)
    optimizer: tuple  # (class name, {arguments})
    losses: dict
    metrics: dict
    weighted_metrics: dict
    loss_weights: dict | None
    fit: dict
    callbacks: list
    recompile: bool
    float8: bool = False  # quantized to float8 before training (a functional model)

    def describe(self) -> str:
        layers = ", ".join(f"{kind}{arguments or ''}<-{inputs}"
                           for kind, _, arguments, inputs in self.layers)
        heads = ", ".join(f"{kind}:{units}" for kind, _, units, _ in self.heads)
        fit = {k: v for k, v in self.fit.items() if k not in ("sample_weight",)}
        return (f"seed {self.seed}: {self.form}{' float8' if self.float8 else ''}; "
                f"[{layers}] -> [{heads}]; {self.optimizer}; "
                f"losses {self.losses} metrics {self.metrics} weighted {self.weighted_metrics}"
                f" loss_weights {self.loss_weights}; fit {fit}"
                f"{' sample_weight' if 'sample_weight' in self.fit else ''}; callbacks "
                f"{self.callbacks}{'; compiled again' if self.recompile else ''}")


def draw(seed: int) -> Script:
    rng = np.random.default_rng([seed, 1234])
    layers, widths = [], [WIDTH]  # tensor 0 is the input
    for index in range(int(rng.integers(2, 6))):
        kind = str(rng.choice(["dense", "dense", "dense", "layer_norm", "batch_norm", "add",
                               "concat"]))
        name = f"l{index}"
        source = int(rng.integers(len(widths)))
        if kind == "batch_norm":
            # on the inputs only: after a Dense, training-mode statistics cancel its bias,
            # whose gradient is then float round-off that Adam scales up to full steps
            source = 0
        if kind in ("add", "concat"):
            other = int(rng.integers(len(widths)))
            if kind == "add":
                same = [i for i, w in enumerate(widths) if w == widths[source] and i != source]
                if not same:
                    kind = "dense"
                else:
                    other = int(rng.choice(same))
            if kind != "dense":
                layers.append((kind, name, None, [source, other]))
                widths.append(widths[source] + widths[other] if kind == "concat"
                              else widths[source])
                continue
        if kind == "dense":
            units = int(rng.integers(3, 7))
            activation = str(rng.choice(["linear", "relu", "tanh", "sigmoid"]))
            layers.append(("dense", name, {"units": units, "activation": activation}, [source]))
            widths.append(units)
        else:
            layers.append((kind, name, {}, [source]))
            widths.append(widths[source])
    heads = []
    for index in range(1 if rng.random() < 0.7 else 2):
        kind = str(rng.choice(["regression", "classes", "binary"]))
        units = {"regression": int(rng.integers(1, 3)), "classes": 3, "binary": 1}[kind]
        heads.append((kind, f"out{index}", units, len(widths) - 1 - index))
    form = str(rng.choice(["functional", "functional", "compute_loss", "train_step",
                           "subclass"]))
    if form == "subclass" and (len(heads) > 1 or len(dense_widths(layers)) < 1):
        form = "functional"
    if form == "train_step" and len(heads) > 1:
        # the guide's step feeds (y, y_pred) to every metric, and a per-output loss tracker
        # is a mean of one value (it fails under Keras too)
        form = "compute_loss"
    losses, metrics, weighted = {}, {}, {}
    for kind, name, _, _ in heads:
        losses[name] = str(rng.choice({"regression": ["mse", "mae", "huber"],
                                       "classes": ["sparse_categorical_crossentropy"],
                                       "binary": ["binary_crossentropy"]}[kind]))
        options = {"regression": ["mae", "mse"], "classes": ["accuracy"],
                   "binary": ["accuracy", "mae"]}[kind]
        metrics[name] = [str(m) for m in rng.choice(options, int(rng.integers(0, 3)))]
        weighted[name] = [str(m) for m in rng.choice(options, int(rng.integers(0, 2)))]
    loss_weights = ({name: float(rng.choice([0.5, 1.0, 2.0])) for _, name, _, _ in heads}
                    if len(heads) > 1 and rng.random() < 0.5 else None)
    optimizer = [("SGD", {"learning_rate": 0.05}),
                 ("SGD", {"learning_rate": 0.05, "momentum": 0.9}),
                 ("Adam", {"learning_rate": 0.01}),
                 ("RMSprop", {"learning_rate": 0.005})][int(rng.integers(4))]
    ema_with_accumulation = rng.random() < 0.2  # the moving average and accumulation
    if ema_with_accumulation and form in ("functional", "compute_loss", "train_step"):
        # (Keras 3.15 itself fails them in a subclassed model or compiled again: a buffer
        # donated twice, a variable without value)
        optimizer = (optimizer[0], {**optimizer[1], "use_ema": True, "ema_momentum": 0.9,
                                    "gradient_accumulation_steps": 2})
    fit = {"batch_size": int(rng.choice([8, 16])), "epochs": int(rng.integers(1, 4))}
    classes_only = len(heads) == 1 and heads[0][0] == "classes"
    if classes_only and rng.random() < 0.4:
        fit["class_weight"] = {0: 1.0, 1: float(rng.choice([0.5, 2.0])), 2: 1.5}
    elif rng.random() < 0.4:
        fit["sample_weight"] = rng.uniform(0.2, 2.0, ROWS).astype(np.float32)
    validation = rng.random()
    if validation < 0.3:
        fit["validation_split"] = 0.25
    elif validation < 0.6:
        fit["validation_data"] = True  # made with the data
    if "validation_split" in fit or "validation_data" in fit:
        fit["validation_freq"] = int(rng.choice([1, 1, 2]))
    if fit["epochs"] > 1 and rng.random() < 0.25:
        fit["initial_epoch"] = 1
    if rng.random() < 0.25:
        fit["steps_per_epoch"] = 2
    callbacks = [str(c) for c in rng.choice(["learning_rate", "set_weights", "stop_early",
                                             "begin_learning_rate", "begin_stop"],
                                            int(rng.integers(0, 3)), replace=False)]
    float8 = bool(form == "functional" and rng.random() < 0.25)
    recompile = bool(rng.random() < 0.25) and not optimizer[1].get("use_ema")
    return Script(seed, form, layers, heads, optimizer, losses, metrics, weighted,
                  loss_weights, fit, callbacks, recompile, float8)


def dense_widths(layers) -> list:
    """The widths of the script's Dense layers: a subclassed model's blocks."""
    return [arguments["units"] for kind, _, arguments, _ in layers if kind == "dense"]


# ---------------------------------------------------------------------------- running
def half_loss(base):
    """A subclass of ``base`` (a ``Model`` class) whose ``compute_loss`` is half Keras's."""
    class HalfLoss(base):
        def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None,
                         training=True):
            return 0.5 * super().compute_loss(x=x, y=y, y_pred=y_pred,
                                              sample_weight=sample_weight, training=training)

    return HalfLoss


def guide_train_step(base):
    """A subclass of ``base`` with the ``train_step`` of keras.io's "Customizing fit() with
    JAX" guide (its helper renamed, so Keras's own ``test_step`` keeps its own)."""
    import jax

    class OwnStep(base):
        def _loss_and_updates(self, trainable, non_trainable, x, y, training=False):
            y_pred, non_trainable = self.stateless_call(trainable, non_trainable, x,
                                                        training=training)
            return self.compute_loss(x, y, y_pred), (y_pred, non_trainable)

        def train_step(self, state, data):
            trainable, non_trainable, optimizer_variables, metrics_variables = state
            x, y = data[0], data[1]
            grad_fn = jax.value_and_grad(self._loss_and_updates, has_aux=True)
            (loss, (y_pred, non_trainable)), grads = grad_fn(trainable, non_trainable, x, y,
                                                             training=True)
            trainable, optimizer_variables = self.optimizer.stateless_apply(
                optimizer_variables, grads, trainable)
            new_metrics, logs = [], {}
            for metric in self.metrics:
                start = len(new_metrics)
                own = metrics_variables[start:start + len(metric.variables)]
                if metric.name == "loss":
                    own = metric.stateless_update_state(own, loss)
                else:
                    own = metric.stateless_update_state(own, y, y_pred)
                logs[metric.name] = metric.stateless_result(own)
                new_metrics += own
            return logs, (trainable, non_trainable, optimizer_variables, new_metrics)

    return OwnStep


_SUBCLASSES: dict = {}
HEAD_ACTIVATIONS = {"regression": None, "classes": "softmax", "binary": "sigmoid"}


def subclassed_classes(lib):
    """``(Block, Net)`` of ``lib``, registered for files (made once per library): ``Block``
    a custom layer whose constructor takes arguments and whose config is left to the
    library (no ``get_config``), holding a nested ``Dense``; ``Net`` a subclassed model of
    blocks and a head, with its own ``get_config``."""
    if lib.__name__ in _SUBCLASSES:
        return _SUBCLASSES[lib.__name__]
    register = lib.saving.register_keras_serializable(package="differential")

    @register
    class Block(lib.layers.Layer):
        def __init__(self, units, activation="linear", scale=1.0, **kwargs):
            super().__init__(**kwargs)
            self.scale = scale
            self.inner = lib.layers.Dense(units, activation=activation, name="inner")

        def call(self, x):
            return self.inner(x) * self.scale

    @register
    class Net(lib.Model):
        def __init__(self, widths, activations, units, head_activation=None, **kwargs):
            super().__init__(**kwargs)
            self.widths, self.activations, self.units = list(widths), list(activations), units
            self.head_activation = head_activation
            self.blocks = [Block(w, a, scale=1.0 + 0.25 * i, name=f"block{i}")
                           for i, (w, a) in enumerate(zip(widths, activations))]
            self.head = lib.layers.Dense(units, activation=head_activation, name="out0")

        def call(self, x):
            for block in self.blocks:
                x = block(x)
            return self.head(x)

        def get_config(self):
            return {**super().get_config(), "widths": self.widths,
                    "activations": self.activations, "units": self.units,
                    "head_activation": self.head_activation}

    _SUBCLASSES[lib.__name__] = (Block, Net)
    return Block, Net


def _form_class(lib, form):
    if form == "compute_loss":
        return half_loss(lib.Model)
    if form == "train_step":
        return guide_train_step(lib.Model)
    return lib.Model


def build(script: Script, lib):
    """The script's model in ``lib`` (every layer named, so both libraries agree), built."""
    if script.form == "subclass":
        _, net_class = subclassed_classes(lib)
        dense = [arguments for kind, _, arguments, _ in script.layers if kind == "dense"]
        kind, _, units, _ = script.heads[0]
        model = net_class([d["units"] for d in dense], [d["activation"] for d in dense],
                          units, HEAD_ACTIVATIONS[kind], name="net")
        model(np.zeros((1, WIDTH), np.float32))
        return model
    x = lib.Input(shape=(WIDTH,), name="x")
    tensors = [x]
    for kind, name, arguments, inputs in script.layers:
        sources = [tensors[i] for i in inputs]
        if kind == "dense":
            layer = lib.layers.Dense(name=name, **arguments)
        elif kind == "layer_norm":
            layer = lib.layers.LayerNormalization(name=name)
        elif kind == "batch_norm":
            layer = lib.layers.BatchNormalization(name=name)
        elif kind == "add":
            layer = lib.layers.Add(name=name)
        else:
            layer = lib.layers.Concatenate(name=name)
        tensors.append(layer(sources if kind in ("add", "concat") else sources[0]))
    outputs = {}
    for kind, name, units, source in script.heads:
        activation = HEAD_ACTIVATIONS[kind]
        outputs[name] = lib.layers.Dense(units, activation=activation, name=name)(
            tensors[source])
    heads = list(outputs.values())
    return _form_class(lib, script.form)(x, heads[0] if len(heads) == 1 else heads)


def data(script: Script):
    """``(x, targets, x_val, val_targets)``, the targets a list per head, fixed by the
    script's seed."""
    rng = np.random.default_rng([script.seed, 99])
    rows = ROWS + VALIDATION_ROWS
    x = rng.normal(size=(rows, WIDTH)).astype(np.float32)
    targets = []
    for kind, _, units, _ in script.heads:
        if kind == "regression":
            targets.append(rng.normal(size=(rows, units)).astype(np.float32))
        elif kind == "classes":
            targets.append(rng.integers(0, 3, rows).astype(np.int32))
        else:
            targets.append(rng.integers(0, 2, (rows, 1)).astype(np.float32))
    return (x[:ROWS], [t[:ROWS] for t in targets], x[ROWS:], [t[ROWS:] for t in targets])


def _callbacks(script, lib):
    made = []
    if "learning_rate" in script.callbacks:
        made.append(lib.callbacks.LearningRateScheduler(lambda epoch, rate: rate * 0.5))

    class SetWeights(lib.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            self.model.set_weights([w * 0.9 for w in self.model.get_weights()])

    if "set_weights" in script.callbacks:
        made.append(SetWeights())
    if "stop_early" in script.callbacks:
        made.append(lib.callbacks.EarlyStopping(monitor="loss", patience=0, min_delta=10.0))

    class AtEpochBegin(lib.callbacks.Callback):
        """Acts as an epoch begins: halves the learning rate, or stops at the second epoch."""

        def __init__(self, action):
            super().__init__()
            self.action = action

        def on_epoch_begin(self, epoch, logs=None):
            if self.action == "begin_learning_rate":
                rate = self.model.optimizer.learning_rate
                rate.assign(float(np.asarray(rate)) * 0.5)
            elif epoch >= 1 + script.fit.get("initial_epoch", 0):
                self.model.stop_training = True

    made += [AtEpochBegin(action) for action in script.callbacks if action.startswith("begin_")]
    return made


def _targets(values, single):
    return values[0] if single else list(values)


def run(script: Script, lib, weights, folder=None):
    """The script under ``lib`` from ``weights``: ``{"histories", "evaluate", "evaluate
    list", "weights"}``, and for a subclassed model ``"reloaded"``: the predictions of the
    model saved to a ``.keras`` file in ``folder`` and loaded back. A float8 script runs in
    float64: quantizing to float8 turns a last-bit difference of two float32 programs into a
    whole float8 step near a rounding boundary."""
    if not script.float8:
        return _run(script, lib, weights, folder)
    with jax.enable_x64(True):
        lib.config.set_dtype_policy("float64")
        try:
            return _run(script, lib, weights, folder)
        finally:
            lib.config.set_dtype_policy("float32")


def _run(script, lib, weights, folder):
    model = build(script, lib)
    model.set_weights([np.asarray(w) for w in weights])
    if script.float8:
        model.quantize("float8")
    name, arguments = script.optimizer
    single = len(script.heads) == 1

    def per_head(spec):
        return spec[script.heads[0][1]] if single else [spec[h[1]] for h in script.heads]

    compile_options = dict(loss=per_head(script.losses), metrics=per_head(script.metrics),
                           weighted_metrics=per_head(script.weighted_metrics))
    if script.loss_weights is not None:
        compile_options["loss_weights"] = per_head(script.loss_weights)
    model.compile(optimizer=getattr(lib.optimizers, name)(**arguments), **compile_options)
    x, train, x_val, validation = data(script)
    y, y_val = _targets(train, single), _targets(validation, single)
    fit = dict(script.fit)
    if fit.pop("validation_data", None):
        fit["validation_data"] = (x_val, y_val)
    histories = [model.fit(x, y, shuffle=False, verbose=0, callbacks=_callbacks(script, lib),
                           **fit).history]
    if script.recompile:
        compile_options["metrics"] = per_head({  # a metric more, as a user adding one
            h[1]: ["accuracy" if h[0] == "classes" else "mse"] for h in script.heads})
        model.compile(optimizer=model.optimizer, **compile_options)
        histories.append(model.fit(x, y, shuffle=False, verbose=0, epochs=1,
                                   batch_size=fit["batch_size"]).history)
    evaluated = model.evaluate(x_val, y_val, verbose=0, return_dict=True)
    as_list = model.evaluate(x_val, y_val, verbose=0)
    result = {"histories": histories, "evaluate": evaluated,
              "evaluate list": np.atleast_1d(np.asarray(as_list, np.float64)).tolist(),
              "weights": [np.asarray(w) for w in model.get_weights()]}
    if script.form == "subclass" and folder is not None:
        path = f"{folder}/{lib.__name__}.keras"
        model.save(path)
        reloaded = lib.saving.load_model(path)
        result["reloaded"] = np.asarray(reloaded.predict(x_val, verbose=0))
        result["predicted"] = np.asarray(model.predict(x_val, verbose=0))
    return result
