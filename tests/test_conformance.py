"""Every layer in the catalog passes every generic check (see tests/conformance.py)."""

import pytest

from tests.conformance import CHECKS
from tests.layer_cases import all_cases

CASES = all_cases()


@pytest.mark.parametrize("check", CHECKS, ids=[c.__name__.removeprefix("check_") for c in CHECKS])
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_layer_conformance(case, check):
    check(case)
