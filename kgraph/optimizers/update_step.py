"""Keras's ``optimizer.update_step(gradient, variable, learning_rate)``: one step of the
update rule alone on one built weight, at the learning rate given.

As Keras's, the step leaves out what ``apply`` adds around the rule (gradient clipping,
weight decay, the moving average, gradient accumulation) and does not count an
iteration: the weight and its own slots advance, nothing else in the state changes.

>>> import numpy as np, kgraph as kg
>>> weight = kg.Variable(np.array([1.0, 2.0], np.float32))
>>> optimizer = kg.optimizers.Adam()
>>> optimizer.build([weight])
>>> optimizer.update_step(np.array([3.0, -1.0], np.float32), weight, 0.5)
>>> np.round(weight.numpy(), 4).tolist(), int(optimizer.iterations)
([0.5, 2.5], 0)
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import optax

__all__ = ["update_step"]


def _rule_state(optimizer, state):
    """``(the rule's state within the optimizer's state, a function putting a new one in
    its place)``: the rule follows the clipping in the chain, which gradient
    accumulation wraps."""
    config = optimizer._config
    at = int(any(config.get(k) for k in ("clipnorm", "global_clipnorm", "clipvalue")))
    chain = state.inner_state
    if config["gradient_accumulation_steps"]:
        steps = chain[0]

        def put(new):
            inner = steps.inner_opt_state
            steps_new = steps._replace(inner_opt_state=inner[:at] + (new,) + inner[at + 1:])
            return state._replace(inner_state=(steps_new,) + chain[1:])

        return steps.inner_opt_state[at], put
    return chain[at], lambda new: state._replace(
        inner_state=chain[:at] + (new,) + chain[at + 1:])


def _under(key):
    """Whether a state path lies under the weight key ``key``."""
    return lambda path: any(isinstance(part, jax.tree_util.DictKey) and part.key == key
                            for part in path)


def update_step(optimizer, gradient, variable, learning_rate) -> None:
    """Update ``variable`` (one of the weights ``optimizer`` was built on) in place by one
    step of its update rule with ``gradient`` at ``learning_rate``."""
    if not optimizer.built:
        raise ValueError(f"Optimizer {optimizer.name!r}: update_step needs a built optimizer; "
                         "call `optimizer.build(variables)` first.")
    built = optimizer._built_variables
    index = next((i for i, v in enumerate(built) if v is variable), None)
    if index is None:
        raise ValueError(f"Optimizer {optimizer.name!r}: update_step expected one of the "
                         f"variables it was built on; received {variable!r}.")
    key = optimizer._keys[index]
    hyper = {k: optimizer._config[k] for k in optimizer._defaults}
    if optimizer._decays_itself:
        hyper["weight_decay"] = None
    hyper = {k: (None if k.endswith("weight_decay") else v) for k, v in hyper.items()}
    rule = type(optimizer)._rule(jnp.asarray(learning_rate, jnp.float32), **hyper)
    values = [getattr(v, "value", v) for v in built]
    params = optimizer._as_tree(values)
    grads = optimizer._as_tree([jnp.asarray(gradient, jnp.result_type(value)) if i == index
                                else jnp.zeros_like(value)
                                for i, value in enumerate(values)])
    state = optimizer._opt_state()
    old, put = _rule_state(optimizer, state)
    updates, new = rule.update(grads, old, params)
    under = _under(key)
    new = jax.tree_util.tree_map_with_path(lambda path, n, o: n if under(path) else o,
                                           new, old)
    optimizer._set_opt_state(put(new))
    value = optax.apply_updates(params[key], updates[key])
    constraint = getattr(variable, "constraint", None)
    variable.assign(constraint(value) if constraint is not None else value)
