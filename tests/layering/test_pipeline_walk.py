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


def _project_calls(fn) -> list:
    """``(caller file, caller function, callee file, callee function)`` of every call
    between the project's files while ``fn`` runs (files relative to the root)."""
    found = []

    def profile(frame, event, arg):
        if event != "call" or frame.f_back is None:
            return
        callee, caller = frame.f_code.co_filename, frame.f_back.f_code.co_filename
        if callee.startswith(_ROOT) and caller.startswith(_ROOT):
            found.append((caller[len(_ROOT):], frame.f_back.f_code.co_name,
                          callee[len(_ROOT):], frame.f_code.co_name))

    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return found


def _upward_calls(fn) -> set:
    """``(caller file:function, callee file:function)`` of every call from a package into
    a later one of the pipeline while ``fn`` runs."""
    return {(f"{caller}:{caller_fn}", f"{callee}:{callee_fn}")
            for caller, caller_fn, callee, callee_fn in _project_calls(fn)
            if _RANK.get(callee.split("/")[0], -1) > _RANK.get(caller.split("/")[0], 99)}


def test_apply_and_a_fit_step_call_up_only_through_the_seam():
    x = kg.Input((4,))
    model = kg.Model(x, kg.layers.Dense(2)(kg.layers.Dense(8, activation="relu")(x)))
    program = compiler.compile(model)
    params, state = program.init(jax.random.PRNGKey(0))
    data = np.ones((4, 4), np.float32)
    assert _upward_calls(lambda: jax.jit(program.apply).lower(params, state, data)) == set()
    model.compile("sgd", "mse")
    calls = _upward_calls(lambda: model.fit(data, np.ones((4, 2), np.float32), verbose=0))
    assert calls - VIEWS == {("kgraph/models/trainer.py:fit", "runtime/keras_shell.py:fit")}


# The views: Keras's variables, the model's and the optimizer's, read the running train state
# through the view the runtime binds them to (one truth: no copy to drift), so reading one
# calls the runtime's view. At the end of a fit, the optimizer keeps its learning rate.
VIEWS = {("kgraph/optimizers/base.py:_opt_state", "runtime/training_setup.py:train_state"),
         ("kgraph/optimizers/base.py:_opt_state", "runtime/fit_loop.py:train_state")}


def test_the_tracer_sees_an_upward_call():
    from runtime import Remat  # a NodeHook: the interpreter calls the runtime's object

    x = kg.Input((4,))
    program = compiler.compile(kg.Model(x, kg.layers.Dense(2, name="d")(x)))
    params, state = program.init(jax.random.PRNGKey(0))
    calls = _upward_calls(lambda: program.apply(params, state, np.ones((1, 4), np.float32),
                                                hooks=(Remat("dots_saveable"),)))
    assert ("kgraph/interpreter/walk.py:run_graph", "runtime/remat.py:wrap_node") in calls


def _calls_from(fn, caller_file) -> set:
    """``(caller function, callee file:function)`` of calls made from ``caller_file``."""
    return {(caller_fn, f"{callee}:{callee_fn}")
            for caller, caller_fn, callee, callee_fn in _project_calls(fn)
            if caller == caller_file}


def test_the_node_loop_is_one_file_from_program_apply():
    """``Program.run`` hands the compiled plan to the interpreter's entry, which runs the
    node loop: no model ``__call__`` in between."""
    x = kg.Input((4,))
    model = kg.Model(x, kg.layers.Dense(2)(kg.layers.Dense(8, activation="relu")(x)))
    program = compiler.compile(model)
    params, state = program.init(jax.random.PRNGKey(0))
    data = np.ones((4, 4), np.float32)
    from_program = {callee for caller, callee in
                    _calls_from(lambda: program.apply(params, state, data), "compiler/program.py")
                    if caller == "run"}
    assert "kgraph/interpreter/execute.py:run_model" in from_program
    assert not any(callee.endswith(":__call__") for callee in from_program)
    from_entry = _calls_from(lambda: program.apply(params, state, data),
                             "kgraph/interpreter/execute.py")
    assert ("run_model", "kgraph/interpreter/walk.py:run_graph") in from_entry
