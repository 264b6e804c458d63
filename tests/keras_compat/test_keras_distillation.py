"""``kgraph.distillation`` trains, logs, configures and fails as ``keras.distillation``:
Keras 3 is the oracle (the same teacher, student, weights and data in both)."""

from __future__ import annotations

import warnings

import keras
import numpy as np
import pytest

import kgraph as kg

_data = np.random.default_rng(0)
X = _data.normal(size=(40, 4)).astype(np.float32)  # batches of 16: the last one has 8 rows
Y = _data.integers(0, 3, 40).astype(np.int32)


def _mlp(lib, width, name, outputs=3, inputs=4):
    x = lib.Input(shape=(inputs,))
    h = lib.layers.Dense(width, activation="relu", name="hidden")(x)
    return lib.Model(x, lib.layers.Dense(outputs, name="logits")(h), name=name)


def _pairs(student_width=5):
    """Keras's teacher and student (drawn from a fixed seed, whatever ran before), and
    kgraph's with Keras's weights."""
    keras.utils.set_random_seed(7)
    made = {keras: (_mlp(keras, 6, "teacher"), _mlp(keras, student_width, "student")),
            kg: (_mlp(kg, 6, "teacher"), _mlp(kg, student_width, "student"))}
    for ours, theirs in zip(made[kg], made[keras]):
        ours.set_weights([np.asarray(w) for w in theirs.get_weights()])
    return made


def _train_both(make_losses, student_width=5, epochs=2, **options):
    """Fit a distiller in each library: ``(histories, evaluations, student weights)``."""
    histories, evaluations, weights = [], [], []
    for lib, (teacher, student) in _pairs(student_width).items():
        distiller = lib.distillation.Distiller(teacher, student, make_losses(lib), **options)
        distiller.compile(optimizer=lib.optimizers.SGD(0.1),
                          loss=lib.losses.SparseCategoricalCrossentropy(from_logits=True),
                          metrics=["accuracy"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Keras's input-structure warning on extractors
            histories.append(distiller.fit(X, Y, batch_size=16, epochs=epochs, shuffle=False,
                                           verbose=0).history)
            evaluations.append(distiller.evaluate(X, Y, batch_size=16, verbose=0,
                                                  return_dict=True))
        weights.append(distiller.student.get_weights())
    return histories, evaluations, weights


def _same(ours, theirs):
    assert set(ours) == set(theirs), (sorted(ours), sorted(theirs))
    for name in theirs:
        np.testing.assert_allclose(np.asarray(ours[name]), np.asarray(theirs[name]),
                                   rtol=1e-5, atol=1e-6, err_msg=name)


def _check(make_losses, **options):
    (keras_history, history), (keras_eval, evaluation), (keras_w, w) = _train_both(
        make_losses, **options)
    _same(history, keras_history)
    _same(evaluation, keras_eval)
    for ours, theirs in zip(w, keras_w):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5)
    return history


LOGITS_LOSSES = {
    "default (the kl_divergence function, on scaled logits)": lambda lib: None,
    "a KLDivergence object (softmax, temperature squared)":
        lambda lib: lib.losses.KLDivergence(),
    "categorical_crossentropy": lambda lib: "categorical_crossentropy",
    "a CategoricalCrossentropy from logits":
        lambda lib: lib.losses.CategoricalCrossentropy(from_logits=True),
    "mse": lambda lib: "mse",
}


@pytest.mark.parametrize("loss", list(LOGITS_LOSSES))
def test_logits_distillation_trains_the_student_as_keras(loss):
    def make(lib):
        chosen = LOGITS_LOSSES[loss](lib)
        return lib.distillation.LogitsDistillation(
            temperature=2.5, **({} if chosen is None else {"loss": chosen}))

    history = _check(make)
    assert sorted(history) == ["accuracy", "distillation_loss", "loss", "student_loss",
                               "total_loss"]


def test_feature_distillation_of_named_layers_with_several_weighted_losses():
    def make(lib):
        return [lib.distillation.LogitsDistillation(temperature=2.0),
                lib.distillation.FeatureDistillation(loss="mse", teacher_layer_name="hidden",
                                                     student_layer_name="hidden"),
                lib.distillation.FeatureDistillation(loss=lib.losses.MeanAbsoluteError())]

    _check(make, student_width=6, distillation_loss_weights=[1.0, 0.3, 0.5],
           student_loss_weight=0.3)


@pytest.mark.parametrize("weight", [0.0, 1.0])
def test_student_loss_weight_extremes(weight):
    history = _check(lambda lib: lib.distillation.FeatureDistillation(
        loss="mae", teacher_layer_name="logits"), student_loss_weight=weight)
    zero = "student_loss" if weight == 0.0 else "distillation_loss"
    assert history[zero] == [0.0, 0.0]


def test_the_teacher_is_frozen_and_the_distiller_calls_the_student():
    teacher, student = _pairs()[kg]
    distiller = kg.distillation.Distiller(teacher, student,
                                          kg.distillation.LogitsDistillation())
    assert not teacher.trainable
    assert [id(v) for v in distiller.trainable_variables] == [
        id(v) for v in student.trainable_variables]
    assert len(distiller.non_trainable_variables) == len(teacher.weights)
    np.testing.assert_allclose(np.asarray(distiller(X)), np.asarray(student(X)), rtol=1e-6)
    before = [np.asarray(w) for w in teacher.get_weights()]
    distiller.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
    distiller.fit(X, Y, epochs=1, verbose=0)
    for ours, theirs in zip(teacher.get_weights(), before):
        np.testing.assert_array_equal(ours, theirs)


def _configs(make):
    made = []
    for lib, (teacher, student) in _pairs().items():
        made.append(make(lib, teacher, student).get_config())
    return made


def _without_ids(config):
    """A config with Keras's auto-named input layers and tensor names left out."""
    if isinstance(config, dict):
        return {key: _without_ids(value) for key, value in config.items()
                if key not in ("teacher", "student")}
    if isinstance(config, list):
        return [_without_ids(value) for value in config]
    return config


def test_configs_equal_keras_and_round_trip():
    def make(lib, teacher, student):
        return lib.distillation.Distiller(
            teacher, student,
            [lib.distillation.LogitsDistillation(temperature=4),
             lib.distillation.FeatureDistillation(loss=["mae"], teacher_layer_name="logits"),
             lib.distillation.FeatureDistillation(loss=lib.losses.MeanAbsoluteError())],
            distillation_loss_weights=[1.0, 0.5, 0.25], student_loss_weight=0.2)

    theirs, ours = _configs(make)
    assert sorted(ours) == sorted(theirs)
    assert _without_ids(ours) == _without_ids(theirs)
    assert ours["teacher"]["class_name"] == theirs["teacher"]["class_name"] == "Functional"
    rebuilt = kg.distillation.Distiller.from_config(ours)
    assert rebuilt.student_loss_weight == 0.2
    assert rebuilt.distillation_loss_weights == [1.0, 0.5, 0.25]
    assert [type(d).__name__ for d in rebuilt.distillation_losses] == [
        "LogitsDistillation", "FeatureDistillation", "FeatureDistillation"]
    assert _without_ids(rebuilt.get_config()) == _without_ids(ours)
    for cls in ("LogitsDistillation", "FeatureDistillation"):
        made = getattr(kg.distillation, cls)()
        again = type(made).from_config(made.get_config())
        assert again.get_config() == made.get_config() == getattr(
            keras.distillation, cls)().get_config()


def test_a_distiller_saves_and_loads_before_and_after_training(tmp_path):
    teacher, student = _pairs()[kg]
    distiller = kg.distillation.Distiller(teacher, student,
                                          kg.distillation.LogitsDistillation(),
                                          student_loss_weight=0.25)
    distiller.save(tmp_path / "untrained.keras")
    distiller.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
    distiller.fit(X, Y, epochs=1, verbose=0)
    distiller.save(tmp_path / "trained.keras")
    loaded = kg.saving.load_model(tmp_path / "trained.keras")
    assert type(loaded) is kg.distillation.Distiller and loaded.student_loss_weight == 0.25
    assert not loaded.teacher.trainable
    for ours, theirs in zip(loaded.get_weights(), distiller.get_weights()):
        np.testing.assert_array_equal(ours, theirs)


ERRORS = {
    "output shapes": (lambda lib: lib.distillation.Distiller(
        _mlp(lib, 6, "t"), _mlp(lib, 5, "s", outputs=4), lib.distillation.LogitsDistillation()),
        r"output shapes are incompatible. Teacher: \(None, 3\), Student: \(None, 4\)"),
    "input shapes": (lambda lib: lib.distillation.Distiller(
        _mlp(lib, 6, "t"), _mlp(lib, 5, "s", inputs=5), lib.distillation.LogitsDistillation()),
        r"input shapes are incompatible. Teacher: \(None, 4\), Student: \(None, 5\)"),
    "teacher layer": (lambda lib: lib.distillation.Distiller(
        _mlp(lib, 6, "t"), _mlp(lib, 5, "s"),
        lib.distillation.FeatureDistillation(teacher_layer_name="nope")),
        "In teacher model: No such layer: '?nope"),
    "student layer": (lambda lib: lib.distillation.Distiller(
        _mlp(lib, 6, "t"), _mlp(lib, 5, "s"),
        lib.distillation.FeatureDistillation(student_layer_name="nope")),
        "In student model: No such layer: '?nope"),
    "student_loss_weight": (lambda lib: lib.distillation.Distiller(
        _mlp(lib, 6, "t"), _mlp(lib, 5, "s"), lib.distillation.LogitsDistillation(),
        student_loss_weight=1.5), "student_loss_weight must be between 0.0 and 1.0, got 1.5"),
    "no losses": (lambda lib: lib.distillation.Distiller(
        _mlp(lib, 6, "t"), _mlp(lib, 5, "s"), None), "'distillation_losses' cannot be `None`"),
    "weights": (lambda lib: lib.distillation.Distiller(
        _mlp(lib, 6, "t"), _mlp(lib, 5, "s"), [lib.distillation.LogitsDistillation()],
        [1.0, 2.0]), r"distillation_loss_weights \(2\) must match number of "
                     r"distillation_losses \(1\)"),
    "not a model": (lambda lib: lib.distillation.Distiller(
        lib.layers.Dense(3), _mlp(lib, 5, "s"), lib.distillation.LogitsDistillation()),
        "(?i)teacher must be a (keras|kgraph).Model, got"),
    "temperature": (lambda lib: lib.distillation.LogitsDistillation(temperature=0),
                    "temperature must be positive"),
    "temperature type": (lambda lib: lib.distillation.LogitsDistillation(temperature="3"),
                         "temperature must be a number, got <class 'str'>"),
    "all-None feature loss": (lambda lib: lib.distillation.FeatureDistillation(loss=[None]),
                              "must contain at least one non-`None` value"),
    "all-None logits loss": (lambda lib: lib.distillation.LogitsDistillation(loss=[None]),
                             "(?i)at least one loss must be non-`None`"),
    "unknown loss": (lambda lib: lib.distillation.LogitsDistillation(loss="nope"),
                     "Could not interpret loss identifier: nope"),
    "compile without a loss": (lambda lib: lib.distillation.Distiller(
        _mlp(lib, 6, "t"), _mlp(lib, 5, "s"), lib.distillation.LogitsDistillation()).compile(
        "sgd"), "'loss' cannot be `None`"),
    "metrics not a list": (lambda lib: lib.distillation.Distiller(
        _mlp(lib, 6, "t"), _mlp(lib, 5, "s"), lib.distillation.LogitsDistillation()).compile(
        "sgd", "mse", metrics="mae"), "metrics must be a list or tuple, got <class 'str'>"),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors_keras_raises(case):
    make, message = ERRORS[case]
    for lib in (keras, kg):
        with pytest.raises(ValueError, match=message):
            make(lib)


def test_our_messages_name_the_class():
    with pytest.raises(ValueError, match="^Distiller: student_loss_weight"):
        kg.distillation.Distiller(_mlp(kg, 6, "t"), _mlp(kg, 5, "s"),
                                  kg.distillation.LogitsDistillation(), student_loss_weight=-1)
    with pytest.raises(ValueError, match="^LogitsDistillation: temperature must be positive, "
                                         "received -2"):
        kg.distillation.LogitsDistillation(temperature=-2)


def test_a_custom_distillation_loss_must_return_a_scalar():
    class PerSample(kg.distillation.DistillationLoss):
        def compute_loss(self, teacher_outputs, student_outputs, **kwargs):
            return kg.ops.mean((teacher_outputs - student_outputs) ** 2, axis=-1)

    teacher, student = _pairs()[kg]
    distiller = kg.distillation.Distiller(teacher, student, PerSample())
    distiller.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
    with pytest.raises(ValueError, match="PerSample returned a non-scalar loss with shape "
                                         r"\(40,\)"):
        distiller.compute_loss(X, Y, distiller(X))


def test_sample_weights_weighted_metrics_and_validation_log_as_keras():
    weights = np.random.default_rng(1).uniform(0.2, 2.0, 40).astype(np.float32)
    histories, students = [], []
    for lib, (teacher, student) in _pairs().items():
        distiller = lib.distillation.Distiller(
            teacher, student, lib.distillation.LogitsDistillation(loss=lib.losses.KLDivergence()),
            student_loss_weight=0.7)
        distiller.compile(optimizer=lib.optimizers.Adam(0.01),
                          loss=lib.losses.SparseCategoricalCrossentropy(from_logits=True),
                          metrics=["accuracy"], weighted_metrics=["accuracy"])
        histories.append(distiller.fit(X, Y, sample_weight=weights, batch_size=16, epochs=2,
                                       shuffle=False, verbose=0,
                                       validation_split=0.25).history)
        students.append(student.get_weights())
    _same(histories[1], histories[0])
    assert "val_distillation_loss" in histories[1]
    for ours, theirs in zip(*students[::-1]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5)
