"""What a ``keras.distribution`` object shows of itself, measured the same way under Keras
and under kgraph (``surface(K)``): ``num_model_replicas``, ``num_processes``,
``data_shard_id``, ``batch_dim_name``, ``auto_shard_dataset``, the mesh, the layouts
``get_data_layout`` / ``get_variable_layout`` / ``get_tensor_layout`` give, the reprs,
``distribute_dataset`` on one process, and what ``distribution()`` is inside and after
``with dist.scope():`` (nested, and left by an exception). Run on one device by
``tests/keras_compat/test_keras_distribution_objects.py`` and on 8 by its child
``distribution_surface_child.py``. Values are JSON-friendly."""

from __future__ import annotations


def _layout(layout):
    if layout is None:
        return None
    mesh = layout.device_mesh
    return {"axes": list(layout.axes), "type": type(layout).__name__, "repr": repr(layout),
            "mesh": None if mesh is None else [list(mesh.shape), list(mesh.axis_names)]}


def _mesh(mesh):
    return {"shape": list(mesh.shape), "axis_names": list(mesh.axis_names),
            "devices": [list(mesh.devices.shape), [str(d) for d in mesh.devices.ravel()]],
            "repr": repr(mesh), "backend_mesh": [dict(mesh.backend_mesh.shape)]}


def _distributions(K):
    devices = K.distribution.list_devices()
    count = len(devices)
    made = {"data parallel (default)": K.distribution.DataParallel(),
            "data parallel (devices)": K.distribution.DataParallel(devices=devices),
            "data parallel (mesh)": K.distribution.DataParallel(
                device_mesh=K.distribution.DeviceMesh((count,), ["data"], devices))}
    shapes = [(1, count), (count, 1)] + ([(2, count // 2)] if count % 2 == 0 else [])
    for shape in shapes:
        mesh = K.distribution.DeviceMesh(shape, ["batch", "model"], devices)
        layouts = K.distribution.LayoutMap(mesh)
        layouts["up/kernel"] = (None, "model")
        layouts["up/bias"] = ("model",)
        layouts["act.*"] = ("batch", None)
        made[f"model parallel {shape}"] = K.distribution.ModelParallel(layout_map=layouts)
        made[f"model parallel {shape} by model"] = K.distribution.ModelParallel(
            layout_map=layouts, batch_dim_name="model")
    return made


def _model(K):
    inputs = K.Input(shape=(4,))
    hidden = K.layers.Dense(8, name="up")(inputs)
    return K.Model(inputs, K.layers.Dense(2, name="down")(hidden))


def _scoped(K, dist, other):
    """``distribution()`` before, inside, inside a nested scope, after, and after a scope
    left by an exception, named by which object it is."""
    def which(found):
        return {id(dist): "dist", id(other): "other", id(None): None}.get(id(found), "?")

    seen = []
    K.distribution.set_distribution(other)
    seen.append(which(K.distribution.distribution()))
    with dist.scope():
        seen.append(which(K.distribution.distribution()))
        with other.scope():
            seen.append(which(K.distribution.distribution()))
        seen.append(which(K.distribution.distribution()))
    seen.append(which(K.distribution.distribution()))
    try:
        with dist.scope():
            raise KeyError("left by an exception")
    except KeyError:
        pass
    seen.append(which(K.distribution.distribution()))
    K.distribution.set_distribution(None)
    with dist.scope():
        seen.append(which(K.distribution.distribution()))
    seen.append(which(K.distribution.distribution()))
    return seen


def surface(K) -> dict:
    """Everything compared, for ``K`` (``keras`` or ``kgraph``)."""
    model = _model(K)
    variables = {v.path: v for v in model.weights}
    out = {}
    made = _distributions(K)
    for name, dist in made.items():
        out[name] = {
            "type": type(dist).__name__, "repr": repr(dist),
            "num_model_replicas": dist.num_model_replicas,
            "num_processes": dist.num_processes, "data_shard_id": dist.data_shard_id,
            "batch_dim_name": dist.batch_dim_name,
            "auto_shard_dataset": dist.auto_shard_dataset,
            "mesh": _mesh(dist.device_mesh),
            "data_layouts": [_layout(dist.get_data_layout(shape))
                             for shape in [(16,), (16, 4), [8, 3, 5]]],
            "variable_layouts": {path: _layout(dist.get_variable_layout(v))
                                 for path, v in sorted(variables.items())},
            "tensor_layouts": {path: _layout(dist.get_tensor_layout(path))
                               for path in ["up/kernel", "act_1", "down/bias"]},
            "distribute_dataset": dist.distribute_dataset("a dataset"),
            "scope": _scoped(K, dist, made["data parallel (default)"]),
        }
        dist.auto_shard_dataset = False
        out[name]["auto_shard_dataset set"] = dist.auto_shard_dataset
    return out
