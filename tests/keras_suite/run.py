"""Run some of Keras's own test cases against kgraph (or Keras, ``--keras``), with pytest's
own output: for working on a failing case.

    python -m tests.keras_suite.run keras/src/layers/core/dense_test.py -x
    python -m tests.keras_suite.run "keras/src/ops/nn_test.py::NNOpsCorrectnessTest::test_relu"
    python -m tests.keras_suite.run --keras keras/src/losses/losses_test.py   # the oracle

Cases are named as Keras's ids, ``keras/src/<folder>/<file>_test.py::<Class>::<test>``;
other arguments go to pytest.
"""

from __future__ import annotations

import os
import subprocess
import sys

from tests.keras_suite import suite


def main(argv=None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    mode = "keras" if "--keras" in args else "kgraph"
    args = [a for a in args if a != "--keras"]
    env = {**suite.base_environment(), "KGRAPH_KERAS_SUITE": mode}
    command = [sys.executable, "-m", "pytest", "-c",
               os.path.join(suite.REPOSITORY, "tests", "keras_suite", "pytest.ini"),
               "--rootdir", str(suite.KERAS_FOLDER.parent), "-p", "tests.keras_suite.plugin",
               *args]
    return subprocess.run(command, cwd=suite.KERAS_FOLDER.parent, env=env,
                          preexec_fn=suite.limit_memory).returncode


if __name__ == "__main__":
    sys.exit(main())
