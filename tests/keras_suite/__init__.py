"""Keras's own test suite, run against kgraph: the files of the installed ``keras`` wheel
run with ``keras`` resolving to kgraph (``plugin``), cases that cannot apply to kgraph listed
with their reason in one ledger (``ledger``), the run split into shards (``suite``) that the
test suite runs (``test_keras_suite``), and a report by Keras folder (``report``)."""
