"""Reading a workbook as a form (issue 45): named-range forms first, then label / input layouts."""

from __future__ import annotations

from pathlib import Path

from autofill.forms.model import Form


def read_form(path: Path) -> Form | None:
    """The workbook at `path` read as a form, or None when it is not one (a list of questions)."""
    raise NotImplementedError("forms.reader.read_form is being written (issue 45)")
