"""``keras.distillation``'s losses: how a student matches a teacher's outputs."""

from __future__ import annotations

import jax

from kgraph import losses, ops, saving, tree

__all__ = ["DistillationLoss", "FeatureDistillation", "LogitsDistillation",
           "deserialize_distillation_loss", "loss_function", "serialize_distillation_loss",
           "symbolic_inputs", "symbolic_outputs"]


def loss_function(item):
    """A loss given by name becomes Keras's loss function of that name; objects stay."""
    if item is None or not isinstance(item, str):
        return item
    try:
        resolved = losses.get(item)
    except ValueError:
        raise ValueError(f"Could not interpret loss identifier: {item} (unknown loss "
                         f"function: '{item}').") from None
    fn = getattr(resolved, "fn", None)
    return fn if fn is not None and not getattr(resolved, "_fn_kwargs", None) else resolved


def _serialize_loss(item):
    if item is None:
        return None
    if isinstance(item, (list, tuple)):
        return [_serialize_loss(x) for x in item]
    if isinstance(item, dict):
        return {key: _serialize_loss(x) for key, x in item.items()}
    if not isinstance(item, losses.Loss) and callable(item) and hasattr(item, "__name__"):
        return {"module": "builtins", "class_name": "function", "config": item.__name__,
                "registered_name": "function"}
    return saving.serialize_keras_object(item)


def _deserialize_loss(config):
    if config is None:
        return None
    if isinstance(config, (list, tuple)):
        return [_deserialize_loss(x) for x in config]
    if isinstance(config, dict) and "class_name" not in config:
        return {key: _deserialize_loss(x) for key, x in config.items()}
    if isinstance(config, dict) and config["class_name"] == "function":
        fn = getattr(losses, config["config"], None)
        return fn if fn is not None else loss_function(config["config"])
    if isinstance(config, str):
        return loss_function(config)
    return losses.deserialize(config)


def _mean_of_losses(values):
    return ops.sum(ops.stack([ops.convert_to_tensor(v, "float32")
                              for v in tree.flatten(values)]))


def _loss_structure(loss, name):
    resolved = tree.map_structure(loss_function, loss)
    if all(item is None for item in tree.flatten(resolved)):
        raise ValueError(f"The `loss` argument in `{name}` must contain at least one "
                         f"non-`None` value, received {loss!r}.")
    return resolved


class DistillationLoss:
    """How a student matches a teacher: subclass it and override ``compute_loss``.

    >>> import kgraph as kg
    >>> class MeanGap(kg.distillation.DistillationLoss):
    ...     def compute_loss(self, teacher_outputs, student_outputs, **kwargs):
    ...         return kg.ops.mean(kg.ops.abs(teacher_outputs - student_outputs))
    >>> float(MeanGap().compute_loss(kg.ops.ones((2, 3)), kg.ops.zeros((2, 3))))
    1.0
    """

    def compute_loss(self, teacher_outputs, student_outputs, **kwargs):
        """The scalar distillation loss of the teacher's and the student's outputs."""
        raise NotImplementedError(f"{type(self).__name__} must implement compute_loss.")

    def validate_outputs(self, teacher_outputs, student_outputs):
        """Raise ``ValueError`` unless both outputs have the same structure."""
        try:
            tree.assert_same_structure(teacher_outputs, student_outputs)
        except (ValueError, TypeError) as error:
            raise ValueError(f"{type(self).__name__}: the teacher's and the student's "
                             f"outputs must have the same structure. {error}") from None

    def validate_model_compatibility(self, teacher, student):
        """Raise ``ValueError`` if this loss cannot distill ``teacher`` into ``student``."""


class FeatureDistillation(DistillationLoss):
    """Match features: the final outputs, or those of the layers named (teacher, student).

    ``loss``: a loss name or object (or a structure of them, ``None`` skipping an
    output) applied to ``(teacher_features, student_features)``; defaults to ``"mse"``.

    >>> import kgraph as kg
    >>> loss = kg.distillation.FeatureDistillation(loss="mae")
    >>> float(loss.compute_loss(kg.ops.ones((2, 3)), kg.ops.zeros((2, 3))))
    1.0
    """

    def __init__(self, loss="mse", teacher_layer_name=None, student_layer_name=None):
        self.teacher_layer_name = teacher_layer_name
        self.student_layer_name = student_layer_name
        self.loss = _loss_structure(loss, "FeatureDistillation")

    def validate_model_compatibility(self, teacher, student):
        if self.teacher_layer_name is not None or self.student_layer_name is not None:
            subclassed = [role for role, model in (("teacher", teacher), ("student", student))
                          if symbolic_inputs(model) is None]
            if subclassed:
                raise ValueError(
                    "FeatureDistillation with specific layer names requires Functional or "
                    f"Sequential models. The {' and '.join(subclassed)} model(s) appear to "
                    "be subclassed (no symbolic inputs/outputs). Either use "
                    "Functional/Sequential models, or use FeatureDistillation without "
                    "layer names (to distill final outputs only), or use "
                    "LogitsDistillation instead.")
        for role, model, name in (("teacher", teacher, self.teacher_layer_name),
                                  ("student", student, self.student_layer_name)):
            if name is not None:
                try:
                    model.get_layer(name=name)
                except ValueError as error:
                    raise ValueError(f"In {role} model: {error}") from None

    def validate_outputs(self, teacher_outputs, student_outputs):
        super().validate_outputs(teacher_outputs, student_outputs)
        try:
            tree.assert_same_structure(self.loss, teacher_outputs)
        except (ValueError, TypeError) as error:
            raise ValueError(
                f"FeatureDistillation: loss structure mismatch. Loss structure: "
                f"{jax.tree_util.tree_structure(self.loss, is_leaf=callable)}, output "
                f"structure: {jax.tree_util.tree_structure(teacher_outputs)}. {error}"
            ) from None

    def compute_loss(self, teacher_outputs, student_outputs, **kwargs):
        """The summed mean loss of each distilled feature."""
        def one(loss_fn, teacher, student):
            return 0.0 if loss_fn is None else ops.mean(loss_fn(teacher, student))

        return _mean_of_losses(tree.map_structure(
            one, self.loss, teacher_outputs, student_outputs))

    def get_config(self):
        return {"loss": _serialize_loss(self.loss),
                "teacher_layer_name": self.teacher_layer_name,
                "student_layer_name": self.student_layer_name}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config["loss"] = _deserialize_loss(config["loss"])
        return cls(**config)


class LogitsDistillation(DistillationLoss):
    """Match the final outputs divided by ``temperature`` (Hinton et al.'s soft targets).

    A ``losses.KLDivergence`` object compares the softmax of the scaled logits and is
    scaled by ``temperature ** 2``; any other loss (a name included, as in Keras, even
    ``"kl_divergence"``) compares the scaled logits themselves.

    >>> import kgraph as kg
    >>> loss = kg.distillation.LogitsDistillation(temperature=2.0,
    ...                                           loss=kg.losses.KLDivergence())
    >>> float(loss.compute_loss(kg.ops.ones((2, 3)), kg.ops.ones((2, 3))))
    0.0
    """

    def __init__(self, temperature=3.0, loss="kl_divergence"):
        self.temperature = temperature
        self.loss = tree.map_structure(loss_function, loss)
        if all(item is None for item in tree.flatten(self.loss)):
            raise ValueError(f"LogitsDistillation: at least one loss must be non-`None`, "
                             f"received {loss!r}.")
        if isinstance(temperature, bool) or not isinstance(temperature, (int, float)):
            raise ValueError(f"LogitsDistillation: temperature must be a number, got "
                             f"{type(temperature)}.")
        if temperature <= 0.0:
            raise ValueError(f"LogitsDistillation: temperature must be positive, received "
                             f"{temperature}.")

    def compute_loss(self, teacher_outputs, student_outputs, **kwargs):
        """The summed loss of each output's temperature-scaled logits."""
        def one(loss_fn, teacher, student):
            if loss_fn is None:
                return 0.0
            teacher, student = teacher / self.temperature, student / self.temperature
            if isinstance(loss_fn, losses.KLDivergence):
                value = ops.mean(loss_fn(ops.softmax(teacher, axis=-1),
                                         ops.softmax(student, axis=-1)))
                return value * (self.temperature ** 2)
            return ops.mean(loss_fn(teacher, student))

        return _mean_of_losses(tree.map_structure(
            one, self.loss, teacher_outputs, student_outputs))

    def get_config(self):
        return {"temperature": self.temperature, "loss": _serialize_loss(self.loss)}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config["loss"] = _deserialize_loss(config["loss"])
        return cls(**config)


_LOSS_CLASSES = {"DistillationLoss": DistillationLoss, "FeatureDistillation":
                 FeatureDistillation, "LogitsDistillation": LogitsDistillation}


def symbolic_inputs(model):
    """``model.inputs`` of a Functional or Sequential model, else None (subclassed)."""
    try:
        return getattr(model, "inputs", None)
    except (AttributeError, ValueError):
        return None


def symbolic_outputs(model):
    """``model.outputs`` of a Functional or Sequential model, else None (subclassed)."""
    try:
        return getattr(model, "outputs", None)
    except (AttributeError, ValueError):
        return None


def serialize_distillation_loss(item):
    """Keras's config of a distillation loss (module ``keras.distillation``)."""
    if type(item) in _LOSS_CLASSES.values():
        return {"module": "keras.distillation", "class_name": type(item).__name__,
                "config": item.get_config(), "registered_name": None}
    return saving.serialize_keras_object(item)


def deserialize_distillation_loss(config):
    """The distillation loss a config (Keras's or kgraph's) describes."""
    if isinstance(config, dict) and config.get("class_name") in _LOSS_CLASSES:
        return _LOSS_CLASSES[config["class_name"]].from_config(config.get("config") or {})
    return saving.deserialize_keras_object(config)
