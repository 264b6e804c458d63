"""The report's table: counts by Keras folder and the total, the pass rate of the cases run
and the ledger's share, as the docs show it (``--results``)."""

from tests.keras_suite import report


def test_the_table_counts_each_outcome_by_folder():
    outcomes = {"keras/src/layers/core/dense_test.py::DenseTest::test_a": ("passed", ""),
                "keras/src/layers/core/dense_test.py::DenseTest::test_b": ("failed", "x"),
                "keras/src/layers/core/dense_test.py::DenseTest::test_c": ("ledger", "backend"),
                "keras/src/losses/losses_test.py::MSETest::test_d": ("skipped", "")}
    table = report.table(outcomes, ["--all", "--save", "out/", "--results"])
    assert table.name == "keras_suite"
    assert table.command == "python -m tests.keras_suite.report --all"
    assert table.rows == [["`layers/`", 3, 1, 1, 0, 1, 0, "50.0%", "33.3%"],
                          ["`losses/`", 1, 0, 0, 1, 0, 0, "-", "0.0%"],
                          ["**total**", 4, 1, 1, 1, 1, 0, "50.0%", "25.0%"]]
    assert table.markdown().splitlines()[0].startswith("| Keras folder | cases | passed |")
