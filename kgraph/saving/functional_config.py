"""A ``Functional`` model's config in Keras 3's functional format, and the model back from it.

The config lists every layer with its ``inbound_nodes`` (the arguments of each of its
calls in this model, KerasTensors written as ``{"class_name": "__keras_tensor__", "config":
{"shape", "dtype", "keras_history": [layer_name, node_index, tensor_index]}}``), then
``input_layers`` / ``output_layers`` in the model's input/output structure.

>>> import kgraph as kg
>>> x = kg.Input(shape=(3,), name="x")
>>> model = kg.Model(x, kg.layers.Dense(2, name="d")(x))
>>> config = functional_get_config(model)
>>> config["input_layers"], config["output_layers"]
(['x', 0, 0], ['d', 0, 0])
>>> [layer.name for layer in functional_from_config(kg.Functional, config).layers]
['x', 'd']
"""

from __future__ import annotations

import collections

from kgraph.keras_tensor import KerasTensor
from kgraph.saving.layer_config import deserialize_layer, serialize_layer
from kgraph.saving.values import decode_value, encode_value, shape_list


def _offset(layer) -> int:
    """Keras numbers a nested Functional's nodes from 1 in input/output_layers."""
    from kgraph.functional import Functional
    from kgraph.sequential import Sequential

    return 1 if isinstance(layer, Functional) and not isinstance(layer, Sequential) else 0


def functional_get_config(model) -> dict:
    """``model``'s config in Keras 3's functional format (see the module docstring)."""
    own = {id(node) for node in model._nodes}
    for tensor in model.inputs:
        history = tensor._keras_history
        own.add(id(history.layer._inbound_nodes[history.node_index]))
    new_index = {}  # (id(layer), original node index) -> index among this model's nodes
    for layer in model._layers:
        kept = 0
        for i, node in enumerate(layer._inbound_nodes):
            if id(node) in own:
                new_index[(id(layer), i)] = kept
                kept += 1

    def tensor_config(tensor):
        layer, node_index, tensor_index = tensor._keras_history
        return {"class_name": "__keras_tensor__",
                "config": {"shape": shape_list(tensor.shape), "dtype": tensor.dtype.name,
                           "keras_history": [layer.name, new_index[(id(layer), node_index)],
                                             tensor_index]}}

    def encode(value, what):
        if isinstance(value, KerasTensor):
            return tensor_config(value)
        if isinstance(value, (list, tuple)) and any(
                isinstance(v, KerasTensor) for v in _leaves(value)):
            return [encode(v, what) for v in value]  # tensor containers: lists, as Keras
        if isinstance(value, dict):
            return {str(k): encode(v, what) for k, v in value.items()}
        return encode_value(value, what)

    layer_configs = []
    for layer in model._layers:
        nodes = []
        for i, node in enumerate(layer._inbound_nodes):
            if id(node) not in own or not node._keras_inputs:
                continue
            what = f'the call of layer "{layer.name}"'
            nodes.append({"args": [encode(a, what) for a in node.call_args],
                          "kwargs": {str(k): encode(v, what)
                                     for k, v in node.call_kwargs.items()}})
        layer_config = serialize_layer(layer)
        layer_config["name"] = layer.name
        layer_config["inbound_nodes"] = nodes
        layer_configs.append(layer_config)

    def io_config(tensor):
        layer, node_index, tensor_index = tensor._keras_history
        return [layer.name, new_index[(id(layer), node_index)] + _offset(layer), tensor_index]

    return {"name": model.name, "trainable": model.trainable, "layers": layer_configs,
            "input_layers": _map_structure(io_config, model._inputs_struct),
            "output_layers": _map_structure(io_config, model._outputs_struct)}


def _leaves(value):
    stack, out = [value], []
    while stack:
        v = stack.pop()
        if isinstance(v, (list, tuple)):
            stack.extend(v)
        elif isinstance(v, dict):
            stack.extend(v.values())
        else:
            out.append(v)
    return out


def _map_structure(fn, struct):
    if isinstance(struct, dict):
        return {k: _map_structure(fn, v) for k, v in struct.items()}
    if isinstance(struct, (list, tuple)):
        return [_map_structure(fn, v) for v in struct]
    return fn(struct)


def _is_tensor_ref(value) -> bool:
    return (isinstance(value, list) and len(value) == 3 and isinstance(value[0], str)
            and isinstance(value[1], int) and isinstance(value[2], int))


def _node_refs(node_data) -> list:
    """The (layer_name, node_index) pairs a node's arguments refer to."""
    refs, stack = [], [node_data.get("args", []), node_data.get("kwargs", {})]
    while stack:
        value = stack.pop()
        if isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, dict):
            if value.get("class_name") == "__keras_tensor__":
                history = value["config"]["keras_history"]
                refs.append((history[0], history[1]))
            else:
                stack.extend(value.values())
    return refs


def functional_from_config(cls, config, custom_objects=None, safe_mode=True):
    """Rebuild a Functional from ``functional_get_config``'s output (or Keras 3's).

    Layers are constructed from their configs, then called on KerasTensors in dependency
    order: a work list in which a node waits for the one node it is missing, so the
    rebuild is linear in the size of the graph and uses no recursion per layer.
    """
    for key in ("layers", "input_layers", "output_layers"):
        if key not in config:
            raise ValueError(f"A Functional config needs the key {key!r}; received keys "
                             f"{sorted(config)}.")
    created, order, pending = {}, [], {}
    for layer_data in config["layers"]:
        name = layer_data.get("name") or (layer_data.get("config") or {}).get("name")
        if name in created:
            raise ValueError(f"Invalid Functional config: two layers are named {name!r}.")
        layer_config = {k: v for k, v in layer_data.items() if k not in ("name", "inbound_nodes")}
        created[name] = deserialize_layer(layer_config, custom_objects, safe_mode, build=False)
        order.append(name)
        nodes = list(layer_data.get("inbound_nodes") or [])
        if nodes and isinstance(nodes[0], list):
            raise ValueError(f"Layer {name!r} uses the legacy (Keras 2) inbound_nodes format, "
                             "which is not supported; re-save the model with Keras 3.")
        pending[name] = [(node, _node_refs(node)) for node in nodes]

    def resolve(tensor_config):
        layer_name, node_index, tensor_index = tensor_config["keras_history"]
        return created[layer_name]._inbound_nodes[node_index].outputs[tensor_index]

    def available(layer_name, node_index) -> bool:
        if layer_name not in created:
            raise ValueError(f"Invalid Functional config: a node refers to the unknown "
                             f"layer {layer_name!r}.")
        return len(created[layer_name]._inbound_nodes) > node_index

    position = dict.fromkeys(order, 0)  # next node of each layer to create
    ref_position = dict.fromkeys(order, 0)  # next argument of that node to check
    waiting = collections.defaultdict(list)  # (layer_name, node_index) -> waiting layers
    queue = collections.deque(order)
    while queue:
        name = queue.popleft()
        layer, nodes = created[name], pending[name]
        while position[name] < len(nodes):
            node_data, refs = nodes[position[name]]
            blocked = False
            while ref_position[name] < len(refs):
                ref = refs[ref_position[name]]
                if not available(*ref):
                    waiting[ref].append(name)
                    blocked = True
                    break
                ref_position[name] += 1
            if blocked:
                break
            args = decode_value(node_data.get("args", []), resolve, safe_mode)
            kwargs = decode_value(node_data.get("kwargs", {}), resolve, safe_mode)
            layer(*args, **kwargs)
            position[name] += 1
            ref_position[name] = 0
            queue.extend(waiting.pop((name, len(layer._inbound_nodes) - 1), ()))
    unresolved = [f"{name}[{position[name]}]" for name in order
                  if position[name] < len(pending[name])]
    if unresolved:
        raise ValueError("Invalid Functional config: the graph has a cycle or refers to "
                         f"nodes that are never created; unresolved layer calls: "
                         f"{unresolved[:10]}{' ...' if len(unresolved) > 10 else ''}.")

    def io_tensor(ref):
        layer_name, node_index, tensor_index = ref
        if layer_name not in created:
            raise ValueError(f"Invalid Functional config: unknown layer {layer_name!r} in "
                             "input_layers/output_layers.")
        layer = created[layer_name]
        return layer._inbound_nodes[node_index - _offset(layer)].outputs[tensor_index]

    def io_structure(struct):
        if _is_tensor_ref(struct):
            return io_tensor(struct)
        if isinstance(struct, dict):
            return {k: io_structure(v) for k, v in struct.items()}
        if isinstance(struct, (list, tuple)):
            return [io_structure(v) for v in struct]
        raise ValueError(f"Invalid Functional config: bad input/output entry {struct!r}.")

    inputs = io_structure(config["input_layers"])
    outputs = io_structure(config["output_layers"])
    trainable = config.get("trainable")
    return cls(inputs=inputs, outputs=outputs, name=config.get("name"),
               trainable=True if trainable is None else trainable)
