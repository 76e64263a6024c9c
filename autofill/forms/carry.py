"""A filled form as a living document (issue 45): what a re-run keeps of the previous output.

The output records what autofill left in each datapoint's input cells: the very hidden sheet
`RECORD_SHEET` holds, per named range, its cells, a hash of their values as the output was written and
the Status the Evidence sheet gave it. On the next run of the same form into the same output:

- a datapoint whose cells no longer hash as recorded was changed by a person: their values win, it is
  not answered again, its Evidence says "kept: edited by hand" (also with `--fresh`);
- a datapoint whose Evidence rows carry `Approved` in the Review column (a value waiting for approval, or
  a draft's candidate) gets that row's Value written into the form, recorded as approved;
- a value an earlier run wrote that nobody touched is kept ("kept: earlier run") unless `--fresh`; one a
  person typed or approved on an earlier run stays theirs on every later run, `--fresh` too;
- everything else (empty, waiting, not disclosed, a draft, failed) is answered again.

The Evidence sheet's datapoint rows are in `EVIDENCE_COLUMNS` order (`EvidenceRow` reads one); the review
page (review_app) reads them through `read_evidence`.

    state = read_state(output, form)          # None: no earlier output of this form
    plan = plan_carry(form, points, state, fresh)
"""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any, Iterable

from autofill.forms.model import Datapoint, Form
from autofill.workbook.evidence import FORM_EVIDENCE_COLUMNS as EVIDENCE_COLUMNS  # defined there once
from autofill.workbook.evidence import FORM_REVIEW_COLUMN as REVIEW_COLUMN
from autofill.workbook.evidence import form_value
from autofill.forms.values import ValueType, parse_value

RECORD_SHEET = "autofill form record"
RECORD_COLUMNS = ["Named range", "Cells", "Hash", "Status"]

APPROVED = "approved"  # the Review cell's word (any case) that approves a row's Value

# The Evidence sheet of a form (its columns: workbook/evidence.FORM_EVIDENCE_COLUMNS): one row per
# datapoint and passage (its Rank), one per candidate value of a draft (Rank "candidate"), one for a
# datapoint with neither. Status is forms.answer.Decision's value; Review is the reviewer's ("Approved"
# writes that row's Value on the next run).


@dataclass(frozen=True)
class EvidenceRow:
    """One row of a form's Evidence sheet, by column name (EVIDENCE_COLUMNS)."""

    key: str
    cell: str
    label: str
    status: str
    review: str
    value: Any
    rank: Any
    values: tuple  # the whole row, EVIDENCE_COLUMNS order (columns the sheet lacks are None)

    @property
    def approved(self) -> bool:
        return self.review.strip().lower() == APPROVED


@dataclass
class CarriedState:
    """What the previous output holds: per named range its recorded hash and status, the current values
    of its cells, and its Evidence rows."""

    recorded: dict[str, tuple[str, str]]  # key -> (hash, status)
    current: dict[str, list[tuple[str, str, Any]]]  # key -> [(sheet, ref, value)] as the output holds them
    evidence: dict[str, list[EvidenceRow]] = field(default_factory=dict)

    def edited(self, key: str) -> bool:
        """The cells of `key` were changed since autofill wrote the output (recorded datapoints only)."""
        return key in self.recorded and key in self.current and \
            cells_hash(self.current[key]) != self.recorded[key][0]

    def approved(self, key: str) -> Any:
        """The value a reviewer approved for `key` (None: no approval): the approved row's Value (a
        candidate's too), else the datapoint's value on its other rows (only its cited rows show it)."""
        rows = self.evidence.get(key, [])
        marked = [r for r in rows if r.approved]
        if not marked:
            return None
        own = next((r.value for r in marked if r.value not in (None, "")), None)
        return own if own is not None else next(
            (r.value for r in rows if r.value not in (None, "") and r.rank != "candidate"), None)


def _normal(value: Any) -> str:
    """A cell value as the hash reads it: 1250 and 1250.0 alike, a date by its ISO day, text as it is."""
    if value is None or value == "":
        return ""
    if isinstance(value, bool):
        return f"b:{value}"
    if isinstance(value, (int, float)):
        return f"n:{float(value)!r}"
    if isinstance(value, (datetime, date)):
        return f"d:{value.isoformat()}"
    return f"s:{value}"


def cells_hash(cells: Iterable[tuple[str, str, Any]]) -> str:
    text = json.dumps([[s, r, _normal(v)] for s, r, v in cells], ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def cell_values(data: bytes | Path, points: Iterable[Datapoint]) -> dict[str, list[tuple[str, str, Any]]]:
    """The values the workbook holds in each datapoint's cells (as openpyxl reads them: what a person's
    Excel or openpyxl edit leaves); a sheet the workbook lacks reads as empty."""
    import openpyxl

    source = io.BytesIO(data) if isinstance(data, bytes) else data
    wb = openpyxl.load_workbook(source, read_only=True, data_only=False)
    try:
        out = {}
        for dp in points:
            out[dp.key] = [(c.sheet, c.ref, wb[c.sheet][c.ref].value if c.sheet in wb.sheetnames else None)
                           for c in dp.cells]
        return out
    finally:
        wb.close()


def record_rows(values: dict[str, list[tuple[str, str, Any]]], statuses: dict[str, str]) -> list[tuple]:
    """The record sheet's rows (RECORD_COLUMNS) for the values the output was written with."""
    return [(key, ";".join(f"{s}!{r}" for s, r, _ in cells), cells_hash(cells), statuses.get(key, ""))
            for key, cells in values.items()]


def read_state(output: Path, form: Form) -> CarriedState | None:
    """The previous output's state, or None when there is none, or it has no record (an output written
    before the record, or not by a run of a form): then the run starts from the form, as before."""
    import openpyxl

    output = Path(output)
    if not output.is_file():
        return None
    wb = openpyxl.load_workbook(output, read_only=True, data_only=False)
    try:
        if RECORD_SHEET not in wb.sheetnames:
            return None
        recorded = {}
        for row in list(wb[RECORD_SHEET].iter_rows(values_only=True))[1:]:
            if row and row[0]:
                recorded[str(row[0])] = (str(row[2] or ""), str(row[3] or ""))
        evidence = _evidence(wb)
    finally:
        wb.close()
    points = [dp for dp in form.datapoints if dp.key in recorded and not any(form.is_formula(c) for c in dp.cells)]
    return CarriedState(recorded, cell_values(output, points), evidence)


def read_evidence(path: Path) -> dict[str, list[EvidenceRow]]:
    """A filled form's Evidence rows by named range (empty when it has no Evidence sheet)."""
    import openpyxl

    wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
    try:
        return _evidence(wb)
    finally:
        wb.close()


def _evidence(wb) -> dict[str, list[EvidenceRow]]:
    if "Evidence" not in wb.sheetnames:
        return {}
    rows = wb["Evidence"].iter_rows(values_only=True)
    head = [str(h or "") for h in next(rows, ())]
    at = {h: i for i, h in enumerate(head)}
    if "Named range" not in at:
        return {}
    out: dict[str, list[EvidenceRow]] = {}
    for row in rows:
        get = (lambda name: row[at[name]] if name in at and at[name] < len(row) else None)  # noqa: E731
        key = str(get("Named range") or "")
        if key:
            out.setdefault(key, []).append(EvidenceRow(
                key, str(get("Cell") or ""), str(get("Label") or ""), str(get("Status") or ""),
                str(get(REVIEW_COLUMN) or ""), get("Value"), get("Rank"), tuple(get(c) for c in EVIDENCE_COLUMNS)))
    return out


@dataclass
class Kept:
    """A datapoint the run does not answer again: its cells' writes and its Evidence rows (EVIDENCE_COLUMNS)."""

    datapoint: Datapoint
    decision: Any  # forms.answer.Decision
    writes: list[tuple[str, str, Any]]
    rows: list[tuple]


@dataclass
class CarryPlan:
    kept: dict[str, Kept] = field(default_factory=dict)  # by named range, answerable datapoints
    carried: list[tuple[str, str, Any]] = field(default_factory=list)  # hand edits of other datapoints' cells


def plan_carry(form: Form, points: list[Datapoint], state: CarriedState | None, fresh: bool = False) -> CarryPlan:
    """What of the previous output this run keeps (module docstring): hand edits always, approvals always,
    an earlier run's values unless `fresh`; the datapoints not in the plan are answered."""
    from autofill.forms.answer import IN_FORM, Decision

    plan = CarryPlan()
    if state is None:
        return plan
    earlier = {d.value for d in IN_FORM}
    answered = {dp.key for dp in points}
    for dp in points:
        if any(form.is_formula(c) for c in dp.cells):
            continue  # a total the form computes: answered for comparison, never written
        key, status = dp.key, state.recorded.get(dp.key, ("", ""))[1]
        rows = state.evidence.get(key, [])
        if state.edited(key):
            cells = state.current[key]
            shown = _shown([v for _, _, v in cells])
            plan.kept[key] = Kept(dp, Decision.EDITED, cells, [(
                key, str(dp.cell), dp.label, dp.section, Decision.EDITED.value, "", shown, "",
                "the form's cells were changed by hand after the last run; not answered again",
                "", "", "", "", "", "", "")])
        elif status not in earlier and (value := state.approved(key)) is not None:
            writes = approved_writes(dp, value)
            if writes:
                plan.kept[key] = Kept(dp, Decision.APPROVED, writes, _restated(rows, Decision.APPROVED.value))
            else:
                import logging

                logging.getLogger(__name__).warning(
                    "%s: the approved value %r is not a value of its type; answered again", key, value)
        elif status in (Decision.EDITED.value, Decision.APPROVED.value) or (status in earlier and not fresh):
            # A person's value (typed, or approved) stays theirs on every later run, `--fresh` too.
            decision = Decision(status) if status != Decision.WRITTEN.value else Decision.KEPT
            plan.kept[key] = Kept(dp, decision, state.current.get(key, []), _restated(rows, decision.value))
    for dp in form.datapoints:
        if dp.key not in answered and state.edited(dp.key):
            plan.carried += state.current[dp.key]
    return plan


def _shown(values: list[Any]) -> Any:
    """A person's cell values as the Evidence sheet's Value shows them (one cell: a number stays a number)."""

    shown = [form_value(v.date() if isinstance(v, datetime) and not v.time() else v) for v in values]
    return shown[0] if len(shown) == 1 else "; ".join(str(v) for v in shown)


def _restated(rows: list[EvidenceRow], status: str) -> list[tuple]:
    at = EVIDENCE_COLUMNS.index("Status")
    return [tuple(status if i == at else v for i, v in enumerate(r.values)) for r in rows]


def approved_writes(dp: Datapoint, value: Any) -> list[tuple[str, str, Any]]:
    """The cells `value` (an Evidence row's Value, in the form's unit) fills for `dp`; [] when it is no
    value of the datapoint's type."""
    from autofill.forms.answer import KIND_TYPES, cell_writes, form_unit

    vtype = KIND_TYPES.get(dp.kind, ValueType.TEXT)
    unit = form_unit(dp)
    raw = value.isoformat()[:10] if hasattr(value, "isoformat") else value
    parsed = parse_value(raw, vtype, unit, list(dp.allowed), written_unit=unit.symbol if unit else "")
    return cell_writes(dp, parsed) if parsed.ok else []
