"""Every layer in the catalog passes every generic check (see tests/support/conformance.py)."""

import jax
import jax.numpy as jnp
import pytest

import kgraph as kg
from tests.support.conformance import CHECKS, LayerCase, check_config_round_trip, check_finite_differences
from tests.support.layer_cases import all_cases

CASES = all_cases()


# A case's checks run in one process (pytest-xdist's loadgroup), where its gradient checks
# share their compiled functions.
@pytest.mark.parametrize("check", CHECKS, ids=[c.__name__.removeprefix("check_") for c in CHECKS])
@pytest.mark.parametrize("case", [pytest.param(c, id=c.name, marks=pytest.mark.xdist_group(c.name))
                                  for c in CASES])
def test_layer_conformance(case, check):
    check(case)


@jax.custom_vjp
def _cube(x):
    return x ** 3


def _cube_fwd(x):
    return x ** 3, x


def _cube_bwd(x, g):
    return (2.0 * x ** 2 * g,)  # wrong: the derivative is 3 x^2


_cube.defvjp(_cube_fwd, _cube_bwd)


class _WrongGradient(kg.Layer):
    def call(self, inputs):
        return _cube(inputs)


def test_the_finite_difference_check_catches_a_wrong_gradient():
    case = LayerCase("wrong_gradient", lambda **kw: _WrongGradient(**kw), (3,))
    with pytest.raises(AssertionError, match="cotangent projection"):
        check_finite_differences(case)
    right = LayerCase("right_gradient", lambda **kw: kg.layers.Lambda(lambda x: x ** 3, **kw),
                      (3,))
    check_finite_differences(right)


def test_a_check_that_does_not_apply_is_skipped_with_the_case_reason():
    case = LayerCase("callable", lambda **kw: kg.layers.Activation(jnp.tanh, **kw), (3,),
                     skip={"config_round_trip": "a Python function"})
    with pytest.raises(pytest.skip.Exception, match="config_round_trip does not apply to "
                                                    "callable: a Python function"):
        check_config_round_trip(case)
