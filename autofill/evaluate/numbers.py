"""Figures in answers against the gold answer's. The parser lives in `autofill.checks.numbers` (the
trust checks use the same one on cited passages); this module keeps eval's matching on top of it."""

from __future__ import annotations

from autofill.checks.numbers import NumberMatch, Quantity, close, extract_quantities, number_match, \
    quantities_match

__all__ = ["NumberMatch", "Quantity", "close", "extract_quantities", "number_match", "quantities_match"]
