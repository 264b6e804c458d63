"""keras.applications-class networks saved by Keras 3 load into kgraph with Keras's
numbers, and kgraph's files of them load into Keras (architectures built by Keras at test
time with random weights; no file is committed). One network keeps the suite quick;
``benchmarks/bench_saving.py --network EfficientNetB0`` (or ``DenseNet121``, ``ResNet50``,
``NASNetMobile``) checks others the same way before timing them."""


import keras
import numpy as np
import pytest

import kgraph as kg

NETWORKS = {"MobileNetV2": {"alpha": 0.35}}


def _error(got, want):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    return float(np.max(np.abs(got - want))) / max(float(np.max(np.abs(want))), 1.0)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(NETWORKS))
def test_keras_application_files_load_both_ways(name, tmp_path):
    network = getattr(keras.applications, name)(weights=None, input_shape=(32, 32, 3),
                                                **NETWORKS[name])
    rng = np.random.default_rng(0)
    for variable in network.weights:  # statistics away from their initial values
        if "moving" in variable.path or "variance" in variable.path or "mean" in variable.path:
            variable.assign(rng.uniform(0.5, 1.5, variable.shape).astype(variable.dtype))
    images = rng.uniform(0, 255, (2, 32, 32, 3)).astype("float32")
    reference = network.predict(images, verbose=0)  # compiled: far quicker than eager
    keras_path = str(tmp_path / "keras.keras")
    network.save(keras_path)

    model = kg.load_model(keras_path)
    assert _error(model.predict(images, verbose=0), reference) <= 1e-3
    assert model.count_params() == network.count_params()

    # the pretrained weights' format: a legacy HDF5 weights file, matched by layer order
    import h5py
    from keras.src.legacy.saving import legacy_h5_format

    legacy = str(tmp_path / "weights_tf_dim_ordering_tf_kernels.h5")
    with h5py.File(legacy, "w") as file:
        legacy_h5_format.save_weights_to_hdf5_group(file, network)
    fresh = kg.models.clone_model(model)
    fresh.load_weights(legacy)
    for a, b in zip(fresh.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(a, b)

    ours = str(tmp_path / "kgraph.keras")
    model.save(ours)
    back = keras.saving.load_model(ours)
    assert _error(back.predict(images, verbose=0), reference) <= 1e-3
