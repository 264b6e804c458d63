"""Models: ``Model``, ``Functional``, ``Sequential`` and tracing subclassed models."""
