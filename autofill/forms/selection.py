"""What a run of a form answers and for which reporting period (issue 45): the datapoints answered one by
one (not formula cells, the reporting period, open table columns, aliases, multiple choice or the form's
language selector), with the unit a form chooses in a cell of its own; the open tables answered or kept
from the previous output; the period the values are for. `autofill run` on a form (forms/run.py) and
batch's cost estimate of a form (portfolio/form_cost.py) decide alike from here."""

from __future__ import annotations

import re
from typing import Any

from autofill.checks.periods import period_year
from autofill.forms.answer import IN_FORM, Decision
from autofill.forms.carry import Kept
from autofill.forms.model import Datapoint, DatapointKind, Form, FormTable
from autofill.forms.tables import answerable_tables, table_columns, table_datapoint
from autofill.settings import Settings


def answerable(form: Form) -> list[Datapoint]:
    """The datapoints a run answers one by one: not formula cells, not the reporting period (the run's, not
    the documents'), not open table columns (a table is answered as one question: forms/tables.py)."""
    period = set(form.reporting_period_keys)
    return [dp for dp in form.datapoints
            if dp.key not in period and not dp.is_table_column and not dp.alias_of and not dp.multiple
            and not _language_choice(dp) and not any(form.is_formula(c) for c in dp.cells)]


def _language_choice(dp: Datapoint) -> bool:
    """The form's own language selector (VSME's Language Selection): a setting of the form, not a fact."""
    return dp.kind is DatapointKind.ENUMERATION and "language" in dp.key.lower()


def with_units(form: Form, points: list[Datapoint]) -> list[Datapoint]:
    """Datapoints whose unit the form chooses in a cell of its own (`unit_cell`: "metric tonnes (t)")
    with that cell's value as their unit."""
    import dataclasses

    import openpyxl

    chosen = [dp for dp in points if dp.unit_cell is not None and not dp.unit]
    if not chosen:
        return points
    wb = openpyxl.load_workbook(form.path, read_only=True, data_only=True)
    try:
        units = {dp.key: wb[dp.unit_cell.sheet][dp.unit_cell.ref].value for dp in chosen}
    finally:
        wb.close()
    return [dataclasses.replace(dp, unit=str(units[dp.key])) if units.get(dp.key) else dp for dp in points]


def reporting_period(settings: Settings, form: Form, documents: dict[str, Any]) -> tuple[str, int | None]:
    """The period the values are for: `run --year`, else the form's own General Information (its
    reporting period's year cell), else the latest period of the store's documents."""

    if settings.run.reporting_year:
        return str(settings.run.reporting_year), settings.run.reporting_year
    year = _form_year(form)
    if year:
        return str(year), year
    periods = [d.period for d in documents.values() if getattr(d, "period", "")]
    best = max(periods, key=lambda p: period_year(p) or 0, default="")
    return best, period_year(best)


def _form_year(form: Form) -> int | None:
    """The year the form's reporting period cells hold (cached values: a year cell, or an end date)."""
    import openpyxl

    cells = [(c, dp) for key in form.reporting_period_keys if (dp := form.datapoint(key)) for c in dp.cells]
    if not cells:
        return None
    wb = openpyxl.load_workbook(form.path, read_only=True, data_only=True)
    try:
        years = []
        for c, dp in cells:
            value = wb[c.sheet][c.ref].value
            if hasattr(value, "year"):
                years.append(value.year)
            elif isinstance(value, (int, float)) and 1900 <= value <= 2100 and (
                    dp.kind in (DatapointKind.YEAR, DatapointKind.DATE_PARTS)):
                years.append(int(value))
        return max(years) if years else None
    finally:
        wb.close()


def plan_tables(form: Form, state, fresh: bool) -> tuple[list[FormTable], dict[str, Kept]]:
    """(the open tables this run answers, those it keeps from the previous output): a table whose cells a
    person changed keeps them on every run (`--fresh` too); one an earlier run filled keeps its rows unless
    `fresh`; the others are answered."""

    tables = answerable_tables(form)
    if state is None:
        return tables, {}
    answer, kept = [], {}
    earlier = {d.value for d in IN_FORM}
    for t in tables:
        columns = [c.key for c in table_columns(form, t)]
        edited = any(state.edited(k) for k in columns)
        filled = any(state.recorded.get(k, ("", ""))[1] in earlier for k in columns)
        if not edited and not (filled and not fresh):
            answer.append(t)
            continue
        head = table_datapoint(form, t)
        writes = [w for k in columns for w in state.current.get(k, []) if w[2] not in (None, "")]
        decision = Decision.EDITED if edited else Decision.KEPT
        why = "changed by hand after the last run" if edited else "filled by an earlier run (--fresh answers it again)"
        rows = len({re.sub(r"[A-Z$]", "", w[1]) for w in writes})
        kept[t.name] = Kept(head, decision, writes, [(t.name, str(head.cell), head.label, head.section, decision.value,
                                                      "", rows, "rows", f"the table's cells were {why}; not answered "
                                                      "again", "", "", "", "", "", "", "")])
    return answer, kept
