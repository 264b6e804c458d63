"""The directory dataset loaders and ``split_dataset`` against Keras's ``format="grain"``
datasets (the same files, order, labels and pixels) and Keras's documented rules."""

import os
import wave

import numpy as np
import pytest

import kgraph

keras = pytest.importorskip("keras")
pytest.importorskip("grain")
Image = pytest.importorskip("PIL.Image")


def _same(ours, theirs):
    """Equal structures: strings equal, arrays of the same dtype, shape and values."""
    if isinstance(ours, str):
        assert ours == theirs
    elif isinstance(ours, (tuple, list)):
        assert isinstance(theirs, (tuple, list)) and len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            _same(a, b)
    else:
        a, b = np.asarray(ours), np.asarray(theirs)
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(a, b, atol=1e-3)


@pytest.fixture
def image_dir(tmp_path):
    rng = np.random.default_rng(0)
    root = tmp_path / "images"
    for c, name in enumerate(["cat", "dog", "eel"]):
        (root / name / "nested").mkdir(parents=True)
        for i in range(4):
            size = (10 + i, 7 + 2 * i)  # different sizes and aspect ratios
            pixels = rng.integers(0, 256, size + (3,), dtype=np.uint8)
            folder = root / name / ("nested" if i == 3 else "")
            ext = ["png", "jpg", "bmp", "PNG"][i]
            Image.fromarray(pixels).save(folder / f"{c}{i}.{ext}",
                                         format="JPEG" if ext == "jpg" else None)
        (root / name / "notes.txt").write_text("ignored")
    (root / ".hidden").mkdir()
    return str(root)


@pytest.fixture
def text_dir(tmp_path):
    root = tmp_path / "texts"
    for c, name in enumerate(["neg", "pos"]):
        (root / name).mkdir(parents=True)
        for i in range(5):
            (root / name / f"{i}.txt").write_text(f"{name} text number {i} " * (i + 1))
    return str(root)


def _write_wav(path, samples, channels=1):
    with wave.open(str(path), "wb") as f:
        f.setnchannels(channels)
        f.setsampwidth(2)
        f.setframerate(8000)
        f.writeframes(np.asarray(samples, "<i2").tobytes())


@pytest.mark.parametrize("kwargs", [
    dict(shuffle=False),
    dict(seed=3, label_mode="categorical", batch_size=5),
    dict(seed=7, validation_split=0.25, subset="training", color_mode="grayscale"),
    dict(seed=7, validation_split=0.25, subset="validation", interpolation="nearest"),
    dict(seed=11, crop_to_aspect_ratio=True, label_mode=None, color_mode="rgba"),
    dict(seed=11, pad_to_aspect_ratio=True, batch_size=None, data_format="channels_first"),
    dict(shuffle=False, labels=[0, 1, 0, 1] * 3, class_names=None, image_size=5),
])
def test_image_dataset_matches_keras_grain(image_dir, kwargs):
    args = dict(image_size=(6, 5), batch_size=4, verbose=False) | kwargs
    ours = kgraph.utils.image_dataset_from_directory(image_dir, **args)
    theirs = keras.utils.image_dataset_from_directory(image_dir, format="grain", **args)
    assert ours.class_names == theirs.class_names
    assert ours.file_paths == theirs.file_paths
    _same(list(ours), list(theirs))
    _same(list(ours), list(ours))  # every pass yields the same batches, as Keras's


def test_image_subset_both_and_messages(image_dir, capsys):
    train, val = kgraph.utils.image_dataset_from_directory(
        image_dir, image_size=(4, 4), seed=5, validation_split=0.3, subset="both")
    printed = capsys.readouterr().out
    assert "Found 12 files belonging to 3 classes." in printed
    assert "Using 9 files for training." in printed and "Using 3 files for validation." in printed
    k_train, k_val = keras.utils.image_dataset_from_directory(
        image_dir, image_size=(4, 4), seed=5, validation_split=0.3, subset="both",
        format="grain", verbose=False)
    assert train.file_paths == k_train.file_paths and val.file_paths == k_val.file_paths
    assert not set(train.file_paths) & set(val.file_paths)
    _same(list(train), list(k_train))
    _same(list(val), list(k_val))


def test_format_tf_default_returns_the_grain_dataset(image_dir):
    default = kgraph.preprocessing.image_dataset_from_directory(
        image_dir, image_size=(4, 4), seed=2, verbose=False)
    grain_ds = kgraph.utils.image_dataset_from_directory(
        image_dir, image_size=(4, 4), seed=2, verbose=False, format="grain")
    _same(list(default), list(grain_ds))
    assert kgraph.utils.dataset_utils.is_grain_dataset(default)


def test_fit_evaluate_predict_on_image_directory(image_dir):
    train, val = kgraph.utils.image_dataset_from_directory(
        image_dir, image_size=(8, 8), batch_size=4, seed=1, validation_split=0.25,
        subset="both", verbose=False)
    model = kgraph.Sequential([kgraph.Input((8, 8, 3)), kgraph.layers.Rescaling(1 / 255),
                               kgraph.layers.Flatten(), kgraph.layers.Dense(3)])
    model.compile("adam", kgraph.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    history = model.fit(train, validation_data=val, epochs=3, verbose=0)
    assert len(history.history["loss"]) == 3 and "val_loss" in history.history
    assert np.isfinite(model.evaluate(val, verbose=0)).all()
    images = kgraph.utils.image_dataset_from_directory(
        image_dir, image_size=(8, 8), label_mode=None, shuffle=False, verbose=False)
    assert model.predict(images, verbose=0).shape == (12, 3)


@pytest.mark.parametrize("kwargs", [
    dict(shuffle=False, max_length=9),
    dict(seed=4, label_mode="binary", batch_size=3),
    dict(seed=4, validation_split=0.4, subset="validation", label_mode="categorical"),
    dict(seed=4, label_mode=None, batch_size=None),
])
def test_text_dataset_matches_keras_grain(text_dir, kwargs):
    args = dict(batch_size=4, verbose=False) | kwargs
    ours = kgraph.preprocessing.text_dataset_from_directory(text_dir, **args)
    theirs = keras.utils.text_dataset_from_directory(text_dir, format="grain", **args)
    assert ours.class_names == theirs.class_names
    _same(list(ours), list(theirs))


def test_audio_dataset(tmp_path):
    root = tmp_path / "audio"
    lengths = {"no": [5, 9, 3], "yes": [4, 7]}
    for name, sizes in lengths.items():
        (root / name).mkdir(parents=True)
        for i, n in enumerate(sizes):
            _write_wav(root / name / f"{i}.wav", np.arange(1, 2 * n + 1) * 1000, channels=2)
    ds = kgraph.utils.audio_dataset_from_directory(str(root), shuffle=False, batch_size=3,
                                                   verbose=False)
    assert ds.class_names == ["no", "yes"]
    (audio, labels), (audio2, labels2) = list(ds)
    assert audio.shape == (3, 9, 2) and audio.dtype == np.float32  # padded to the longest
    np.testing.assert_allclose(audio[0, :5, 0], np.arange(1, 11, 2) * 1000 / 32768)
    np.testing.assert_allclose(audio[0, 5:], 0)
    assert labels.tolist() == [0, 0, 0] and labels2.tolist() == [1, 1]
    fixed = kgraph.utils.audio_dataset_from_directory(
        str(root), shuffle=False, output_sequence_length=6, batch_size=None, verbose=False)
    assert [a.shape for a, _ in fixed] == [(6, 2)] * 5
    ragged = kgraph.utils.audio_dataset_from_directory(
        str(root), shuffle=False, ragged=True, batch_size=5, verbose=False)
    clips, _ = next(iter(ragged))
    assert [len(c) for c in clips] == [5, 9, 3, 4, 7]
    train, val = kgraph.utils.audio_dataset_from_directory(
        str(root), seed=2, validation_split=0.4, subset="both", verbose=False)
    # The files land in each subset as Keras's (its index and split need no TensorFlow).
    paths, _, _ = keras.src.utils.dataset_utils.index_directory(
        str(root), "inferred", formats=(".wav",), seed=2, verbose=False)
    assert sum(len(b[1]) for b in train) == 3 and sum(len(b[1]) for b in val) == 2
    with pytest.raises(ValueError, match="Cannot set both `ragged`"):
        kgraph.utils.audio_dataset_from_directory(str(root), ragged=True,
                                                  output_sequence_length=3)
    with pytest.raises(NotImplementedError, match="sampling_rate"):
        kgraph.utils.audio_dataset_from_directory(str(root), sampling_rate=16000)
    assert len(paths) == 5


def test_loader_errors(image_dir, tmp_path):
    load = kgraph.utils.image_dataset_from_directory
    with pytest.raises(ValueError, match='`subset` must be either "training"'):
        load(image_dir, validation_split=0.2, subset="test", seed=1)
    with pytest.raises(ValueError, match="you must provide a `seed`"):
        load(image_dir, validation_split=0.2, subset="training")
    with pytest.raises(ValueError, match="`validation_split` must be set"):
        load(image_dir, subset="training")
    with pytest.raises(ValueError, match="between 0 and 1"):
        load(image_dir, validation_split=1.5, subset="training", seed=1)
    with pytest.raises(ValueError, match="exactly 2"):
        load(image_dir, label_mode="binary")
    with pytest.raises(ValueError, match="did not match"):
        load(image_dir, class_names=["cat", "cow"])
    with pytest.raises(ValueError, match="color_mode"):
        load(image_dir, color_mode="cmyk")
    with pytest.raises(ValueError, match="`format` should be"):
        load(image_dir, format="torch")
    with pytest.raises(ValueError, match="Only one of"):
        load(image_dir, crop_to_aspect_ratio=True, pad_to_aspect_ratio=True)
    with pytest.raises(ValueError, match="lengths of `labels`"):
        load(image_dir, labels=[0, 1])
    (tmp_path / "empty" / "a").mkdir(parents=True)
    with pytest.raises(ValueError, match="No images found in directory"):
        load(str(tmp_path / "empty"), verbose=False)
    with pytest.raises(ValueError, match="No text files found"):
        kgraph.utils.text_dataset_from_directory(str(tmp_path / "empty"), verbose=False)


def test_split_dataset_arrays_and_rules():
    x = np.arange(20, dtype="float32").reshape(10, 2)
    y = np.arange(10)
    left, right = kgraph.utils.split_dataset((x, y), left_size=0.7)
    assert len(left) == 7 and len(right) == 3
    np.testing.assert_array_equal(right[0][0], x[7])
    left, right = kgraph.utils.split_dataset([x, y], right_size=4, shuffle=True, seed=3)
    seen = sorted(int(s[1]) for s in list(left) + list(right))
    assert seen == list(range(10)) and isinstance(left[0], tuple)
    left, right = kgraph.utils.split_dataset(x, left_size=2, right_size=3)
    assert len(left) == 2 and len(right) == 3
    np.testing.assert_array_equal(right[2], x[9])
    errors = [(dict(), ValueError, "At least one of"),
              (dict(left_size=0, right_size=0), ValueError, "Both `left_size`"),
              (dict(left_size=10), ValueError, "`left_size` should be"),
              (dict(right_size=1.0), ValueError, "`right_size` should be"),
              (dict(left_size=0.6, right_size=0.6), ValueError, "greater than 1"),
              (dict(left_size=6, right_size=6), ValueError, "should be smaller"),
              (dict(left_size="5"), TypeError, "Invalid `left_size` Type"),
              (dict(left_size=0.01), ValueError, "will be empty")]
    for kwargs, error, message in errors:
        with pytest.raises(error, match=message):
            kgraph.utils.split_dataset(x, **kwargs)
        if kwargs:  # Keras's size rules raise the same errors
            with pytest.raises(error, match=message):
                keras.src.utils.dataset_utils._rescale_dataset_split_sizes(
                    kwargs.get("left_size"), kwargs.get("right_size"), 10)
    with pytest.raises(TypeError, match="Unsupported dataset type"):
        kgraph.utils.split_dataset({"x": x}, left_size=2)
    with pytest.raises(ValueError, match="different lengths"):
        kgraph.utils.split_dataset((x, y[:5]), left_size=2)


def test_split_dataset_sizes_match_keras():
    for left, right, n in [(0.33, None, 10), (None, 0.25, 7), (3, None, 9), (0.5, 0.3, 11)]:
        ours = kgraph.utils.dataset_utils._rescale_sizes(left, right, n)
        assert ours == keras.src.utils.dataset_utils._rescale_dataset_split_sizes(left, right, n)


def test_split_image_dataset_and_fit(image_dir):
    ds = kgraph.utils.image_dataset_from_directory(image_dir, image_size=(5, 5), batch_size=4,
                                                   seed=8, verbose=False)
    left, right = kgraph.utils.split_dataset(ds, left_size=8)
    assert [len(b[1]) for b in left] == [4, 4] and [len(b[1]) for b in right] == [4]
    all_images = np.concatenate([b[0] for b in ds])
    np.testing.assert_allclose(np.concatenate([b[0] for b in right]), all_images[8:])
    model = kgraph.Sequential([kgraph.Input((5, 5, 3)), kgraph.layers.Flatten(),
                               kgraph.layers.Dense(3)])
    model.compile("sgd", kgraph.losses.SparseCategoricalCrossentropy(from_logits=True))
    model.fit(left, epochs=1, verbose=0)
    texts = kgraph.utils.text_dataset_from_directory(
        os.path.dirname(image_dir), labels=None, batch_size=2, shuffle=False, verbose=False)
    a, b = kgraph.utils.split_dataset(texts, right_size=1)
    assert list(a)[0] == ("ignored", "ignored") and len(list(b)) == 1
