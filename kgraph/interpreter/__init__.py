"""Running graphs: the graph walk (topological order, ``run_graph``), the call
context layers read weights and keys from, and Keras masks beside the values."""
