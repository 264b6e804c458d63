"""``LoadError``: a file that cannot be loaded safely, or that does not fit its model.

Raised for every refusal of the file loaders (``load_model``, ``load_weights``); the
message names the file, the member or weight concerned, what was expected and what was
found. It is a ``ValueError``, as Keras's loading errors are.
"""

__all__ = ["LoadError"]


class LoadError(ValueError):
    """A file refused by a loader: unsafe, malformed, or not matching the model."""
