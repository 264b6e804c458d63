"""Property test: on random models of repeated blocks (``tests/support/scan_models.py``), the
default program (runs of equal blocks as one ``lax.scan``) equals the unrolled one
(``compiler.compile(model, scan_blocks=False)``).

For ``MODELS`` models (200; ``--scan-models N`` checks N, for a longer search), both
programs give the same outputs and new state in inference and in training (the same key), the same auxiliary loss and the same gradients, to 1e-5
relative, and for every fourth model the same initial values (bitwise; the others start
from weights drawn on the host, which spares compiling an init function per model) and
the same numbers again on the stacked layout of the weights (what a ``Trainer`` trains
on). A share of the models must actually run a scan, or the property says nothing.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import compiler
from tests.support.helpers import tree_equal
from tests.support.scan_models import random_model

MODELS = 200
CHUNKS = 10
TOLERANCE = 1e-5
# Both sides are compiled alike, and XLA:CPU compiles these tiny programs about four times
# faster without its backend optimisations.
QUICK_COMPILE = {"xla_backend_optimization_level": 0}


def _everything(program, stacked, params, state, x, key):
    """Inference and training outputs and states, the auxiliary loss and the gradients."""
    if stacked:
        params, state = program.stack(params, state)
    out, new_state = program.apply(params, state, x, training=False, key=key)

    def loss(params):
        y, trained_state, aux = program.apply(params, state, x, training=True, key=key,
                                              return_losses=True)
        weights = jnp.linspace(-1.0, 1.0, y.size, dtype=y.dtype).reshape(y.shape)
        return jnp.sum(y * weights) + aux, (y, trained_state, aux)

    (_, (y, trained_state, aux)), grads = jax.value_and_grad(loss, has_aux=True)(params)
    if stacked:
        (grads, new_state), (_, trained_state) = (program.unstack(grads, new_state),
                                                  program.unstack(grads, trained_state))
    return {"inference": out, "inference state": new_state, "training": y,
            "training state": trained_state, "aux loss": aux, "gradients": grads}


def _differences(got, expected):
    """Names of the results that differ by more than the tolerance (relative)."""
    wrong = []
    for name in expected:
        a_leaves, a_tree = jax.tree_util.tree_flatten(got[name])
        b_leaves, b_tree = jax.tree_util.tree_flatten(expected[name])
        if a_tree != b_tree:
            wrong.append(f"{name} (structure)")
            continue
        for a, b in zip(a_leaves, b_leaves):
            a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
            scale = max(float(np.max(np.abs(b), initial=0.0)), 1.0)
            if a.shape != b.shape or float(np.max(np.abs(a - b), initial=0.0)) > TOLERANCE * scale:
                wrong.append(name)
                break
    return wrong


def _host_values(shapes, seed):
    """``(params, state)`` of ``shapes`` drawn with NumPy: params normal, state positive
    (BatchNormalization's moving variance must be)."""
    rng = np.random.default_rng(seed)
    params, state = shapes

    def normal(spec):
        return (0.5 * rng.normal(size=spec.shape)).astype(spec.dtype)

    def positive(spec):
        return (0.5 + 0.5 * np.abs(rng.normal(size=spec.shape))).astype(spec.dtype)

    return jax.tree_util.tree_map(normal, params), jax.tree_util.tree_map(positive, state)


def check_model(seed: int):
    """(failures, scanned) for the model of ``seed``."""
    model, x, described = random_model(seed)
    scanned, unrolled = compiler.compile(model), compiler.compile(model, scan_blocks=False)
    key = jax.random.PRNGKey(seed)
    if seed % 4 == 0:  # both programs' init (one function, so a quarter of them suffices)
        params, state = scanned.init(key)
        if not tree_equal((params, state), unrolled.init(key)):
            return [f"seed {seed} ({described}): initial values differ"], False
    else:  # weights drawn on the host: no init function to compile for every model
        params, state = _host_values(jax.eval_shape(scanned.init, key), seed)
    layouts = [False, True] if scanned.stacked_runs and seed % 4 == 0 else [False]

    def compared(params, state, x, key):  # one compiled program computes every side
        return (_everything(unrolled, False, params, state, x, key),
                [_everything(scanned, stacked, params, state, x, key) for stacked in layouts])

    arguments = (params, state, x, jax.random.fold_in(key, 1))
    lowered = jax.jit(compared).lower(*arguments)
    expected, results = lowered.compile(QUICK_COMPILE)(*arguments)
    failures = []
    for stacked, got in zip(layouts, results):
        wrong = _differences(got, expected)
        if wrong:
            layout = "stacked" if stacked else "named"
            failures.append(f"seed {seed} ({described}), {layout} layout: {wrong}")
    return failures, "stablehlo.while" in lowered.as_text()  # only a scan loops here


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_scanned_programs_equal_unrolled_ones(chunk, pytestconfig):
    models = pytestconfig.getoption("--scan-models") or MODELS
    failures, scanned = [], 0
    for seed in range(chunk, models, CHUNKS):
        found, did_scan = check_model(seed)
        failures += found
        scanned += did_scan
    assert not failures, "\n".join(failures)
    assert scanned >= (models // CHUNKS) // 5, f"only {scanned} models ran a scan"
