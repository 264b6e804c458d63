"""Connectionist temporal classification (``keras.ops.ctc_loss``, ``keras.ops.ctc_decode``).

``ctc_decode`` decodes logits ``(batch, time, classes)`` greedily or by prefix beam search,
as Keras on JAX: ``decoded`` is ``(top_paths, batch, time)`` int32, each sequence padded
with -1, and ``scores`` ``(batch, top_paths)``.

>>> import jax.numpy as jnp
>>> logits = jnp.log(jnp.array([[[0.1, 0.6, 0.3], [0.1, 0.6, 0.3], [0.8, 0.1, 0.1]]]))
>>> decoded, scores = ctc_decode(logits, jnp.array([3]), strategy="beam_search",
...                              beam_width=4, top_paths=2)
>>> decoded[:, 0].tolist()
[[1, -1, -1], [1, 2, -1]]
"""

from __future__ import annotations

import builtins

import jax
import jax.numpy as jnp
import optax

from kgraph import dtypes as _dtypes
from kgraph.graph.keras_tensor import KerasTensor
from kgraph.ops.registry import register_op

__all__ = ["ctc_decode", "ctc_loss"]

_PAD = -1  # the label of "no class" in decoded paths


def _check_first_dims(name1, shape1, name2, shape2) -> None:
    """Keras's ValueError when two CTC operands differ in their first (batch) dimension;
    an unknown size (None) matches any."""
    first1, first2 = shape1[0], shape2[0]
    if first1 is not None and first2 is not None and first1 != first2:
        raise ValueError(f"Arguments `{name1}` and `{name2}` must have the same first "
                         f"dimension. Received shapes: `{shape1}` and `{shape2}`.")


def _ctc_loss_spec(target, output, target_length, output_length, mask_index=0):
    """Keras's checks of the batch sizes, then the loss's spec: traced with an unknown
    batch size made the known one (tracing alone cannot tell ``None`` equals 4)."""
    operands = (target, output, target_length, output_length)
    shapes = [t.shape if isinstance(t, KerasTensor) else tuple(jnp.shape(t)) for t in operands]
    _check_first_dims("target", shapes[0], "output", shapes[1])
    _check_first_dims("target_length", shapes[2], "target", shapes[0])
    _check_first_dims("output_length", shapes[3], "output", shapes[1])
    if any(None in shape[1:] for shape in shapes) or not all(shapes):
        return None  # unknown sizes past the batch (or scalars): tracing answers
    known = [shape[0] for shape in shapes if shape[0] is not None]
    if len(known) == len(shapes):
        return None
    batch = known[0] if known else 1
    structs = [jax.ShapeDtypeStruct((batch,) + shape[1:], t.dtype if hasattr(t, "dtype")
                                    else jnp.asarray(t).dtype)
               for t, shape in zip(operands, shapes)]
    out = jax.eval_shape(lambda *ts: ctc_loss.__wrapped__(*ts, mask_index=mask_index),
                         *structs)
    return KerasTensor((known[0] if known else None,), out.dtype)


@register_op("ctc_loss", tensors=4, spec=_ctc_loss_spec)
def ctc_loss(target, output, target_length, output_length, mask_index=0):
    """CTC loss per sample of label sequences against logits ``(batch, time, classes)``."""
    output = jnp.asarray(output)
    time = output.shape[1]
    logit_paddings = (jnp.arange(time)[None, :] >= output_length[:, None]).astype(output.dtype)
    label_paddings = (jnp.arange(target.shape[1])[None, :] >= target_length[:, None]).astype(
        output.dtype)
    return optax.ctc_loss(output, logit_paddings, target, label_paddings, blank_id=mask_index)


def _check_ctc_strategy(strategy="greedy", **_):
    if strategy not in ("greedy", "beam_search"):
        raise ValueError(f"Invalid strategy {strategy}. Supported values are 'greedy' and "
                         "'beam_search'.")


def _ctc_decode_spec(inputs, sequence_lengths, strategy="greedy", beam_width=100,
                     top_paths=1, merge_repeated=True, mask_index=0):
    shape = inputs.shape if isinstance(inputs, KerasTensor) else jnp.shape(inputs)
    paths = 1 if strategy == "greedy" else top_paths
    dtype = _dtypes.result_type(inputs.dtype, "float32")
    return (KerasTensor((paths, shape[0], shape[1]), "int32"),
            KerasTensor((shape[0], paths), dtype))


@register_op("ctc_decode", tensors=2, check=_check_ctc_strategy, spec=_ctc_decode_spec)
def ctc_decode(inputs, sequence_lengths, strategy="greedy", beam_width=100, top_paths=1,
               merge_repeated=True, mask_index=0):
    """CTC decoding of logits ``(batch, time, classes)``: ``(decoded (top_paths, batch,
    time) int32, scores (batch, top_paths))``, -1 after each sequence. ``"greedy"``: the
    best class at each step (``top_paths`` 1; scores the negated sum of those logits).
    ``"beam_search"``: the ``top_paths`` most probable label sequences among ``beam_width``
    prefixes (scores their log probabilities; ``merge_repeated`` does not apply).
    ``mask_index`` is the blank class (None: the last)."""
    logits = jnp.asarray(inputs)
    logits = logits.astype(_dtypes.result_type(logits.dtype, "float32"))
    sequence_lengths = jnp.asarray(sequence_lengths)
    if mask_index is None:
        mask_index = logits.shape[-1] - 1
    if strategy == "greedy":
        return _greedy(logits, sequence_lengths, merge_repeated, mask_index)
    return _beam_search(logits, sequence_lengths, beam_width, top_paths, mask_index)


def _greedy(logits, sequence_lengths, merge_repeated, mask_index):
    time = logits.shape[1]
    valid = jnp.arange(time)[None] < sequence_lengths[:, None]
    best = jnp.argmax(logits, axis=-1).astype(jnp.int32)
    scores = -jnp.sum(jnp.where(valid, jnp.max(logits, axis=-1), 0.0), axis=1, keepdims=True)
    keep = valid & (best != mask_index)
    if merge_repeated:
        previous = jnp.pad(best[:, :-1], ((0, 0), (1, 0)), constant_values=_PAD)
        keep = keep & (best != previous)
    order = jnp.argsort(~keep, axis=1, stable=True)  # kept labels first, in time order
    decoded = jnp.take_along_axis(jnp.where(keep, best, _PAD), order, axis=1)
    return decoded[None], scores


# ---------------------------------------------------------------------- beam search
# Each beam is a label prefix (a row of ``time`` labels padded with _PAD) held twice: once
# ending in a label ("emit"), once ending in the blank, each with its log probability. A
# step extends every beam by every class, merges equal prefixes and keeps the best
# ``beam_width``. Classes are reversed throughout (and back at the end) so that ties fall
# to the larger class, as TensorFlow's decoder breaks them.
def _log_merge(groups, values, size):
    """``log(sum(exp(values)))`` per group id (``-inf`` for an empty group)."""
    top = jnp.max(values)
    top = jnp.where(jnp.isfinite(top), top, 0.0)
    total = jnp.zeros(size, values.dtype).at[groups].add(jnp.exp(values - top))
    return jnp.log(total) + top


def _extend(paths, scores, ends_blank, step_log_probs, blank):
    """Every beam followed by every class: ``(paths, scores, ends_blank)`` of
    ``beams * classes`` rows (beam-major)."""
    classes = step_log_probs.shape[0]
    rows = paths.shape[0] * classes
    paths = jnp.repeat(paths, classes, axis=0)
    scores = jnp.repeat(scores, classes) + jnp.tile(step_log_probs, rows // classes)
    was_blank = jnp.repeat(ends_blank, classes)
    index = jnp.arange(rows)
    length = jnp.argmax(paths == _PAD, axis=1)  # the first free slot
    last = jnp.where(length == 0, _PAD, paths[index, length - 1])
    label = jnp.tile(jnp.where(jnp.arange(classes) == blank, _PAD, jnp.arange(classes)),
                     rows // classes)
    now_blank = label == _PAD
    # a label repeating the prefix's last one, with no blank between, extends nothing
    label = jnp.where(~was_blank & (last == label), _PAD, label)
    return paths.at[index, length].set(label), scores, now_blank


def _unique_rows(paths, size):
    """The distinct rows of ``paths``, sorted, padded to ``size`` rows of _PAD; and the
    index of each row of ``paths`` among them."""
    unique, inverse = jnp.unique(paths, return_inverse=True, size=size, axis=0,
                                 fill_value=_PAD)
    return unique, inverse.reshape(-1)


def _prune(paths, scores, now_blank, beam_width):
    size = paths.shape[0]
    unique, inverse = _unique_rows(paths, size)
    emit = _log_merge(inverse, jnp.where(now_blank, -jnp.inf, scores), size)
    blank = _log_merge(inverse, jnp.where(now_blank, scores, -jnp.inf), size)
    best = jnp.argsort(jnp.logaddexp(emit, blank))[-beam_width:]
    kept = unique[best]
    ends_blank = jnp.concatenate([jnp.zeros(beam_width, bool), jnp.ones(beam_width, bool)])
    return jnp.concatenate([kept, kept]), jnp.concatenate([emit[best], blank[best]]), ends_blank


def _beam_search_one(log_probs, skip, beam_width, top_paths, blank):
    """The best ``top_paths`` prefixes of one sample: ``log_probs`` ``(time, classes)``,
    ``skip`` ``(time,)`` True past the sequence's length."""
    time, classes = log_probs.shape
    beams = 2 * beam_width
    first = builtins.min(classes, beam_width)
    start = jnp.argsort(log_probs[0])[-first:]
    paths = jnp.full((beams, time), _PAD, jnp.int32).at[:first, 0].set(
        jnp.where(start == blank, _PAD, start))
    scores = jnp.full((beams,), -jnp.inf, log_probs.dtype).at[:first].set(log_probs[0, start])
    state = (paths, scores, paths[:, 0] == _PAD)

    def step(state, inputs):
        step_log_probs, past_end = inputs
        extended = _extend(*state, step_log_probs, blank)
        pruned = _prune(*extended, beam_width)
        return jax.tree.map(lambda old, new: jnp.where(past_end, old, new), state,
                            pruned), None

    (paths, scores, _), _ = jax.lax.scan(step, state, (log_probs[1:], skip[1:]))
    # the final merge: both endings of a prefix together (over as many rows as a step's)
    size = beams * classes
    unique, inverse = _unique_rows(paths, size)
    merged = _log_merge(inverse, scores, size)
    best = jnp.argsort(merged)[-top_paths:][::-1]
    return unique[best], merged[best]


def _beam_search(logits, sequence_lengths, beam_width, top_paths, mask_index):
    batch, time, classes = logits.shape
    log_probs = jax.nn.log_softmax(logits, axis=-1)[..., ::-1]  # classes reversed
    skip = jnp.arange(time)[None, :] >= sequence_lengths[:, None]
    paths, scores = jax.vmap(
        lambda lp, s: _beam_search_one(lp, s, beam_width, top_paths, classes - 1 - mask_index)
    )(log_probs, skip)
    paths = jnp.where(paths == _PAD, _PAD, classes - 1 - paths)
    return jnp.transpose(paths, (1, 0, 2)), scores
