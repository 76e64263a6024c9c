"""`autofill review` on a filled form (issue 45): the form's datapoints are the page's rows.

Each datapoint (named range or "Sheet!B12", read from the Evidence sheet's datapoint rows: review/reader.py)
is a row keyed by its input cell: its label, section, named range and cell, the value its cell holds (or,
when the cell is empty, the value its run left waiting for approval), with its unit, Status, checks and
cited passages. The value is edited as its type (forms.values.parse_value: a number in the form's unit, a
drop-down value, yes / no, a year, a date); a value that is not one is refused naming the datapoint, and
nothing is recorded. An approval or an edit of the value writes it into the form's input cell(s) the way
`autofill run` does (forms.answer.cell_writes through workbook/package.patch_bytes: only those cells
change, so cross-sheet drop-downs and formulas' cached values stay), after the decision is committed to
the sidecar; every decision is a line of the Review log sheet (added or extended at the package level, no
openpyxl save of the form). The Review and Reviewer comment of a datapoint have no cell in a form: they are
read back from the Review log."""

from __future__ import annotations

import logging
from pathlib import Path

from autofill.errors import InputError
from autofill.forms.model import DatapointKind, FormCell
from autofill.forms.reader import read_form
from autofill.forms.values import TypedValue, ValueType, cell_value, parse_value
from autofill.review.reader import read_filled_workbook
from autofill.review_app.apply import read_log
from autofill.review_app.form_apply import apply_form_decisions
from autofill.review_app.session import ACTIONS, Refused, ReviewSession, Saved, _edited
from autofill.review.sidecar import version_of
from autofill.workbook.package import CellWrite
from autofill.forms.carry import cell_values

log = logging.getLogger(__name__)

LOGGED = {"Review": "review", "Reviewer comment": "reviewer_comment"}  # read back from the Review log


def is_form_output(path: Path) -> bool:
    """True when `path` is a filled form (its Evidence sheet lists datapoints)."""
    try:
        return read_filled_workbook(path).form
    except InputError:
        return False


def open_session(settings, path: Path) -> ReviewSession:
    """The review session of `path`: a form's (its datapoints as rows) or a questionnaire's."""
    return FormSession(settings, path) if is_form_output(path) else ReviewSession(settings, path)


class _Checked:
    def __init__(self, cells: dict[str, str]):
        self._cells = cells

    def cells(self) -> dict[str, str]:
        return dict(self._cells)


class FormChecker:
    """What the page asks of a row's checker, for a datapoint: its drop-down values, its value as
    written, and (undo) its checks as the run left them."""

    def __init__(self, session: "FormSession"):
        self.session = session

    def choices(self, key: str) -> list[str]:
        dp = self.session.datapoint(key)
        if dp is None:
            return []
        if dp.kind is DatapointKind.BOOLEAN:
            return list(dp.allowed) or ["Yes", "No"]
        return list(dp.allowed) if dp.kind is DatapointKind.ENUMERATION else []

    def canonical(self, key: str, text: str) -> str:
        return self.session.typed(key, text)[0]

    def check(self, key: str, after: dict[str, str]) -> _Checked:
        q = self.session.questions[key]
        return _Checked({"tier": q.tier, "checks": q.checks})


class FormSession(ReviewSession):
    """A filled form under review: rows are datapoints, keyed "Sheet!D5" by their (first) input cell."""

    def __init__(self, settings, workbook: Path, **kw):
        self._form = None
        self._cells: dict[str, list] = {}  # row key -> its cells once every recorded decision is written
        super().__init__(settings, workbook, **kw)

    def _load(self) -> None:
        super()._load()
        self._cells = self._cells_now()

    def _cells_now(self) -> dict[str, list]:
        """Each datapoint's cells [(sheet, ref, value)] as the file holds them, with the decisions the
        file does not hold yet laid over (what an approval or edit will find there when it is written)."""

        points = {key: dp for key in self.questions if (dp := self.datapoint(key)) is not None}
        held = cell_values(self.path, list({dp.key: dp for dp in points.values()}.values())) if points else {}
        cells = {key: [tuple(c) for c in held.get(dp.key, [])] for key, dp in points.items()}
        for d in self.store.pending():
            if d.row_key in cells:
                writes = self.cell_writes(d)
                if writes is not None:
                    cells[d.row_key] = writes
        return cells

    def cell_writes(self, d) -> list[tuple] | None:
        """[(sheet, ref, value)] decision `d` writes into its datapoint's cells, None when it writes none:
        an approval, or a changed value, writes the value as its type; an Undo puts back the cells as they
        were before the decision it takes back (an approved value that was waiting leaves the form again);
        an Undo recorded without them writes its restored value, as an edit does."""
        if d.action == "Undo" and "cells" in d.after:
            return cells_from_json(d.after["cells"])
        if d.action == "Approve" or any(f == "answer" for f, _b, _a in d.changes()):
            try:
                return [(w.sheet, w.ref, w.value) for w in self.typed(d.row_key, d.after.get("answer", ""))[1]]
            except Refused as exc:
                log.warning("decision %d not written into the form: %s", d.id, exc)
                return None
        return None

    def _undo_extra(self, last) -> dict:
        return {"cells": last.before["cells"]} if "cells" in last.before else {}

    def undo(self, key: str, base: str, reviewer: str) -> Saved:
        saved = super().undo(key, base, reviewer)
        writes = self.cell_writes(saved.decision) if saved.decision is not None else None
        if writes is not None:
            with self._lock:
                self._cells[key] = writes
        return saved

    # ------------------------------------------------------------------ reading
    def _read_book(self):
        book = read_filled_workbook(self.path)
        if not book.form:
            raise InputError(f"{self.path.name} is not a filled form")
        self._form = None  # read again: the file changed
        by_key = {q.key: q for q in book.questions}
        for q in book.questions:
            dp = self.datapoint(q.key)
            if dp is not None:
                q.kind = dp.kind.value
                q.unit = dp.unit or q.unit or _unit_symbol(dp)  # the form's own spelling (tCO2e)
                q.answer = _shown(dp, q.answer)
            if not q.answer and q.waiting:
                q.answer = q.waiting  # the value the run could not write: approving it writes it
        for line in read_log(self.path):  # the Review and comment a form has no cell for
            key = f"{line.get('Sheet')}!{line.get('Row')}"
            attr = LOGGED.get(str(line.get("Field") or ""))
            if key in by_key and attr:
                setattr(by_key[key], attr, "" if line.get("After") is None else str(line.get("After")))
        return book

    def datapoint(self, key: str):
        """The form's Datapoint of row `key` (forms.reader.read_form on the output, read once)."""
        if self._form is None:
            self._form = read_form(self.path) or False
        if not self._form:
            return None
        q = getattr(self, "questions", {}).get(key)
        named = q.named if q is not None else ""
        if named and self._form.table(named) is not None:
            return None  # an open table's own row lists its evidence; its cells are rows "Column[2]"
        if named and "[" in named:  # one cell of an open table (forms/tables.py): that row's cell of the column
            from autofill.forms.tables import cell_datapoint

            return cell_datapoint(self._form, named)
        for dp in self._form.datapoints:
            if (named and dp.key == named) or (not named and f"{dp.cell.sheet}!{dp.cell.ref}" == key):
                return dp
        sheet, _, ref = key.rpartition("!")
        return next((dp for dp in self._form.datapoints if (dp.cell.sheet, dp.cell.ref) == (sheet, ref)), None)

    @property
    def checker(self) -> FormChecker:
        if self._checker is None:
            self._checker = FormChecker(self)
        return self._checker

    # ------------------------------------------------------------------ typed values
    def typed(self, key: str, text: str) -> tuple[str, list]:
        """(the value as the page shows it, the cell writes) of `text` for row `key`'s datapoint; a value
        that is not of the datapoint's type is refused naming the datapoint (400, nothing recorded)."""
        from autofill.forms.answer import KIND_TYPES, cell_writes, form_unit

        text = (text or "").strip()
        dp = self.datapoint(key)
        q = self.questions[key]
        sheet, _, ref = key.rpartition("!")
        cells = dp.cells if dp is not None else (FormCell(sheet, ref),)
        if self._form and any(self._form.is_formula(c) for c in cells):
            raise Refused(f"{q.question} ({q.named or key}): the form computes this cell with a formula; "
                          "it is never written")
        if dp is None:
            raise Refused(f"{q.question} ({q.named or key}): the form has no such datapoint any more")
        if not text:
            return "", [CellWrite(c.sheet, c.ref, None) for c in dp.cells]
        vtype = KIND_TYPES.get(dp.kind, ValueType.TEXT)
        value = parse_value(text, vtype, form_unit(dp), list(dp.allowed))
        if not value.ok:
            want = {ValueType.NUMBER: f"a number{f' in {q.unit}' if q.unit else ''}", ValueType.INTEGER: "a whole number",
                    ValueType.BOOLEAN: "yes or no", ValueType.ENUM: "one of " + ", ".join(dp.allowed),
                    ValueType.DATE: "a date (YYYY-MM-DD)"}.get(vtype, "a text")
            raise Refused(f"{q.question} ({q.named or key}): {text!r} is not {want}"
                          f"{f' ({value.problem})' if value.problem else ''}; nothing was saved")
        writes = [CellWrite(sheet, ref, v) for sheet, ref, v in cell_writes(dp, value)]
        shown = value.value
        if isinstance(shown, bool):
            shown = cell_value(TypedValue(shown, text), dp.allowed) if dp.allowed else ("Yes" if shown else "No")
        return _text(shown), writes

    # ------------------------------------------------------------------ deciding
    def decide(self, key: str, base: str, reviewer: str, action: str, values: dict[str, str] | None = None,
               note: str = "", confirm: list[str] | None = None) -> Saved:
        """One decision on a datapoint: its value checked as its type (the page's typed editors send
        text), an approval of an empty value refused; committed to the sidecar before it returns."""
        reviewer = self._reviewer_for(reviewer, action)
        with self._lock:
            current = self._unlocked(key, base, action, "datapoint")
            after, replaced = _edited(current, {k: v for k, v in (values or {}).items()
                                                if k in ("answer", "reviewer_comment")})
            if action in ACTIONS:
                after["review"] = ACTIONS[action].label
            if after["answer"] != current["answer"] or action == "Approve":
                after["answer"] = self.typed(key, after["answer"])[0]
            if action == "Approve" and not after["answer"]:
                raise Refused(f"{self.questions[key].question}: there is no value to approve; enter one first")
            if after == current:
                return Saved(None, current, version_of(current), self.trust.get(key))
            # The cells as they are before this decision: what an Undo of it puts back.
            held = {**current, "cells": cells_to_json(self._cells.get(key, []))}
            d = self.store.add(key, self.questions[key].question, reviewer, action, held, after, note)
            self.states[key] = after
            writes = self.cell_writes(d)
            if writes is not None:
                self._cells[key] = writes
        self._wake.set()
        return Saved(d, after, version_of(after), self.trust.get(key), replaced)

    # ------------------------------------------------------------------ writing
    def _apply(self, decisions) -> list[int]:
        return apply_form_decisions(self, decisions)


def cells_to_json(cells) -> list:
    """Cells [(sheet, ref, value)] as a decision records them (a date as {"date": ISO})."""
    return [[sheet, ref, {"date": v.isoformat()} if hasattr(v, "isoformat") else v] for sheet, ref, v in cells]


def cells_from_json(cells) -> list[tuple]:
    from datetime import datetime

    return [(sheet, ref, datetime.fromisoformat(v["date"]) if isinstance(v, dict) and "date" in v else v)
            for sheet, ref, v in cells or []]


def _unit_symbol(dp) -> str:
    from autofill.forms.answer import form_unit

    unit = form_unit(dp)
    return unit.symbol if unit is not None else dp.unit


def _text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return str(value)


def _shown(dp, cell_text: str) -> str:
    """The cell's value in the terms the reviewer edits (those of forms.values.parse_value): a
    percentage cell's 0.25 as 25, a figure in thousands as the whole figure."""
    if not cell_text or dp.kind not in (DatapointKind.NUMBER, DatapointKind.PERCENT):
        return cell_text
    try:
        n = float(cell_text)
    except ValueError:
        return cell_text
    n = n * 100 if dp.kind is DatapointKind.PERCENT else n * 10 ** dp.scale if dp.scale else n
    return _text(round(n, 10))
