"""``keras.src.export``: Keras's exporters, each of which writes another framework's format
(a TensorFlow SavedModel, ONNX, OpenVINO, LiteRT, a PyTorch program) by running the model
under that framework. kgraph's models are JAX programs: ``compiler.export(program,
directory)`` writes one that runs without kgraph. The names are here so that code importing
them loads; using one raises an error saying so.

>>> ExportArchive()
Traceback (most recent call last):
...
NotImplementedError: ExportArchive writes a TensorFlow SavedModel, which needs TensorFlow's graph: kgraph models are JAX programs; export one with compiler.export(program, directory).
"""

from __future__ import annotations

__all__ = ["ExportArchive", "LiteRTExporter", "TFSMLayer", "export_litert", "export_onnx",
           "export_openvino", "export_saved_model", "export_torch"]


def _refuse(name: str, what: str):
    raise NotImplementedError(
        f"{name} writes {what}: kgraph models are JAX programs; export one with "
        "compiler.export(program, directory).")


class ExportArchive:
    """Keras's TensorFlow SavedModel writer (see the module docstring)."""

    def __init__(self, *args, **kwargs):
        _refuse("ExportArchive", "a TensorFlow SavedModel, which needs TensorFlow's graph")


class TFSMLayer:
    """Keras's layer that reloads a TensorFlow SavedModel (see the module docstring)."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(
            "TFSMLayer runs a TensorFlow SavedModel, which needs TensorFlow: kgraph models "
            "are JAX programs (compiler.export writes one that runs with JAX alone).")


class LiteRTExporter:
    """Keras's LiteRT (TensorFlow Lite) writer (see the module docstring)."""

    def __init__(self, *args, **kwargs):
        _refuse("LiteRTExporter", "a LiteRT (TensorFlow Lite) model, which needs TensorFlow")


def export_saved_model(*args, **kwargs):
    """Keras's TensorFlow SavedModel export (see the module docstring)."""
    _refuse("export_saved_model", "a TensorFlow SavedModel, which needs TensorFlow's graph")


def export_onnx(*args, **kwargs):
    """Keras's ONNX export (see the module docstring)."""
    _refuse("export_onnx", "an ONNX model through TensorFlow or PyTorch")


def export_openvino(*args, **kwargs):
    """Keras's OpenVINO export (see the module docstring)."""
    _refuse("export_openvino", "an OpenVINO model, which needs OpenVINO")


def export_litert(*args, **kwargs):
    """Keras's LiteRT export (see the module docstring)."""
    _refuse("export_litert", "a LiteRT (TensorFlow Lite) model, which needs TensorFlow")


def export_torch(*args, **kwargs):
    """Keras's PyTorch program export (see the module docstring)."""
    _refuse("export_torch", "a PyTorch program, which needs PyTorch")
