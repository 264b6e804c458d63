"""A catalog of mistakes users make (``tests/support/bad_input_cases.py``), each raising the
exception it must, at the stage it must (the setup before it succeeds), with a message that
names the layer or argument, what was expected and what was received."""

import pytest

from tests.support.bad_input_cases import CASES, STAGES, _At


def test_catalog_is_large_and_covers_every_stage():
    assert len(CASES) >= 100
    assert len({c.name for c in CASES}) == len(CASES)
    assert {c.stage for c in CASES} == set(STAGES)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_input(case):
    at = _At()
    with pytest.raises(case.error) as info:
        case.fn(at)
    assert at.stage == case.stage, (
        f"raised during setup (stage reached: {at.stage}), not at {case.stage}: {info.value!r}")
    message = str(info.value)
    missing = [s for s in case.contains if s not in message]
    assert not missing, f"message lacks {missing}: {message}"
