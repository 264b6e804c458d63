"""``keras.src.distribution.distribution_lib``: kgraph's ``keras.distribution`` (meshes,
layouts, the distribution set now) under Keras's internal path."""

from kgraph.distribution import distribution_lib as _lib
from kgraph.distribution.distribution_lib import *  # noqa: F401,F403

__all__ = list(_lib.__all__)
