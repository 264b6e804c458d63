"""``keras.optimizers.schedules``: the schedules of ``runtime.optimizers.schedules``."""

from runtime.optimizers.schedules import *  # noqa: F401,F403 - the public catalog
from runtime.optimizers.schedules import __all__  # noqa: F401
