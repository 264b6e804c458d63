"""Keras's ``metrics_utils`` enums: ``AUC``'s curve and summation method.

>>> AUCCurve.from_str("pr"), AUCSummationMethod.from_str("majoring").value
(<AUCCurve.PR: 'PR'>, 'majoring')
"""

from __future__ import annotations

import enum

__all__ = ["AUCCurve", "AUCSummationMethod"]


class _Named(str, enum.Enum):
    """An enum whose members are found by their value, in any case (``from_str``)."""

    @classmethod
    def from_str(cls, key):
        """The member whose value is ``key`` (any case), with Keras's error otherwise."""
        if isinstance(key, cls):
            return key
        for member in cls:
            if str(key).lower() == member.value.lower():
                return member
        raise ValueError(cls._invalid(key))


class AUCCurve(_Named):
    """The curve ``AUC`` integrates: ROC, precision-recall, or precision-recall-gain."""

    ROC = "ROC"
    PR = "PR"
    PRGAIN = "PRGAIN"

    @staticmethod
    def _invalid(key) -> str:
        return (f'Invalid AUC curve value: "{key}". Expected values are '
                '["PR", "ROC", "PRGAIN"]')


class AUCSummationMethod(_Named):
    """How ``AUC`` sums the area between thresholds: the mid-point ("interpolation"; for
    PR, Davis & Goadrich's interpolation), the larger ("majoring") or the smaller
    ("minoring") end."""

    INTERPOLATION = "interpolation"
    MAJORING = "majoring"
    MINORING = "minoring"

    @staticmethod
    def _invalid(key) -> str:
        return (f'Invalid AUC summation method value: "{key}". Expected values are '
                '["interpolation", "majoring", "minoring"]')
