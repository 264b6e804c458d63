"""What ``evaluate``, ``test_on_batch`` and ``train_on_batch`` return, as Keras 3 returns
it: with ``return_dict``, the logs sorted by name; else their values in the order of
``model.metrics`` (Keras's ``_flatten_metrics_in_order``).

That order is: each of ``model.metrics`` by name, a ``compile_metrics`` by the names of
the metrics it holds (a metric's own name, e.g. ``"mae"``: for a single-output model that is
its log name, so a name compiled twice, plain and weighted, is listed twice, as in Keras;
for a multi-output model the logs are ``<output>_<metric>`` and match none of them), then
every log not listed yet, sorted by name. One value alone is returned as it is.

>>> keras_results([], {"b": 2.0, "loss": 1.0, "a": 3.0}, return_dict=True)
{'a': 3.0, 'b': 2.0, 'loss': 1.0}
>>> keras_results([], {"b": 2.0, "loss": 1.0, "a": 3.0}, return_dict=False)
[3.0, 2.0, 1.0]
"""

from __future__ import annotations

from kgraph.metrics import metrics as metrics_lib

__all__ = ["keras_results", "metric_names_in_order"]


def metric_names_in_order(metrics) -> list[str]:
    """The names Keras lists ``logs`` by: each metric's, a compiled metrics' each of its
    metrics' own name."""
    names = []
    for metric in metrics:
        objective = getattr(metric, "_objective", None)
        if objective is not None:  # runtime.keras_protocol.CompileMetrics
            names += [metrics_lib.name_of(each) for _, _, each in objective.metrics]
        else:
            names.append(metric.name)
    return names


def keras_results(metrics, logs: dict, return_dict: bool):
    """``logs`` sorted by name (``return_dict``), or their values in Keras's order of
    ``metrics`` (``model.metrics``; see the module docstring)."""
    if return_dict:
        return {name: logs[name] for name in sorted(logs)}
    names = metric_names_in_order(metrics)
    values = [logs[name] for name in names if name in logs]
    values += [logs[name] for name in sorted(logs) if name not in names]
    return values[0] if len(values) == 1 else values
