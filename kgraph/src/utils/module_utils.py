"""``keras.src.utils.module_utils``: optional libraries imported on first use, as Keras names
them (``tensorflow``, ``h5py``, ...): ``module_utils.tensorflow.data`` imports TensorFlow
then, and ``available`` says whether it can be.

>>> LazyModule("math").sqrt(4.0), LazyModule("no_such_module_here").available
(2.0, False)
"""

from __future__ import annotations

import importlib
import importlib.util

__all__ = ["LazyModule", "grain", "h5py", "tensorflow"]


class LazyModule:
    """The module ``name``, imported when one of its attributes is first read."""

    def __init__(self, name, pip_name=None, import_error_msg=None):
        self.name = name
        self.pip_name = pip_name or name
        self.import_error_msg = import_error_msg or (
            f"This requires the {name} module. You can install it via "
            f"`pip install {self.pip_name}`")
        self.module = None

    @property
    def available(self) -> bool:
        """Whether the module can be imported."""
        try:
            return importlib.util.find_spec(self.name) is not None
        except (ImportError, ValueError):
            return False

    def initialize(self):
        try:
            self.module = importlib.import_module(self.name)
        except ImportError:
            raise ImportError(self.import_error_msg) from None

    def __getattr__(self, name):
        if name in ("name", "pip_name", "import_error_msg", "module"):
            raise AttributeError(name)
        if self.module is None:
            self.initialize()
        return getattr(self.module, name)

    def __repr__(self):
        return f"LazyModule({self.name})"


tensorflow = LazyModule("tensorflow")
h5py = LazyModule("h5py")
grain = LazyModule("grain")
