"""A seeded generator of models built from runs of repeated blocks, for the scan property
test (``tests/interpreter/test_scan_property.py``).

``random_model(seed)`` draws a model: a stem, then one to three runs of three to six
blocks chained output to input, then a head. The blocks are drawn from kinds that stress
what may and may not run as one ``lax.scan``:

- kgraph's ``Dense`` with its activation given by name, or as a callable: the same
  function for every block, or a lambda per block (equal or different constants);
- a user layer holding a NumPy table as a plain attribute (equal or different by value);
- nested ``Sequential`` and ``Functional`` blocks with ``BatchNormalization`` and
  ``Dropout``, some with call-site ``training=`` flags, some sharing one
  ``BatchNormalization`` among all blocks;
- a user layer holding ``Dropout`` and ``BatchNormalization`` called with a call-site
  ``training=True``;
- ``TimeDistributed`` around a user layer, and blocks on a masked sequence;
- a block layer that a node after the run calls again;
- a user layer of two inputs, the carry and a side input every block of the run shares
  (the carry first or second, the side input by position or by keyword), one block
  sometimes given another side input;
- runs inside a nested functional model (called once), its blocks' weights stacked in
  its entry.

The draw depends only on ``seed`` (names restart from the test's fresh counter).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

import kgraph as kg
from kgraph import layers

WIDTH = 4
STEPS = 3  # time steps of the sequence models
BATCH = 3


class Tabled(kg.layers.Layer):
    """A user layer holding a NumPy table as a plain attribute: a constant of its trace."""

    def __init__(self, table, **kwargs):
        super().__init__(**kwargs)
        self.table = table

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], input_shape[-1]))

    def call(self, x):
        return jnp.tanh(x @ self.w) * self.table + x


class Noisy(kg.layers.Layer):
    """A user layer holding Dense, BatchNormalization and Dropout: state and randomness."""

    def __init__(self, rate=0.3, **kwargs):
        super().__init__(**kwargs)
        self.dense = layers.Dense(WIDTH)
        self.norm = layers.BatchNormalization()
        self.drop = layers.Dropout(rate)

    def call(self, x, training=None):
        return x + self.drop(self.norm(self.dense(x), training=training), training=training)


class Gated(kg.layers.Layer):
    """A user layer of two inputs (``a`` and ``b``, both of width ``WIDTH``)."""

    def build(self, input_shape):
        self.w = self.add_weight(shape=(WIDTH, WIDTH))
        self.mix = self.add_weight(shape=(WIDTH,), initializer="ones")

    def call(self, a, b):
        return jnp.tanh(a @ self.w) + jnp.tanh(b) * self.mix


def _scale(c):
    return lambda t: jnp.tanh(t) * c


_SHARED_ACTIVATION = _scale(1.5)


def _activation(rng, kind, block, blocks, odd):
    if kind == "name":
        return "tanh" if block != odd else "relu"
    if kind == "same_function":
        return _SHARED_ACTIVATION
    constant = 2.0 if block != odd else 3.0
    return _scale(constant)  # a new lambda per block; equal constants unless ``odd``


def _dense_blocks(rng, blocks, odd):
    kind = rng.choice(["name", "same_function", "lambda", "lambda"])
    return [layers.Dense(WIDTH, activation=_activation(rng, kind, b, blocks, odd))
            for b in range(blocks)], f"dense[{kind}]"


def _tabled_blocks(rng, blocks, odd):
    table = rng.normal(size=(WIDTH,)).astype(np.float32)
    made = []
    for b in range(blocks):
        own = table.copy()
        if b == odd:
            own[rng.integers(WIDTH)] += 1.0  # the same shape, another value
        made.append(Tabled(own))
    return made, "tabled"


def _sequential_blocks(rng, blocks, odd):
    shared = layers.BatchNormalization() if rng.random() < 0.3 else None
    rate = float(rng.choice([0.0, 0.25]))
    made = [kg.Sequential([layers.Dense(WIDTH, activation="relu"),
                           shared or layers.BatchNormalization(), layers.Dropout(rate)])
            for _ in range(blocks)]
    return made, "sequential" + ("[shared norm]" if shared else "")


def _functional_blocks(rng, blocks, odd):
    flag = rng.choice([None, True, False])
    shared = layers.BatchNormalization() if rng.random() < 0.2 else None
    made = []
    for _ in range(blocks):
        x = kg.Input(shape=(WIDTH,))
        h = layers.Dense(WIDTH)(x)
        norm = shared or layers.BatchNormalization()
        h = norm(h) if flag is None else norm(h, training=bool(flag))
        h = layers.Dropout(0.2)(h)
        made.append(kg.Model(x, layers.Add()([x, h])))
    return made, f"functional[training={flag}]" + ("[shared norm]" if shared else "")


def _noisy_blocks(rng, blocks, odd):
    return [Noisy() for _ in range(blocks)], "noisy"


def _gated_blocks(rng, blocks, odd):
    return [Gated() for _ in range(blocks)], "gated"


KINDS = {"dense": _dense_blocks, "tabled": _tabled_blocks, "sequential": _sequential_blocks,
         "functional": _functional_blocks, "noisy": _noisy_blocks, "gated": _gated_blocks}
_LAYOUTS = ("carry first", "carry second", "side by keyword")


def _chain(made, h, flags, side=None, layout=None, odd=-1):
    """The blocks called one after the other on ``h``; gated blocks (``side`` given) take
    ``side`` too, laid out as ``layout`` says, block ``odd`` another side input."""
    for number, block in enumerate(made):
        if side is None:
            h = block(h, **flags)
            continue
        own = layers.Dense(WIDTH)(side) if number == odd else side
        if layout == "carry first":
            h = block(h, own)
        elif layout == "carry second":
            h = block(own, h)
        else:
            h = block(h, b=own)
    return h
SEQUENCE_KINDS = {"time_distributed", "masked"}


def _call_flag(rng, kind):
    """A call-site ``training=`` on the block calls (kinds whose call takes one)."""
    if kind in ("noisy", "sequential", "functional") and rng.random() < 0.4:
        return {"training": bool(rng.random() < 0.7)}
    return {}


def random_model(seed: int):
    """``(model, x, description)``: a model of runs of repeated blocks, an input batch for
    it, and what was drawn (for failure messages)."""
    rng = np.random.default_rng(seed)
    sequence = rng.random() < 0.2
    described = []
    if sequence:
        masked = rng.random() < 0.5
        if masked:
            inputs = kg.Input(shape=(STEPS,), dtype="int32")
            h = layers.Embedding(10, WIDTH, mask_zero=True)(inputs)
            ids = rng.integers(0, 10, size=(BATCH, STEPS))
            ids[:, -1] = 0  # a masked step in every row
            x = ids.astype(np.int32)
        else:
            inputs = kg.Input(shape=(STEPS, WIDTH))
            h = layers.Dense(WIDTH)(inputs)
            x = rng.normal(size=(BATCH, STEPS, WIDTH)).astype(np.float32)
    else:
        inputs = kg.Input(shape=(WIDTH,))
        h = layers.Dense(WIDTH, name="stem")(inputs)
        x = rng.normal(size=(BATCH, WIDTH)).astype(np.float32)
    side = layers.Dense(WIDTH, name="side")(h) if not sequence else None
    reused = None
    for _ in range(int(rng.integers(1, 3))):
        blocks = int(rng.integers(3, 6))
        odd = int(rng.integers(blocks)) if rng.random() < 0.35 else -1
        if sequence:
            kind = "time_distributed" if rng.random() < 0.5 else "dense"
            if kind == "time_distributed":
                table = rng.normal(size=(WIDTH,)).astype(np.float32)
                made = [layers.TimeDistributed(Tabled(table if b != odd else table + 1.0))
                        for b in range(blocks)]
                what = "time_distributed[tabled]"
            else:
                made, what = _dense_blocks(rng, blocks, odd)
        else:
            kind = str(rng.choice(list(KINDS)))
            made, what = KINDS[kind](rng, blocks, odd)
        flags = _call_flag(rng, kind)
        gated = kind == "gated"
        layout = str(rng.choice(_LAYOUTS)) if gated else None
        nested = not sequence and rng.random() < 0.3
        if gated:
            what += f"[{layout}]"
        if nested:  # the run inside a model of its own, called once
            carry_in = kg.Input(shape=(WIDTH,))
            side_in = kg.Input(shape=(WIDTH,)) if gated else None
            inner_out = _chain(made, carry_in, flags, side_in, layout, odd)
            inner = kg.Model([carry_in, side_in] if gated else carry_in, inner_out)
            h = inner([h, side] if gated else h)
            what = f"nested({what})"
        else:
            h = _chain(made, h, flags, side if gated else None, layout, odd)
        described.append(f"{blocks} x {what}{' odd=%d' % odd if odd >= 0 else ''}"
                         f"{' ' + str(flags) if flags else ''}")
        if reused is None and kind in ("dense", "noisy") and rng.random() < 0.15:
            reused = made[1]
            h = reused(h)  # a block's layer called again after its run
            described.append("block 1 called again after the run")
    if sequence:
        h = layers.GlobalAveragePooling1D()(h)
    outputs = layers.Dense(3, name="head")(h)
    prefix = ("masked " if sequence and masked else "sequence " if sequence else "")
    return kg.Model(inputs, outputs), x, prefix + "; ".join(described)
