"""``image_dataset_from_directory``, ``text_dataset_from_directory`` and
``audio_dataset_from_directory``, as Keras's ``keras.utils``: one subdirectory per class,
files listed, labelled, split and shuffled as Keras does (the same seed puts the same files
in the same subset), read as Grain datasets (``pip install grain``; Keras's
``format="grain"``), which ``model.fit`` / ``evaluate`` / ``predict`` iterate directly.

>>> import os, tempfile
>>> root = tempfile.mkdtemp()
>>> for name in ("neg", "pos"):
...     os.makedirs(os.path.join(root, name))
...     with open(os.path.join(root, name, "a.txt"), "w") as f:
...         _ = f.write(name * 2)
>>> ds = text_dataset_from_directory(root, batch_size=None, shuffle=False, verbose=False)
>>> ds.class_names, [(text, int(label)) for text, label in ds]
(['neg', 'pos'], [('negneg', 0), ('pospos', 1)])
"""

from __future__ import annotations

import wave

import numpy as np

from kgraph.ops import image as image_ops
from kgraph.ops.conv_utils import standardize_data_format
from kgraph.utils.dataset_utils import (check_validation_split_arg,
                                        get_training_or_validation_split, grain_module,
                                        index_directory, labels_dataset, make_batch)
from kgraph.utils.image_utils import load_img

__all__ = ["audio_dataset_from_directory", "image_dataset_from_directory",
           "text_dataset_from_directory"]

IMAGE_FORMATS = (".bmp", ".gif", ".jpeg", ".jpg", ".png")
_INTERPOLATIONS = ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5",
                   "gaussian", "mitchellcubic")


def _check_labels(labels, class_names, label_mode, what):
    if labels not in ("inferred", None):
        if not isinstance(labels, (list, tuple)):
            raise ValueError(
                "`labels` argument should be a list/tuple of integer labels, of the same size "
                f"as the number of {what} files in the target directory. If you wish to infer "
                "the labels from the subdirectory names in the target directory, pass "
                '`labels="inferred"`. If you wish to get a dataset that only contains '
                f"{what} samples (no labels), pass `labels=None`. Received: labels={labels}")
        if class_names:
            raise ValueError(f'You can only pass `class_names` if `labels="inferred"`. '
                             f"Received: labels={labels}, and class_names={class_names}")
    if label_mode not in {"int", "categorical", "binary", None}:
        raise ValueError('`label_mode` argument must be one of "int", "categorical", '
                         f'"binary", or None. Received: label_mode={label_mode}')


def _check_format(format):
    if format not in ("tf", "grain"):
        raise ValueError(f'`format` should be either "tf" or "grain". Received: format={format}')


def _index(directory, labels, label_mode, class_names, formats, shuffle, seed,
           validation_split, subset, follow_links, verbose):
    """Keras's shared steps: check the split arguments, list the files, check "binary"."""
    if labels is None or label_mode is None:
        labels = label_mode = None
    check_validation_split_arg(validation_split, subset, shuffle, seed)
    if seed is None:
        seed = np.random.randint(1e6)
    paths, labels, class_names = index_directory(
        directory, labels, formats=formats, class_names=class_names, shuffle=shuffle,
        seed=seed, follow_links=follow_links, verbose=verbose)
    if label_mode == "binary" and len(class_names) != 2:
        raise ValueError('When passing `label_mode="binary"`, there must be exactly 2 '
                         f"class_names. Received: class_names={class_names}")
    return paths, labels, label_mode, class_names, seed


def _subsets(paths, labels, validation_split, subset, empty_message):
    """``[(paths, labels, shuffled), ...]``: one subset, or training and validation."""
    names = ("training", "validation") if subset == "both" else (subset,)
    parts = []
    for name in names:
        part_paths, part_labels = get_training_or_validation_split(
            paths, labels, validation_split, name)
        if not part_paths:
            kind = f" {name}" if subset == "both" else ""
            raise ValueError(empty_message.format(kind=kind))
        # Keras shuffles a lone subset, but not the validation half of "both".
        parts.append((part_paths, part_labels, not (subset == "both" and name == "validation")))
    return parts


def _dataset(paths, labels, label_mode, num_classes, load, shuffle, seed, batch_size,
             batch_fn):
    """Keras's Grain pipeline: paths (zipped with encoded labels), shuffled by ``seed``,
    loaded by ``load``, then batched."""
    grain = grain_module()
    ds = grain.MapDataset.source(list(paths))
    if label_mode:
        ds = grain.experimental.ZipMapDataset(
            [ds, labels_dataset(labels, label_mode, num_classes)])
    if shuffle:
        ds = ds.shuffle(seed=seed)
    ds = ds.map((lambda item: (load(item[0]), item[1])) if label_mode else load)
    ds = ds.to_iter_dataset()
    if batch_size is not None:
        ds = ds.batch(batch_size, batch_fn=batch_fn)
    return ds


def _build(parts, label_mode, class_names, load, shuffle, seed, batch_size, batch_fn,
           with_paths):
    datasets = []
    for paths, labels, shuffled in parts:
        ds = _dataset(paths, labels, label_mode, len(class_names) if class_names else 0, load,
                      shuffle and shuffled, seed, batch_size, batch_fn)
        ds.class_names = class_names
        if with_paths:
            ds.file_paths = list(paths)
        datasets.append(ds)
    return datasets


def _load_image(path, image_size, color_mode, interpolation, data_format, crop, pad):
    image = np.asarray(load_img(path, color_mode=color_mode), dtype="float32")
    if image.ndim == 2:
        image = image[..., None]
    if data_format == "channels_first":
        image = image.transpose(2, 0, 1)
    resized = image_ops.resize(image, size=tuple(image_size), interpolation=interpolation,
                               crop_to_aspect_ratio=crop, pad_to_aspect_ratio=pad,
                               data_format=data_format)
    return np.asarray(resized, dtype="float32")


def image_dataset_from_directory(directory, labels="inferred", label_mode="int",
                                 class_names=None, color_mode="rgb", batch_size=32,
                                 image_size=(256, 256), shuffle=True, seed=None,
                                 validation_split=None, subset=None, interpolation="bilinear",
                                 follow_links=False, crop_to_aspect_ratio=False,
                                 pad_to_aspect_ratio=False, data_format=None, format="tf",
                                 verbose=True):
    """A dataset of ``(images, labels)`` batches from image files (``.bmp``, ``.gif``,
    ``.jpeg``, ``.jpg``, ``.png``) in ``directory``, one subdirectory per class.

    As Keras's: ``labels`` is ``"inferred"`` (from the subdirectories, in ``class_names``'
    order, else sorted), a list of integer labels for the sorted file paths, or ``None``;
    ``label_mode`` "int" (``int32``), "categorical" (one-hot ``float32``), "binary"
    (``float32`` of shape ``(1,)``) or ``None`` (images only). Images are ``float32`` pixels
    in [0, 255] resized to ``image_size`` with ``interpolation`` (after a centred crop or
    pad to its aspect ratio with ``crop_to_aspect_ratio`` / ``pad_to_aspect_ratio``), with
    1, 3 or 4 channels for ``color_mode`` "grayscale", "rgb" or "rgba". ``validation_split``
    with ``subset`` "training", "validation" or "both" (a ``[train, validation]`` list)
    splits the files after Keras's seeded shuffle. The result is a ``grain.IterDataset``
    with ``class_names`` and ``file_paths`` attributes, for either ``format``: Keras's
    default ``format="tf"`` builds a ``tf.data.Dataset``, which needs TensorFlow; kgraph
    returns the Grain dataset Keras builds with ``format="grain"``.

    >>> import os, tempfile
    >>> import numpy as np
    >>> import kgraph as kg
    >>> root = tempfile.mkdtemp()
    >>> for name in ("cats", "dogs"):
    ...     os.makedirs(os.path.join(root, name))
    ...     kg.utils.save_img(os.path.join(root, name, "0.png"), np.zeros((8, 8, 3)))
    >>> ds = image_dataset_from_directory(root, image_size=(4, 4), batch_size=2, seed=1)
    Found 2 files belonging to 2 classes.
    >>> images, labels = next(iter(ds))
    >>> ds.class_names, images.shape, labels.dtype
    (['cats', 'dogs'], (2, 4, 4, 3), dtype('int32'))
    """
    _check_labels(labels, class_names, label_mode, "image")
    channels = {"rgb": 3, "rgba": 4, "grayscale": 1}
    if color_mode not in channels:
        raise ValueError('`color_mode` must be one of {"rgb", "rgba", "grayscale"}. '
                         f"Received: color_mode={color_mode}")
    if isinstance(image_size, int):
        image_size = (image_size, image_size)
    elif not isinstance(image_size, (list, tuple)) or len(image_size) != 2:
        raise ValueError("Invalid `image_size` value. Expected a tuple of 2 integers. "
                         f"Received: image_size={image_size}")
    interpolation = interpolation.lower()
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(f"Argument `interpolation` should be one of {_INTERPOLATIONS}. "
                         f"Received: interpolation={interpolation}")
    _check_format(format)
    if crop_to_aspect_ratio and pad_to_aspect_ratio:
        raise ValueError("Only one of `pad_to_aspect_ratio`, `crop_to_aspect_ratio` can be "
                         "set to `True`.")
    paths, labels, label_mode, class_names, seed = _index(
        directory, labels, label_mode, class_names, IMAGE_FORMATS, shuffle, seed,
        validation_split, subset, follow_links, verbose)
    data_format = standardize_data_format(data_format)
    empty = f"No{{kind}} images found in directory {directory}. Allowed formats: {IMAGE_FORMATS}"
    parts = _subsets(paths, labels, validation_split, subset, empty)

    def load(path):
        return _load_image(path, image_size, color_mode, interpolation, data_format,
                           crop_to_aspect_ratio, pad_to_aspect_ratio)

    datasets = _build(parts, label_mode, class_names, load, shuffle, seed, batch_size,
                      make_batch, with_paths=True)
    return datasets if subset == "both" else datasets[0]


def _read_text(path, max_length):
    with open(path, "r") as file:
        text = file.read()
    return text if max_length is None else text[:max_length]


def text_dataset_from_directory(directory, labels="inferred", label_mode="int",
                                class_names=None, batch_size=32, max_length=None, shuffle=True,
                                seed=None, validation_split=None, subset=None,
                                follow_links=False, format="tf", verbose=True):
    """A dataset of ``(texts, labels)`` batches from the ``.txt`` files in ``directory``,
    one subdirectory per class.

    As Keras's ``format="grain"``: texts are Python strings (a batch is a tuple of them),
    cut to ``max_length`` characters if given; ``labels``, ``label_mode``, ``class_names``,
    ``shuffle`` / ``seed`` and ``validation_split`` / ``subset`` as in
    ``image_dataset_from_directory``. The result is a ``grain.IterDataset`` with a
    ``class_names`` attribute (a ``[train, validation]`` list for ``subset="both"``), for
    either ``format``: Keras's default ``format="tf"`` needs TensorFlow.

    >>> import os, tempfile
    >>> root = tempfile.mkdtemp()
    >>> for i, name in enumerate(["good", "bad", "good"]):
    ...     os.makedirs(os.path.join(root, name), exist_ok=True)
    ...     with open(os.path.join(root, name, f"{i}.txt"), "w") as f:
    ...         _ = f.write(f"review {i}")
    >>> ds = text_dataset_from_directory(root, batch_size=8, shuffle=False)
    Found 3 files belonging to 2 classes.
    >>> texts, labels = next(iter(ds))
    >>> texts, labels.tolist()
    (('review 1', 'review 0', 'review 2'), [0, 1, 1])
    """
    _check_labels(labels, class_names, label_mode, "text")
    _check_format(format)
    paths, labels, label_mode, class_names, seed = _index(
        directory, labels, label_mode, class_names, (".txt",), shuffle, seed,
        validation_split, subset, follow_links, verbose)
    empty = f"No{{kind}} text files found in directory {directory}. Allowed format: .txt"
    parts = _subsets(paths, labels, validation_split, subset, empty)
    datasets = _build(parts, label_mode, class_names, lambda path: _read_text(path, max_length),
                      shuffle, seed, batch_size, make_batch, with_paths=False)
    return datasets if subset == "both" else datasets[0]


def _read_wav(path, output_sequence_length):
    """``(samples, channels)`` ``float32`` in [-1, 1], as ``tf.audio.decode_wav``: cut or
    zero-padded to ``output_sequence_length`` samples if given."""
    with wave.open(path, "rb") as file:
        width, channels = file.getsampwidth(), file.getnchannels()
        frames = file.readframes(file.getnframes())
    if width == 1:
        audio = (np.frombuffer(frames, np.uint8).astype("float32") - 128.0) / 128.0
    elif width in (2, 4):
        dtype = np.int16 if width == 2 else np.int32
        audio = np.frombuffer(frames, dtype).astype("float32") / float(2 ** (8 * width - 1))
    else:
        raise ValueError(f"Unsupported WAV sample width of {width} bytes in {path}: expected "
                         "8-, 16- or 32-bit PCM.")
    audio = audio.reshape(-1, channels)
    if output_sequence_length is not None:
        audio = audio[:output_sequence_length]
        missing = output_sequence_length - len(audio)
        if missing > 0:
            audio = np.pad(audio, ((0, missing), (0, 0)))
    return audio


def _padded_batch(values):
    """Zero-pad the clips of a batch to its longest, as ``tf.data``'s ``padded_batch``."""
    longest = max(len(value[0] if isinstance(value, tuple) else value) for value in values)

    def pad(audio):
        return np.pad(audio, ((0, longest - len(audio)), (0, 0)))
    return make_batch([(pad(value[0]),) + value[1:] if isinstance(value, tuple) else pad(value)
                       for value in values])


def _list_batch(values):
    if isinstance(values[0], tuple):
        return (tuple(value[0] for value in values),
                np.stack([value[1] for value in values]))
    return tuple(values)


def audio_dataset_from_directory(directory, labels="inferred", label_mode="int",
                                 class_names=None, batch_size=32, sampling_rate=None,
                                 output_sequence_length=None, ragged=False, shuffle=True,
                                 seed=None, validation_split=None, subset=None,
                                 follow_links=False, verbose=True):
    """A dataset of ``(audio, labels)`` batches from the ``.wav`` files (PCM) in
    ``directory``, one subdirectory per class.

    Clips are ``float32`` ``(samples, channels)`` in [-1, 1] (as ``tf.audio.decode_wav``),
    cut or zero-padded to ``output_sequence_length``; without it a batch is zero-padded to
    its longest clip, and with ``ragged=True`` it is a tuple of the unpadded clips.
    ``labels``, ``label_mode``, ``class_names``, ``shuffle`` / ``seed`` and
    ``validation_split`` / ``subset`` are as in ``image_dataset_from_directory`` (the same
    files land in each subset as with Keras; a ``(train, validation)`` tuple for
    ``subset="both"``). Keras returns a ``tf.data.Dataset``; kgraph a ``grain.IterDataset``
    with a ``class_names`` attribute. ``sampling_rate`` (resampling, which Keras does with
    tensorflow-io) is not supported.

    >>> import os, tempfile, wave
    >>> root = tempfile.mkdtemp()
    >>> os.makedirs(os.path.join(root, "beep"))
    >>> with wave.open(os.path.join(root, "beep", "0.wav"), "wb") as f:
    ...     f.setnchannels(1); f.setsampwidth(2); f.setframerate(8000)
    ...     f.writeframes(b"\\x00\\x40" * 5)
    >>> ds = audio_dataset_from_directory(root, output_sequence_length=8, verbose=False)
    >>> audio, labels = next(iter(ds))
    >>> audio.shape, audio[0, :, 0].tolist()
    ((1, 8, 1), [0.5, 0.5, 0.5, 0.5, 0.5, 0.0, 0.0, 0.0])
    """
    _check_labels(labels, class_names, label_mode, "audio")
    if ragged and output_sequence_length is not None:
        raise ValueError("Cannot set both `ragged` and `output_sequence_length`")
    if sampling_rate is not None:
        if not isinstance(sampling_rate, int):
            raise ValueError(f"`sampling_rate` should have an integer value. Received: "
                             f"sampling_rate={sampling_rate}")
        if sampling_rate <= 0:
            raise ValueError(f"`sampling_rate` should be higher than 0. Received: "
                             f"sampling_rate={sampling_rate}")
        raise NotImplementedError("`sampling_rate` (resampling the audio) is not supported: "
                                  "resample the files beforehand.")
    paths, labels, label_mode, class_names, seed = _index(
        directory, labels, label_mode, class_names, (".wav",), shuffle, seed,
        validation_split, subset, follow_links, verbose)
    empty = (f"No{{kind}} audio files found in directory {directory}. Allowed format(s): "
             "('.wav',)")
    parts = _subsets(paths, labels, validation_split, subset, empty)
    batch_fn = (_list_batch if ragged else
                _padded_batch if output_sequence_length is None else make_batch)
    datasets = _build(parts, label_mode, class_names,
                      lambda path: _read_wav(path, output_sequence_length), shuffle, seed,
                      batch_size, batch_fn, with_paths=False)
    return tuple(datasets) if subset == "both" else datasets[0]
