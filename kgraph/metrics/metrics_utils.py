"""Keras's ``metrics_utils`` enums: ``AUC``'s curve and summation method.

>>> AUCCurve.from_str("pr"), AUCSummationMethod.from_str("majoring").value
(<AUCCurve.PR: 'PR'>, 'majoring')
"""

from __future__ import annotations

import enum

__all__ = ["AUCCurve", "AUCSummationMethod"]


class AUCCurve(str, enum.Enum):
    """The curve ``AUC`` integrates: ROC, precision-recall, or precision-recall-gain."""

    ROC = "ROC"
    PR = "PR"
    PRGAIN = "PRGAIN"

    @staticmethod
    def from_str(key) -> AUCCurve:
        """The curve named ``key`` (any case)."""
        if isinstance(key, AUCCurve):
            return key
        for curve in AUCCurve:
            if str(key).upper() == curve.value:
                return curve
        raise ValueError(f'Invalid AUC curve value: "{key}". Expected values are '
                         '["PR", "ROC", "PRGAIN"]')


class AUCSummationMethod(str, enum.Enum):
    """How ``AUC`` sums the area between thresholds: the mid-point ("interpolation"; for
    PR, Davis & Goadrich's interpolation), the larger ("majoring") or the smaller
    ("minoring") end."""

    INTERPOLATION = "interpolation"
    MAJORING = "majoring"
    MINORING = "minoring"

    @staticmethod
    def from_str(key) -> AUCSummationMethod:
        """The method named ``key`` (any case)."""
        if isinstance(key, AUCSummationMethod):
            return key
        for method in AUCSummationMethod:
            if str(key).lower() == method.value:
                return method
        raise ValueError(f'Invalid AUC summation method value: "{key}". Expected values '
                         'are ["interpolation", "majoring", "minoring"]')
