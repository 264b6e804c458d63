"""What of Keras 3's public API ``import kgraph as keras`` offers: every public name of the
Keras modules below exists in kgraph's module of the same name, except those listed here
with the reason. The list must stay exact both ways (a name added makes its entry stale)."""

import types

import keras
import pytest

import kgraph

MISSING = {
    "layers": {
        "TFSMLayer": "TensorFlow SavedModels", "TorchModuleWrapper": "PyTorch modules"},
    "config": {"is_nnx_enabled": "Flax NNX",
               "set_backend": "the backend is always JAX"},
}
MODULES = ["", "layers", "activations", "initializers", "regularizers", "constraints",
           "models", "utils", "config", "backend", "random", "losses", "metrics",
           "optimizers", "optimizers.schedules", "callbacks", "saving", "datasets",
           "dtype_policies", "mixed_precision", "tree", "ops", "ops.nn", "ops.numpy",
           "ops.linalg", "ops.image", "preprocessing", "preprocessing.image",
           "preprocessing.sequence", "distribution", "applications", "applications.vgg16",
           "applications.vgg19", "applications.resnet", "applications.resnet50",
           "applications.resnet_v2", "applications.mobilenet", "applications.mobilenet_v2",
           "applications.densenet", "applications.xception", "applications.inception_v3",
           "applications.efficientnet", "applications.convnext",
           "applications.mobilenet_v3", "applications.efficientnet_v2",
           "applications.inception_resnet_v2", "applications.nasnet", "optimizers.legacy",
           "legacy", "legacy.saving", "utils.legacy", "datasets.reuters",
           "utils.bounding_boxes", "visualization", "quantizers", "distillation", "wrappers"]
# Keras modules without a kgraph counterpart: ``export`` (``ExportArchive`` writes TensorFlow
# SavedModels through TensorFlow, as ``TFSMLayer`` reads them; kgraph's programs export
# with ``compiler.export`` as ``jax.export`` artefacts) and ``src`` (Keras's implementation,
# not API).
KERAS_ONLY_MODULES = {"export", "src"}


def _module(root, path):
    for part in filter(None, path.split(".")):
        root = getattr(root, part)
    return root


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p or "keras")
def test_keras_names_exist_or_are_listed(path):
    theirs, ours = _module(keras, path), _module(kgraph, path)
    names = {n for n in dir(theirs) if not n.startswith("_")}
    if path not in ("", "datasets"):  # submodules are checked one by one above
        names = {n for n in names if not isinstance(getattr(theirs, n), types.ModuleType)}
    names -= KERAS_ONLY_MODULES if path == "" else set()
    missing = {n for n in names if not hasattr(ours, n)}
    assert missing == set(MISSING.get(path, {})), (
        f"missing but not listed: {sorted(missing - set(MISSING.get(path, {})))}; listed but "
        f"present: {sorted(set(MISSING.get(path, {})) - missing)}")


def test_the_census_counts_each_object_once_and_finds_it_by_any_path():
    from tests.support.keras_api_census import census

    shared = object()
    theirs, theirs_sub, theirs_src = (types.ModuleType(n) for n in ("k", "k.sub", "keras.src"))
    theirs.sub, theirs.src, theirs.a, theirs.b = theirs_sub, theirs_src, shared, object()
    theirs_sub.a, theirs_sub.c = shared, object()
    theirs_src.hidden = object()
    ours, ours_sub = types.ModuleType("o"), types.ModuleType("o.sub")
    ours.sub, ours_sub.a = ours_sub, object()
    found, total, missing = census(theirs, ours)
    assert (found, total) == (1, 3)  # `a` once (found as sub.a), `b`, `sub.c`; src skipped
    assert missing == {"keras": ["b"], "sub": ["c"]}
