"""A form's open tables (issue 45 part B): sites, pollutants, waste types, materials ... tables with a
fixed number of blank rows under named ranges, answered as one question each.

`table_row` makes the question: the table's heading, its columns (key, label, type, unit, allowed values)
and how many rows it has, answered with the `form_table` prompt (default_templates/form_table.j2), which
asks for one object per row the passages state, each cell a value of its column's type, each row with the
passages it cites. `assess_table` reads the reply row by row: a row is written when every value in it is
of its column's type, it cites a passage, each figure is in a cited passage with its unit and scale
(forms/answer.figure_checks) and each text is in one; other rows wait in the Evidence sheet. Never more
rows than the table has (rows beyond it are named, not written). Without a model the table gets its
passages in the Evidence sheet (a draft for the reviewer), nothing written.

A table's Evidence rows: the table's own (named range = the table's name, its first cell) with the
passages; then one row per cell a row of the reply filled (named range "Column[2]" for the table's
second row, its own cell), with the value, unit, checks, and the cited page and quote."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any, Mapping

from autofill.answer.generate import extract_json_object
from autofill.forms.answer import KIND_TYPES, Decision, DatapointRow, FormAnswer, cell_writes, figure_checks, \
    form_unit, year_checks
from autofill.forms.model import Datapoint, DatapointKind, Form, FormCell, FormTable
from autofill.forms.values import TypedValue, ValueType, parse_value
from autofill.records import CheckResult, Passage, RowResult, Severity
from autofill.states import Outcome

TABLE_TEMPLATE = "form_table"
MAX_ALLOWED_SHOWN = 40  # a drop-down's values the prompt lists (VSME's waste types are ~970); all are accepted
_KEY = re.compile(r"^(.+)\[(\d+)\]$")


@dataclass
class TableRow(DatapointRow):
    """An open table as one question row; the prompt reads `columns` and `max_rows` besides DatapointRow's."""

    columns: list[dict] = field(default_factory=list)  # key, label, type, unit, allowed
    max_rows: int = 0
    answer_template: str = TABLE_TEMPLATE


@dataclass
class TableCell:
    """One cell of a row of the reply: its column, table row (1-based), cell and value."""

    column: Datapoint
    index: int
    cell: FormCell
    value: TypedValue

    @property
    def key(self) -> str:
        return cell_key(self.column.key, self.index)


@dataclass
class ReplyRow:
    """One row of the reply: its cells, the passages it cites, its checks and whether it goes in."""

    index: int  # the table row it goes into (1-based), 0 when beyond the table
    cells: list[TableCell]
    cited: list[int]  # passage numbers (1-based, as the prompt showed them)
    checks: list[CheckResult]
    quote: str = ""
    year: str = ""

    @property
    def ok(self) -> bool:
        return self.index > 0 and all(c.passed for c in self.checks if c.severity is Severity.HARD)


@dataclass
class TableAnswer(FormAnswer):
    """A table's answer: FormAnswer of its table datapoint (table_datapoint) and its rows."""

    table: FormTable | None = None
    rows: list[ReplyRow] = field(default_factory=list)

    def cells(self) -> list[tuple[str, str, Any]]:
        """(sheet, ref, value) of every cell of the rows that passed their checks."""
        out = []
        for row in self.rows:
            if row.ok:
                for c in row.cells:
                    out += cell_writes(replace(c.column, cells=(c.cell,)), c.value)
        return out


def cell_key(column: str, index: int) -> str:
    """The Evidence sheet's named range of one cell of an open table: "Column[2]" (its second row)."""
    return f"{column}[{index}]"


def split_cell_key(key: str) -> tuple[str, int] | None:
    m = _KEY.match(key or "")
    return (m.group(1), int(m.group(2))) if m else None


def cell_datapoint(form: Form, key: str) -> Datapoint | None:
    """The one-cell datapoint of an open table's cell key ("Column[2]"): the column with that row's cell."""
    split = split_cell_key(key)
    dp = form.datapoint(split[0]) if split else None
    if dp is None or not dp.table or not 1 <= split[1] <= len(dp.cells):
        return None
    c = dp.cells[split[1] - 1]
    return replace(dp, key=key, cells=(c,), row=_row_of(c), table="")


def table_columns(form: Form, table: FormTable) -> list[Datapoint]:
    """The columns a person types into: not the form's unit choosers ("Name_unit") or formulas."""
    out = []
    for key in table.columns:
        dp = form.datapoint(key)
        if dp is None or dp.member == "unit" or key.endswith("_unit") or dp.multiple or dp.alias_of:
            continue
        if any(form.is_formula(c) for c in dp.cells):
            continue
        out.append(dp)
    return out


def answerable_tables(form: Form) -> list[FormTable]:
    """The open tables a run answers: with a heading (a section's table, not a sheet of footnotes) and at
    least one column a person types into."""
    return [t for t in form.tables if (t.label or t.section) and table_columns(form, t)]


def table_datapoint(form: Form, table: FormTable) -> Datapoint:
    """The table as one datapoint (its Evidence rows' head): key = the table's name, the first cell of each
    column, label "Table: heading (columns ...; N rows)"."""
    cols = table_columns(form, table)
    label = f"Table: {table.label or table.name} (columns: {', '.join(c.label or c.key for c in cols)}; " \
            f"{table.size} rows)"
    gates = cols[0].gates if cols else ()  # the gates of the table's cells (VSME: "pollution disclosed?")
    return Datapoint(key=table.name, cells=tuple(c.cell for c in cols), label=label, section=table.section,
                     kind=DatapointKind.TEXT, table=table.name, row=table.first_row, heading=table.label,
                     gate=gates[0] if gates else None, more_gates=tuple(gates[1:]))


def table_row(form: Form, table: FormTable, period: str = "", language: str = "") -> TableRow:
    cols = table_columns(form, table)
    columns = []
    for c in cols:
        unit = form_unit(c)
        columns.append({"key": c.key, "label": c.label or c.key, "type": KIND_TYPES.get(c.kind, ValueType.TEXT).value,
                        "unit": unit.symbol if unit else "", "allowed": list(c.allowed[:MAX_ALLOWED_SHOWN]),
                        "more_allowed": max(0, len(c.allowed) - MAX_ALLOWED_SHOWN)})
    heading = table.label or table.name
    question = f"{heading}: one row per item the reports state ({', '.join(x['label'] for x in columns)})" + \
               (f", reporting period {period}" if period else "")
    first = cols[0].cell
    return TableRow(sheet=table.sheet, row=table.first_row, question=question, section=table.section,
                    form_of_answer=f"A table of at most {table.size} rows", answer_cell=first.ref, language=language,
                    datapoint_key=table.name, label=heading, section_name=table.section, value_type="table",
                    period=period, columns=columns, max_rows=table.size)


def assess_table(form: Form, table: FormTable, result: RowResult, reporting_year: int | None = None,
                 periods: Mapping[str, str] | None = None) -> TableAnswer:
    """The decision on an answered (or drafted) table: its rows checked one by one (a row with a figure also
    for the reporting year, as a single datapoint's figure is: forms/answer.year_checks)."""
    head = table_datapoint(form, table)
    if result.answer is None:
        return TableAnswer(head, result, Decision.FAILED, table=table,
                           checks=[CheckResult("value", False, Severity.HARD, result.error or "no answer")])
    if result.outcome is Outcome.DRAFTED:
        return TableAnswer(head, result, Decision.DRAFT, table=table)
    reply, _ = extract_json_object(result.answer.raw)
    items = (reply or {}).get("rows") or []
    items = items if isinstance(items, list) else []
    cols = {c.key: c for c in table_columns(form, table)}
    by_label = {_squash(c.label): c for c in cols.values() if c.label}
    rows: list[ReplyRow] = []
    for item in items:
        if not isinstance(item, dict):
            continue
        row = _read_row(item, cols, by_label, result)
        if row is None:
            continue
        if any(KIND_TYPES.get(c.column.kind, ValueType.TEXT).numeric and c.column.kind is not DatapointKind.YEAR
               for c in row.cells):
            cited = [result.passages[n - 1] for n in row.cited]
            row.checks += year_checks(reporting_year, cited, row.year, periods or {})
        rows.append(row)
    # Rows that pass fill the table from its first row, in the reply's order; those waiting take the rows
    # after them (where a reviewer's approval writes them); none beyond the table's last row.
    rows = [r for r in rows if _passes(r)] + [r for r in rows if not _passes(r)]
    for i, row in enumerate(rows, start=1):
        if i > table.size:
            row.index = 0
            row.checks.append(CheckResult("rows", False, Severity.HARD, f"the table has only {table.size} rows"))
            continue
        row.index = i
        row.cells = [replace(c, index=i, cell=c.column.cells[min(i, len(c.column.cells)) - 1]) for c in row.cells]
    if not rows:
        return TableAnswer(head, result, Decision.NOT_DISCLOSED, table=table)
    written = any(r.ok for r in rows)
    summary = CheckResult("rows", written, Severity.HARD,
                          f"{sum(r.ok for r in rows)} of {len(rows)} rows pass their checks"
                          f" (the table has {table.size} rows)")
    return TableAnswer(head, result, Decision.WRITTEN if written else Decision.WAITING, table=table, rows=rows,
                       checks=[summary])


def _passes(row: ReplyRow) -> bool:
    return all(c.passed for c in row.checks if c.severity is Severity.HARD)


def _read_row(item: dict, cols: dict[str, Datapoint], by_label: dict[str, Datapoint],
              result: RowResult) -> ReplyRow | None:
    values = item.get("values") if isinstance(item.get("values"), dict) else \
        {k: v for k, v in item.items() if k not in ("citations", "quote", "year", "unit", "units")}
    cited_numbers = [int(x) for x in _as_list(item.get("citations")) if str(x).strip().isdigit()]
    cited_numbers = [x for x in cited_numbers if 1 <= x <= len(result.passages)]
    cited = [result.passages[x - 1] for x in cited_numbers]
    uncited = [p for i, p in enumerate(result.passages, start=1) if i not in cited_numbers]
    checks: list[CheckResult] = []
    if not cited:
        checks.append(CheckResult("citations", False, Severity.HARD, "the row cites no passage"))
    cells: list[TableCell] = []
    for name, raw in values.items():
        col = cols.get(str(name)) or by_label.get(_squash(str(name)))
        if col is None:
            continue
        written_unit = ""
        if isinstance(raw, dict):
            raw, written_unit = raw.get("value"), str(raw.get("unit") or "")
        if raw is None or str(raw).strip() == "":
            continue
        vtype = KIND_TYPES.get(col.kind, ValueType.TEXT)
        unit = form_unit(col)
        value = parse_value(raw, vtype, unit, list(col.allowed), written_unit=written_unit)
        if value.problem == "not disclosed":
            continue
        label = col.label or col.key
        if not value.ok:
            checks.append(CheckResult("value", False, Severity.HARD, f"{label}: {value.problem}"))
            continue
        if vtype.numeric:
            checks += [replace(c, reason=f"{label}: {c.reason}") for c in figure_checks(value, unit, cited, uncited)]
        elif vtype is ValueType.TEXT and cited and not _stated(str(value.value), cited):
            checks.append(CheckResult("text", False, Severity.HARD, f"{label}: {value.value!r} is in no cited passage"))
        cells.append(TableCell(col, 0, col.cell, value))
    if not cells:
        return None
    return ReplyRow(0, cells, cited_numbers, checks, str(item.get("quote") or ""), str(item.get("year") or ""))


def _as_list(value: Any) -> list:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def _squash(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.lower())


def _stated(text: str, passages: list[Passage]) -> bool:
    want = _squash(text)
    return bool(want) and any(want in _squash(p.text) for p in passages)


def _row_of(c: FormCell) -> int:
    return int(re.sub(r"\D", "", c.ref) or 0)


def table_evidence_rows(ta: TableAnswer) -> list[tuple]:
    """The Evidence rows of a table (workbook/evidence.FORM_EVIDENCE_COLUMNS): the table's own rows with its
    passages (forms rows of its table datapoint), then one row per cell of each row of the reply."""
    from autofill.workbook.evidence import form_evidence_rows, form_value

    # The table's own rows name its whole range as their cell: no cell row of the table shares their key.
    first, last = ta.datapoint.cells[0], ta.datapoint.cells[-1]
    span = f"{first.sheet}!{first.ref}:{re.sub(r'[0-9]+', str(ta.table.last_row), last.ref)}"
    rows = [(r[0], span, *r[2:]) for r in form_evidence_rows([ta])]
    res = ta.result
    for r in ta.rows:
        status = (Decision.WRITTEN if r.ok else Decision.WAITING).value
        checks = "; ".join(f"{'ok' if c.passed else 'FAILED'} {c.name}: {c.reason}" for c in r.checks)
        first = res.passages[r.cited[0] - 1] if r.cited else None
        for c in r.cells:
            unit = form_unit(c.column)
            rows.append((c.key if r.index else f"{c.column.key}[beyond]", str(c.cell),
                         f"{ta.table.label or ta.table.name} row {r.index or '-'}: {c.column.label or c.column.key}",
                         ta.datapoint.section, status, "", form_value(c.value.value), unit.symbol if unit else "",
                         checks, f"row {r.index}" if r.index else "beyond the table",
                         first.file_name if first else "", first.page_start if first else "",
                         "yes" if first else "", "", r.quote or (first.text if first else ""), r.year))
    return rows
