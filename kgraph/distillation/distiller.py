"""``Distiller``: a model training a student from its labels and a frozen teacher."""

from __future__ import annotations

import jax

from kgraph import metrics, ops, saving, tree
from kgraph.distillation.distillation_loss import (
    deserialize_distillation_loss, loss_function, serialize_distillation_loss, symbolic_inputs,
    symbolic_outputs)
from kgraph.models import tracing
from kgraph.models.model import Model
from kgraph.utils.data_utils import unpack_x_y_sample_weight

__all__ = ["Distiller"]


class Distiller(Model):
    """A model training ``student`` from its labels and from a frozen ``teacher``.

    The total loss is ``student_loss_weight * student_loss + (1 - student_loss_weight) *
    sum(weight * distillation_loss)``; ``compile``'s ``loss`` is the student's own loss.
    Calling the distiller calls the student; ``distiller.student`` is the trained model.

    >>> import kgraph as kg
    >>> def mlp(width):
    ...     x = kg.Input(shape=(4,))
    ...     return kg.Model(x, kg.layers.Dense(3)(kg.layers.Dense(width)(x)))
    >>> distiller = kg.distillation.Distiller(
    ...     mlp(8), mlp(4), kg.distillation.LogitsDistillation(), student_loss_weight=0.3)
    >>> distiller.teacher.trainable, len(distiller.trainable_variables)
    (False, 4)
    """

    def __init__(self, teacher, student, distillation_losses, distillation_loss_weights=None,
                 student_loss_weight=0.5, name="distiller", **kwargs):
        super().__init__(name=name, **kwargs)
        self._check_models(teacher, student)
        self.teacher = teacher
        self.student = student
        if isinstance(student_loss_weight, bool) or not isinstance(student_loss_weight,
                                                                   (int, float)):
            raise ValueError(f"Distiller: student_loss_weight must be a number, got "
                             f"{type(student_loss_weight)}.")
        if not 0.0 <= student_loss_weight <= 1.0:
            raise ValueError(f"Distiller: student_loss_weight must be between 0.0 and 1.0, "
                             f"got {student_loss_weight}.")
        self.student_loss_weight = student_loss_weight
        if distillation_losses is None:
            raise ValueError("Distiller: 'distillation_losses' cannot be `None`. Provide a "
                             "distillation loss (e.g., LogitsDistillation or "
                             "FeatureDistillation) or a list of distillation losses.")
        if not isinstance(distillation_losses, (list, tuple)):
            distillation_losses, distillation_loss_weights = [distillation_losses], [1.0]
        elif distillation_loss_weights is None:
            distillation_loss_weights = [1.0] * len(distillation_losses)
        elif len(distillation_loss_weights) != len(distillation_losses):
            raise ValueError(
                f"Distiller: number of distillation_loss_weights "
                f"({len(distillation_loss_weights)}) must match number of "
                f"distillation_losses ({len(distillation_losses)}).")
        self.distillation_losses = list(distillation_losses)
        self.distillation_loss_weights = list(distillation_loss_weights)
        for distillation_loss in self.distillation_losses:
            distillation_loss.validate_model_compatibility(teacher, student)
        self.teacher.trainable = False
        # Models reading the named layers' outputs along with the final one (not tracked:
        # they share the teacher's and the student's layers).
        self.__dict__["_extractors"] = (
            self._extractor(teacher, [getattr(d, "teacher_layer_name", None)
                                      for d in self.distillation_losses]),
            self._extractor(student, [getattr(d, "student_layer_name", None)
                                      for d in self.distillation_losses]))
        self.__dict__["_trackers"] = [metrics.Mean(name=name) for name in (
            "student_loss", "distillation_loss", "total_loss")]
        self.__dict__["_student_loss"] = None
        inputs = symbolic_inputs(student)
        if student.built and inputs is not None and len(inputs) == 1:
            # weights exist already: build now, so the distiller saves before training
            tracing.trace_call(self, (tuple(inputs[0].shape), inputs[0].dtype))
            self.built = True

    # Keras's attribute names of the trackers
    @property
    def student_loss_tracker(self):
        return self._trackers[0]

    @property
    def distillation_loss_tracker(self):
        return self._trackers[1]

    @property
    def total_loss_tracker(self):
        return self._trackers[2]

    @staticmethod
    def _check_models(teacher, student):
        for role, model in (("Teacher", teacher), ("Student", student)):
            if not isinstance(model, Model):
                raise ValueError(f"Distiller: {role.lower()} must be a kgraph Model, got "
                                 f"{type(model)}.")
        for context, read in (("input", symbolic_inputs), ("output", symbolic_outputs)):
            ours, theirs = read(teacher), read(student)
            if ours is None or theirs is None:
                continue
            ours, theirs = list(tree.flatten(ours)), list(tree.flatten(theirs))
            if len(ours) != len(theirs):
                raise ValueError(f"Distiller: teacher and student have different numbers of "
                                 f"{context}s. Teacher: {len(ours)}, Student: {len(theirs)}.")
            for t, s in zip(ours, theirs):
                t_shape, s_shape = tuple(t.shape), tuple(s.shape)
                if len(t_shape) != len(s_shape):
                    raise ValueError(
                        f"Distiller: teacher and student {context} shapes have different "
                        f"dimensions. Teacher: {t_shape}, Student: {s_shape}.")
                if any(a is not None and b is not None and a != b
                       for a, b in zip(t_shape, s_shape)):
                    raise ValueError(
                        f"Distiller: teacher and student {context} shapes are incompatible. "
                        f"Teacher: {t_shape}, Student: {s_shape}. All dimensions must match.")
                if str(t.dtype) != str(s.dtype):
                    raise ValueError(f"Distiller: teacher and student {context} dtypes must "
                                     f"match. Teacher: {t.dtype}, Student: {s.dtype}.")

    @staticmethod
    def _extractor(model, layer_names):
        names = list(dict.fromkeys(name for name in layer_names if name))
        if not names:
            return None
        if symbolic_inputs(model) is None:
            raise ValueError(f"Cannot create feature extractor for {model.name}. The model "
                             "has no symbolic inputs attribute.")
        outputs = {"final_output": model.output}
        for name in names:
            outputs[name] = model.get_layer(name=name).output
        return Model(inputs=model.inputs, outputs=outputs,
                     name=f"{model.name}_multi_feature_extractor")

    def compile(self, optimizer="adam", loss=None, metrics=None, **kwargs):
        """``loss``: the student's supervised loss (required); ``metrics`` a list."""
        if loss is None:
            raise ValueError("Distiller.compile: 'loss' cannot be `None`; pass the student's "
                             "loss, e.g. loss='sparse_categorical_crossentropy'.")
        if metrics is not None and not isinstance(metrics, (list, tuple)):
            raise ValueError(f"Distiller.compile: metrics must be a list or tuple, got "
                             f"{type(metrics)}.")
        self.__dict__["_student_loss"] = tree.map_structure(loss_function, loss)
        super().compile(optimizer=optimizer, loss=None, metrics=metrics, **kwargs)

    def call(self, inputs, training=None):
        return self.student(inputs, training=training)

    @property
    def metrics(self) -> list:
        """Keras's: the compiled ones, then student, distillation and total loss means."""
        return [*super().metrics, *self._trackers]

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        """The weighted sum of the student's loss and the distillation losses."""
        if y_pred is None:
            y_pred = self(x, training=training)
        student_loss = 0.0
        if self.student_loss_weight > 0.0 and y is not None:
            if self._student_loss is None:
                raise RuntimeError("Distiller: call compile(optimizer, loss) before "
                                   "computing its loss.")
            values = tree.flatten(tree.map_structure(
                lambda fn, target, output: fn(target, output), self._student_loss, y,
                y_pred))
            student_loss = ops.sum(ops.stack(values)) if len(values) > 1 else values[0]
            if len(ops.shape(student_loss)) > 0:
                student_loss = ops.mean(student_loss)
        distillation_loss = 0.0
        if self.student_loss_weight < 1.0:
            teacher_extractor, student_extractor = self._extractors
            teacher_features = (teacher_extractor(x, training=False) if teacher_extractor
                                else {"final_output": self.teacher(x, training=False)})
            student_features = (student_extractor(x, training=True) if student_extractor
                                else {"final_output": y_pred})
            for loss_fn, weight in zip(self.distillation_losses,
                                       self.distillation_loss_weights):
                if getattr(loss_fn, "teacher_layer_name", None) is not None:
                    teacher_out = teacher_features[loss_fn.teacher_layer_name]
                    student_out = student_features[
                        loss_fn.student_layer_name or "final_output"]
                else:
                    teacher_out, student_out = teacher_features["final_output"], y_pred
                loss_fn.validate_outputs(teacher_out, student_out)
                value = loss_fn.compute_loss(teacher_out, student_out)
                if len(ops.shape(value)) > 0:
                    raise ValueError(
                        f"Distillation loss {type(loss_fn).__name__} returned a non-scalar "
                        f"loss with shape {tuple(ops.shape(value))}. The compute_loss method "
                        "must return a scalar tensor.")
                distillation_loss = distillation_loss + weight * value
        total = (self.student_loss_weight * ops.convert_to_tensor(student_loss, "float32")
                 + (1.0 - self.student_loss_weight)
                 * ops.convert_to_tensor(distillation_loss, "float32"))
        for tracker, value in zip(self._trackers, (student_loss, distillation_loss, total)):
            tracker.update_state(value)
        return total

    def _step_logs(self, metrics_variables, loss, x, y, y_pred, sample_weight):
        """Update the loss tracker and the compiled metrics (the distillation trackers
        were updated by ``compute_loss``); the logs are every metric's result."""
        leaves = jax.tree_util.tree_leaves(x)
        batch = float(leaves[0].shape[0]) if leaves and leaves[0].ndim else 1.0
        logs, new, position = {}, [], 0
        for index, metric in enumerate(self.metrics):
            count = len(metric.stateless_reset_state())
            own = list(metrics_variables[position:position + count])
            position += count
            if index == 0 and metric.name == "loss" and metric not in self._trackers:
                own = metric.stateless_update_state(own, loss, sample_weight=batch)
            elif metric.name == "compile_metrics":
                own = metric.stateless_update_state(own, y, y_pred, sample_weight)
            result = metric.stateless_result(own)
            logs.update(result if isinstance(result, dict) else {metric.name: result})
            new += own
        return logs, new

    def _loss_and_updates(self, trainable, non_trainable, metrics_variables, x, y,
                          sample_weight, training):
        y_pred, non_trainable = self.stateless_call(trainable, non_trainable, x,
                                                    training=training)
        loss, (_, non_trainable, metrics_variables) = self.stateless_compute_loss(
            trainable, non_trainable, metrics_variables, x=x, y=y, y_pred=y_pred,
            sample_weight=sample_weight, training=training)
        return loss, (y_pred, non_trainable, metrics_variables)

    def train_step(self, state, data):
        trainable, non_trainable, optimizer_variables, metrics_variables = state
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        optimizer = self.optimizer

        def loss_of(trainable):
            loss, aux = self._loss_and_updates(trainable, non_trainable, metrics_variables,
                                               x, y, sample_weight, True)
            scaled = (optimizer.stateless_scale_loss(optimizer_variables, loss)
                      if hasattr(optimizer, "stateless_scale_loss") else loss)
            return scaled, (loss, aux)

        (_, (loss, (y_pred, non_trainable, metrics_variables))), grads = (
            jax.value_and_grad(loss_of, has_aux=True)(trainable))
        trainable, optimizer_variables = optimizer.stateless_apply(optimizer_variables, grads,
                                                                   trainable)
        logs, metrics_variables = self._step_logs(metrics_variables, loss, x, y, y_pred,
                                                  sample_weight)
        return logs, (trainable, non_trainable, optimizer_variables, metrics_variables)

    def test_step(self, state, data):
        trainable, non_trainable, metrics_variables = state
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        loss, (y_pred, non_trainable, metrics_variables) = self._loss_and_updates(
            trainable, non_trainable, metrics_variables, x, y, sample_weight, False)
        logs, metrics_variables = self._step_logs(metrics_variables, loss, x, y, y_pred,
                                                  sample_weight)
        return logs, (trainable, non_trainable, metrics_variables)

    def reset_metrics(self):
        for tracker in self._trackers:
            tracker.reset_state()
        parent = getattr(super(), "reset_metrics", None)
        if parent is not None:
            parent()

    def get_config(self):
        config = {"name": self.name, "trainable": self.trainable,
                  "dtype": saving.serialize_keras_object(self.dtype_policy)}
        config.update({
            "teacher": saving.serialize_keras_object(self.teacher),
            "student": saving.serialize_keras_object(self.student),
            "distillation_losses": [serialize_distillation_loss(d)
                                    for d in self.distillation_losses],
            "distillation_loss_weights": list(self.distillation_loss_weights),
            "student_loss_weight": self.student_loss_weight})
        return config

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config["teacher"] = saving.deserialize_keras_object(config["teacher"])
        config["student"] = saving.deserialize_keras_object(config["student"])
        config["distillation_losses"] = [deserialize_distillation_loss(d)
                                         for d in config["distillation_losses"]]
        return cls(**config)

