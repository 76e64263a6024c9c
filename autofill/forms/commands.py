"""`autofill inspect` on a form: read it (named ranges before the question-column reading, a label /
input layout only when no question column is found), map its datapoints to framework requirements,
and print the text or JSON view."""

from __future__ import annotations

from pathlib import Path

from autofill.cli_common import emit, emit_json
from autofill.forms.mapping import form_mapping
from autofill.forms.view import form_json, form_text


def inspect_form(settings, path: Path, *, explicit: bool, as_json: bool, before_questions: bool,
                 language: str = "") -> bool:
    """Show `path` as a form when it is one; False (nothing shown) otherwise. `explicit`: the user gave
    sheet / column options, so the workbook is a list of questions."""
    if explicit:
        return False
    from autofill.forms.reader import read_form

    form = read_form(path, language=language, layout=False) if before_questions else read_form(path, named=False)
    if form is None:
        return False

    mapping = form_mapping(settings, form)
    if as_json:
        emit_json(form_json(form, mapping))
    else:
        emit(form_text(form, mapping))
    return True
