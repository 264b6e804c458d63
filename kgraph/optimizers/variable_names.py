"""Keras's names of a compiled model's optimizer variables: ``<optimizer>/iteration``,
``<optimizer>/learning_rate``, then ``<optimizer>/<weight path with _>_<slot>`` per slot
and weight, in Keras's order (``Model.get_state_tree``, ``optimizer.variables``).
"""

from __future__ import annotations

from kgraph.base.naming import to_snake_case
from kgraph.base.weight_tree import weight_entries

__all__ = ["optimizer_variable_names"]


def _optimizer_scope(optimizer) -> str:
    """Keras's name for the optimizer: its own, or (left at the default) Keras's default,
    the class name in snake case."""
    scope = getattr(optimizer, "_keras_scope", None)
    if scope is not None:
        return scope
    try:
        default = type(optimizer)().name
    except (TypeError, ValueError):
        default = None
    return to_snake_case(type(optimizer).__name__) if optimizer.name == default else \
        optimizer.name


def _slot_path(slot, weight, ref, scope) -> str:
    """A slot's path: ``<scope>/<weight ref>_<slot>``, or what a class's own naming
    function ``slot(weight, ref, scope)`` says (Adafactor's)."""
    return slot(weight, ref, scope) if callable(slot) else f"{scope}/{ref}_{slot}"


def optimizer_variable_names(model, count: int) -> list:
    """Keras's paths of compiled ``model``'s ``count`` optimizer variables, in Keras's order.

    >>> import kgraph as kg
    >>> x = kg.Input(shape=(2,))
    >>> model = kg.Model(x, kg.layers.Dense(1, name="d")(x))
    >>> model.compile("adam", "mse")
    >>> optimizer_variable_names(model, 6)
    ['adam/iteration', 'adam/learning_rate', 'adam/d_kernel_momentum', 'adam/d_kernel_velocity', 'adam/d_bias_momentum', 'adam/d_bias_velocity']
    """
    optimizer = model.optimizer
    kind = type(optimizer).__name__
    names = getattr(optimizer, "_keras_slot_names", lambda: None)()
    if names is None or not hasattr(optimizer, "_config"):
        raise ValueError(f"get_state_tree: the optimizer {optimizer!r} of model "
                         f"{model.name!r} has no Keras state-tree layout here (Keras's "
                         "optimizer classes but Muon, LossScaleOptimizer and "
                         "MultiOptimizer have one).")
    slots, scalars = names
    config = optimizer._config
    # (the weights overwritten with their gradient have no slots nor averages)
    weights = [v for v in model.trainable_weights
               if not getattr(v, "overwrite_with_gradient", False)]
    refs = [v.path.replace("/", "_") for v in weights]
    scope = _optimizer_scope(optimizer)
    body = [f"{scope}/{r}_average" for r in refs] if config["use_ema"] else []
    if config["gradient_accumulation_steps"]:  # also of the weights overwritten with their
        tracked = {id(v) for v in weights} | {  # gradient, which Keras's are trainable
            id(e.variable) for e in weight_entries(model) if e.written}
        body += [f"{scope}/{v.path.replace('/', '_')}_gradient_accumulator"
                 for v in model.weights if id(v) in tracked]
    for group in slots:
        body += [_slot_path(slot, w, r, scope) for w, r in zip(weights, refs) for slot in group]
    if count <= 2 and (body or scalars):  # never trained: Keras has built only these
        return [f"{scope}/{name}" for name in ["iteration", "learning_rate"][:count]]
    header = ["iteration", "learning_rate"][:max(count - len(body) - len(scalars), 0)]
    if not header or header[0] != "iteration" or count != len(header) + len(body) + len(
            scalars):
        raise ValueError(f"get_state_tree: {count} optimizer variables for {kind} on model "
                         f"{model.name!r} do not match Keras's layout ({len(body)} slots).")
    return [f"{scope}/{name}" for name in header] + body + scalars
