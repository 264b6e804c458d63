"""A walk of one model through the pipeline calls down, never up: tracing ``Program.apply``
calls nothing in a later package than the caller's, and one ``fit`` step calls up once,
through the declared seam (``kgraph.engine``). Calls are traced with ``sys.setprofile``."""

import pathlib
import sys

import jax
import numpy as np

import compiler
import kgraph as kg

_ROOT = str(pathlib.Path(kg.__file__).parent.parent) + "/"
_RANK = {"kgraph": 0, "compiler": 1, "runtime": 2}


def _upward_calls(fn) -> set:
    """``(caller file:function, callee file:function)`` of every call from a package into
    a later one of the pipeline while ``fn`` runs."""
    found = set()

    def profile(frame, event, arg):
        if event != "call" or frame.f_back is None:
            return
        callee, caller = frame.f_code.co_filename, frame.f_back.f_code.co_filename
        if not (callee.startswith(_ROOT) and caller.startswith(_ROOT)):
            return
        into, out_of = (name[len(_ROOT):].split("/")[0] for name in (callee, caller))
        if _RANK.get(into, -1) > _RANK.get(out_of, 99):
            found.add((f"{caller[len(_ROOT):]}:{frame.f_back.f_code.co_name}",
                       f"{callee[len(_ROOT):]}:{frame.f_code.co_name}"))

    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return found


def test_apply_and_a_fit_step_call_up_only_through_the_seam():
    x = kg.Input((4,))
    model = kg.Model(x, kg.layers.Dense(2)(kg.layers.Dense(8, activation="relu")(x)))
    program = compiler.compile(model)
    params, state = program.init(jax.random.PRNGKey(0))
    data = np.ones((4, 4), np.float32)
    assert _upward_calls(lambda: jax.jit(program.apply).lower(params, state, data)) == set()
    model.compile("sgd", "mse")
    calls = _upward_calls(lambda: model.fit(data, np.ones((4, 2), np.float32), verbose=0))
    assert calls == {("kgraph/models/model.py:fit", "runtime/keras_shell.py:fit")}


def test_the_tracer_sees_an_upward_call():
    from runtime import Remat  # a NodeHook: the interpreter calls the runtime's object

    x = kg.Input((4,))
    program = compiler.compile(kg.Model(x, kg.layers.Dense(2, name="d")(x)))
    params, state = program.init(jax.random.PRNGKey(0))
    calls = _upward_calls(lambda: program.apply(params, state, np.ones((1, 4), np.float32),
                                                hooks=(Remat("dots_saveable"),)))
    assert ("kgraph/interpreter/walk.py:run_graph", "runtime/remat.py:wrap_node") in calls
