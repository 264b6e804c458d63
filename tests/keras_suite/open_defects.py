"""Keras's test cases that fail on kgraph for a defect not fixed yet, each with the error it
gives: written by ``python -m tests.keras_suite.report --all --load DIR --write-open`` from a
run's results, and read by ``expected_failures.OPEN``. The list only shrinks: a case fixed
passes, and the suite then asks for it to be removed from here.
"""

OPEN_DEFECTS: dict[str, str] = {
}
