"""``keras.src.backend.compute_output_spec``: what a function returns on symbolic tensors.

>>> import kgraph as kg
>>> spec = compute_output_spec(lambda x, y: kg.ops.matmul(x, y),
...                            kg.KerasTensor((None, 3)), kg.KerasTensor((3, 2)))
>>> spec.shape
(None, 2)
"""

from __future__ import annotations

import contextlib

from kgraph.base.shape_inference import infer_function_spec
from kgraph.interpreter.stateless_scope import StatelessScope

__all__ = ["compute_output_spec"]


def compute_output_spec(fn, *args, **kwargs):
    """KerasTensors describing ``fn(*args, **kwargs)``, where the arguments hold
    KerasTensors (unknown dimensions stay unknown), as Keras's. Nothing ``fn`` assigns is
    kept: variables, and a metric's own state when ``fn`` is a metric, are as they were."""
    holding = getattr(fn, "_holding", None)
    with StatelessScope(), (holding() if callable(holding) else contextlib.nullcontext()):
        return infer_function_spec(fn, args, kwargs)
