"""``Pipeline``: Keras's sequence of preprocessing layers applied one after another.

Unlike a ``Sequential`` it is a layer, not a model: its layers are its own sub-layers and
``training`` reaches each one that takes it (augmentation layers transform only in
training), as does the mask a layer hands to the next.

>>> import jax.numpy as jnp, kgraph as kg
>>> augment = Pipeline([kg.layers.RandomFlip("horizontal"), kg.layers.Rescaling(1 / 255)])
>>> augment(jnp.full((1, 2, 2, 1), 255.0), training=False).ravel().tolist()
[1.0, 1.0, 1.0, 1.0]
"""

from __future__ import annotations

from kgraph.base import call_args
from kgraph.base.layer import Layer
from kgraph.layers.wrappers import deserialize_layer, serialize_layer

__all__ = ["Pipeline"]


class Pipeline(Layer):
    """Apply ``layers`` in order (``training`` and masks passed to those that take them)."""

    def __init__(self, layers, name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        if not isinstance(layers, (list, tuple)) or not all(
                isinstance(layer, Layer) for layer in layers):
            raise ValueError(f'Pipeline "{self.name}" takes a list of layers, received '
                             f"{layers!r}.")
        self._pipeline_layers = list(layers)

    @property
    def layers(self) -> list:
        return list(self._pipeline_layers)

    def call(self, inputs, training=True, mask=None):
        outputs = inputs
        for layer in self._pipeline_layers:
            accepted, any_kwargs = call_args.call_parameters(type(layer))
            kwargs = {}
            if mask is not None and ("mask" in accepted or any_kwargs):
                kwargs["mask"] = mask
            if training is not None and ("training" in accepted or any_kwargs):
                kwargs["training"] = training
            mask = layer.compute_mask(outputs, mask)
            outputs = layer(outputs, **kwargs)
        return outputs

    def compute_output_shape(self, input_shape):
        for layer in self._pipeline_layers:
            input_shape = layer.compute_output_shape(input_shape)
        return input_shape

    def get_config(self):
        return {"layers": [serialize_layer(layer) for layer in self._pipeline_layers],
                "name": self.name}

    @classmethod
    def from_config(cls, config, custom_objects=None, safe_mode=True):
        layers = config.get("layers")
        if not isinstance(layers, (list, tuple)):
            raise ValueError("`Pipeline` config must contain a `layers` key mapping to a list "
                             f"of serialized layers. Received config with layers={layers}.")
        config = {**config, "layers": [deserialize_layer(layer, custom_objects, safe_mode)
                                       for layer in layers]}
        return cls(**config)
