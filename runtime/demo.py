"""Demo: a functional model on the UCI handwritten digits, trained with ``model.fit``.

Run: ``python -m runtime.demo`` (about 15 s on 2 CPU cores).
"""

from __future__ import annotations

import time

import jax
import numpy as np
import optax

import compiler
import kgraph as kg
from kgraph.losses import losses

__all__ = ["build_model", "main"]


def build_model():
    """8x8 digit -> two hidden layers (with BatchNorm and Dropout) -> 10 logits."""
    pixels = kg.Input(shape=(8, 8), name="pixels")
    x = kg.layers.Flatten(name="flatten")(pixels / 16.0)
    x = kg.layers.Dense(128, activation="relu", name="hidden_1")(x)
    x = kg.layers.BatchNormalization(name="norm")(x)
    x = kg.layers.Dropout(0.2, name="dropout")(x)
    x = kg.layers.Dense(64, activation="relu", name="hidden_2")(x)
    logits = kg.layers.Dense(10, name="logits")(x)
    return kg.Model(inputs=pixels, outputs=logits, name="digits_mlp")


def main(epochs: int = 30, seed: int = 0) -> float:
    start = time.perf_counter()
    images, labels = kg.datasets.load_digits()
    order = np.random.default_rng(seed).permutation(len(labels))
    test, train = order[:360], order[360:]
    print(f"UCI digits: {len(train)} training and {len(test)} test images of 8x8 pixels\n")

    model = build_model()
    model.summary()
    params, state = compiler.variables(model)
    shapes = jax.tree_util.tree_map(lambda a: a.shape, params)
    print(f"\nparams pytree: {shapes}\n")

    model.compile(optimizer=optax.adam(1e-3),
                  loss=losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"], seed=seed)
    model.fit(images[train], labels[train], batch_size=64, epochs=epochs,
              validation_data=(images[test], labels[test]), verbose=2)
    loss, accuracy = model.evaluate(images[test], labels[test], batch_size=128)
    print(f"\ntest loss {loss:.4f} - test accuracy {accuracy:.4f} "
          f"- wall time {time.perf_counter() - start:.1f}s")
    return accuracy


if __name__ == "__main__":
    main()
