"""Showing models: ``summary()`` tables and ``plot_model`` graphs."""
