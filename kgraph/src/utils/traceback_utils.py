"""``keras.src.utils.traceback_utils``: the traceback-filtering setting, as Keras names it
(``kgraph.config``'s; kgraph raises its errors where they are made, so nothing is filtered).

>>> was = is_traceback_filtering_enabled()
>>> disable_traceback_filtering(); is_traceback_filtering_enabled()
False
>>> (enable_traceback_filtering if was else disable_traceback_filtering)()
"""

from __future__ import annotations

from kgraph.config import (disable_traceback_filtering, enable_traceback_filtering,
                           is_traceback_filtering_enabled)

__all__ = ["disable_traceback_filtering", "enable_traceback_filtering",
           "is_traceback_filtering_enabled"]
