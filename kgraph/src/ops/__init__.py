"""``keras.src.ops``: Keras's op modules as Keras's own code reads them, each with its
functions (kgraph's ops) and Keras's op classes made from the op registry
(``kgraph.ops.operation_classes``)."""
