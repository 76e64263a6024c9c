"""The answer library's form values (issue 45): a value a reviewer approved for a form's datapoint,
kept by datapoint (named range, or VSME concept) and reporting period, and offered to a later run of a
form for the same company.

The values live in the company's library file (library/store.library_path, so `forget` of the company
removes them with its answers, `--keep-library` keeps them), in a table of their own: one entry per
(datapoint, period) with the value as the form's Evidence sheet shows it, its unit, cited pages, the
cited documents' hashes at approval, when, by whom and in which form and cell.

They are learned when a value is approved: on the review page (review_app/form_apply.py, an Undo of the
approval takes it out again) and by `run` from an earlier output's Evidence rows marked Approved
(forms/carry.py). A later run of a form (forms/run.py) looks each datapoint up:

- the same datapoint and period: offered as the library offers answers. With `library.reuse = "approved"`
  and every cited document unchanged it is written without a model call (`Decision.REUSED`, its
  provenance in the Evidence sheet's checks and on the review page); otherwise the datapoint is answered
  and the approved value is shown beside it (a value that differs from it is a soft check);
- another period: never reused as a value; the latest earlier period's is shown as last period's value.

    lib = FormLibrary(settings, company)
    lib.add([FormValue(...)]); lib.lookup("GrossScope1GreenhouseGasEmissions", "2024")
"""

from __future__ import annotations

import json
import logging
import sqlite3
from contextlib import closing
from dataclasses import dataclass, field
from typing import Any, Sequence

from autofill.settings import Settings
from autofill.checks.periods import period_year
from autofill.library.store import library_path
from autofill.library.changes import cited_pages
from autofill.store.reading import find_for_reading

log = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS form_values (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    datapoint TEXT NOT NULL,
    period TEXT NOT NULL,
    value TEXT NOT NULL,
    unit TEXT NOT NULL DEFAULT '',
    label TEXT NOT NULL DEFAULT '',
    sources TEXT NOT NULL DEFAULT '',
    documents TEXT NOT NULL DEFAULT '{}',
    approved_at TEXT NOT NULL,
    reviewer TEXT NOT NULL DEFAULT '',
    source_form TEXT NOT NULL DEFAULT '',
    source_cell TEXT NOT NULL DEFAULT '',
    checks TEXT NOT NULL DEFAULT '',
    added_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (datapoint, period)
);
"""
_FIELDS = ("value", "unit", "label", "sources", "documents", "approved_at", "reviewer", "source_form", "source_cell",
           "checks")


def period_key(period: Any) -> str:
    """A reporting period as the library keys it: its year when it names one ("FY2024" -> "2024"), else
    its text, trimmed."""

    text = str(period or "").strip()
    year = period_year(text) if text else None
    return str(year) if year else text


@dataclass
class FormValue:
    datapoint: str  # the named range (VSME concept) or "Sheet!D12"
    period: str
    value: str  # in the form's unit, as the Evidence sheet shows it
    approved_at: str  # YYYY-MM-DD
    unit: str = ""
    label: str = ""
    sources: str = ""  # "file.pdf p. 3; other.pdf p. 12"
    documents: dict[str, str] = field(default_factory=dict)  # cited file -> sha256 at approval
    reviewer: str = ""
    source_form: str = ""  # the filled form it was approved in
    source_cell: str = ""  # "Sheet!D6"
    checks: str = ""  # the checks that had failed when it was approved (the reviewer approved over them)
    id: int = 0

    def provenance(self) -> str:
        """Where the value comes from, in one line (Evidence sheet, review page)."""
        parts = [f"approved {self.approved_at}" + (f" by {self.reviewer}" if self.reviewer else "")]
        if self.source_form:
            parts.append(f"in {self.source_form}" + (f" ({self.source_cell})" if self.source_cell else ""))
        parts.append(f"for {self.period}")
        text = " ".join(parts)
        return text + (f"; cited {self.sources}" if self.sources else "")

    def shown(self) -> str:
        return f"{self.value} {self.unit}".strip()


def _row(r: sqlite3.Row) -> FormValue:
    return FormValue(id=r["id"], datapoint=r["datapoint"], period=r["period"], value=r["value"], unit=r["unit"],
                     label=r["label"], sources=r["sources"], documents=json.loads(r["documents"] or "{}"),
                     approved_at=r["approved_at"], reviewer=r["reviewer"], source_form=r["source_form"],
                     source_cell=r["source_cell"], checks=r["checks"])


class FormLibrary:
    """A company's form values: in its library file, opened per call (nothing held open)."""

    def __init__(self, settings: Settings, company: str):

        self.path = library_path(settings, company)
        self.company = company

    def _connect(self, create: bool) -> sqlite3.Connection | None:
        if not self.path.is_file():
            if not create:
                return None
            self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        conn.row_factory = sqlite3.Row
        conn.executescript(_SCHEMA)
        return conn

    def add(self, values: Sequence[FormValue], now: str) -> int:
        """Add or update values (one per datapoint and period) in one transaction; how many changed."""
        values = [v for v in values if v.datapoint and str(v.value).strip()]
        if not values:
            return 0
        with closing(self._connect(create=True)) as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                n = 0
                for v in values:
                    row = {f: getattr(v, f) for f in _FIELDS}
                    row["documents"] = json.dumps(v.documents, sort_keys=True, ensure_ascii=False)
                    row["value"] = str(v.value)
                    old = conn.execute("SELECT * FROM form_values WHERE datapoint = ? AND period = ?",
                                       (v.datapoint, period_key(v.period))).fetchone()
                    if old is None:
                        conn.execute(f"INSERT INTO form_values (datapoint, period, {', '.join(_FIELDS)}, added_at, "
                                     f"updated_at) VALUES (?, ?, {', '.join('?' for _ in _FIELDS)}, ?, ?)",
                                     (v.datapoint, period_key(v.period), *row.values(), now, now))
                        n += 1
                    elif any(str(old[f]) != str(x) for f, x in row.items()):
                        sets = ", ".join(f"{f} = ?" for f in row)
                        conn.execute(f"UPDATE form_values SET {sets}, updated_at = ? WHERE id = ?",
                                     (*row.values(), now, old["id"]))
                        n += 1
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        return n

    def remove(self, datapoint: str, period: str, source_form: str = "", source_cell: str = "") -> int:
        """Take a value out (an approval undone); only the one approved in `source_form` / `source_cell`
        when they are given, so an Undo never removes a value approved elsewhere."""
        conn = self._connect(create=False)
        if conn is None:
            return 0
        with closing(conn):
            sql, args = "DELETE FROM form_values WHERE datapoint = ? AND period = ?", [datapoint, period_key(period)]
            if source_form:
                sql, args = sql + " AND source_form = ?", [*args, source_form]
            if source_cell:
                sql, args = sql + " AND source_cell = ?", [*args, source_cell]
            return conn.execute(sql, args).rowcount

    def remove_datapoints(self, datapoints: Sequence[str], period: str = "") -> int:
        """Take out every value of `datapoints` (`library remove --datapoint`): of every period, or of
        `period` alone when it is given (keyed as `period_key` keys it)."""
        conn = self._connect(create=False)
        if conn is None or not datapoints:
            return 0
        with closing(conn):
            marks = ", ".join("?" for _ in datapoints)
            sql, args = f"DELETE FROM form_values WHERE datapoint IN ({marks})", list(datapoints)
            if period:
                sql, args = sql + " AND period = ?", [*args, period_key(period)]
            return conn.execute(sql, args).rowcount

    def clear(self) -> int:
        """Take out every value (`library remove --all`)."""
        conn = self._connect(create=False)
        if conn is None:
            return 0
        with closing(conn):
            return conn.execute("DELETE FROM form_values").rowcount

    def values(self) -> list[FormValue]:
        conn = self._connect(create=False)
        if conn is None:
            return []
        with closing(conn):
            return [_row(r) for r in conn.execute("SELECT * FROM form_values ORDER BY datapoint, period")]

    def by_datapoint(self, keys: Sequence[str]) -> dict[str, list[FormValue]]:
        """Each of `keys`' values, every period, latest period first."""

        wanted = set(keys)
        out: dict[str, list[FormValue]] = {}
        for v in self.values():
            if v.datapoint in wanted:
                out.setdefault(v.datapoint, []).append(v)
        for found in out.values():
            found.sort(key=lambda v: period_year(v.period) or 0, reverse=True)
        return out


def size(settings: Settings, company: str) -> int:
    """Form values in the company's library; 0 without one (nothing created)."""

    path = library_path(settings, company)
    if not path.is_file():
        return 0
    with closing(sqlite3.connect(path, timeout=30)) as conn:
        try:
            return int(conn.execute("SELECT COUNT(*) FROM form_values").fetchone()[0])
        except sqlite3.DatabaseError:
            return 0


@dataclass
class Offer:
    """What the library has for one datapoint of a run: the value for its period, or last period's."""

    same: FormValue | None = None
    earlier: FormValue | None = None
    unchanged: bool = False  # every document `same` cites is in the store with the hash it had


def offers(settings: Settings, company: str, keys: Sequence[str], period: str,
           documents: dict[str, Any]) -> dict[str, Offer]:
    """Per datapoint key, the library's offer for a run of `period` ({} without a library)."""

    if not settings.library.enabled:
        return {}
    try:
        found = FormLibrary(settings, company).by_datapoint(keys)
    except sqlite3.DatabaseError as exc:
        log.warning("the answer library's form values cannot be read (%s); none offered", exc)
        return {}
    want, year = period_key(period), period_year(str(period))
    out = {}
    for key, values in found.items():
        same = next((v for v in values if v.period == want), None)
        earlier = next((v for v in values if year and (period_year(v.period) or 0) < year), None)
        unchanged = same is not None and bool(same.documents) and all(
            name in documents and getattr(documents[name], "sha256", None) == sha
            for name, sha in same.documents.items())
        out[key] = Offer(same, earlier, unchanged)
    return out


def documents_of(settings: Settings, company: str, sources: str) -> dict[str, str]:
    """The sha256 of each document `sources` cites, as the company's store has it now."""

    store = find_for_reading(settings, company)
    documents = store.documents() if store is not None else {}
    del store
    return {f: documents[f].sha256 for f, _p in cited_pages(sources) if f in documents}


def from_evidence_rows(dp: Any, rows: Sequence[tuple], period: str, form_name: str, now: str) -> FormValue | None:
    """The library value of a datapoint approved in an earlier output's Evidence sheet (forms/carry.Kept
    rows, FORM_EVIDENCE_COLUMNS order); None without a value."""
    from autofill.workbook.evidence import FORM_EVIDENCE_COLUMNS as C

    at = {name: i for i, name in enumerate(C)}
    value = next((r[at["Value"]] for r in rows if r[at["Value"]] not in (None, "")), None)
    if value is None:
        return None
    cited = [r for r in rows if str(r[at["Cited"]] or "").lower() == "yes" and r[at["File"]]]
    sources = "; ".join(dict.fromkeys(f"{r[at['File']]} p. {r[at['Page']]}" for r in cited))
    unit = next((str(r[at["Unit"]]) for r in rows if r[at["Unit"]]), "")
    return FormValue(dp.key, period_key(period), str(value), now[:10], unit=unit, label=dp.label, sources=sources,
                     reviewer="", source_form=form_name, source_cell=str(dp.cell))


def learn(settings: Settings, company: str, values: Sequence[FormValue], now: str, from_run: bool = True) -> int:
    """Add approved values to the company's library (the cited documents' hashes from its store);
    `from_run`: learned by `run` from an earlier output (library.learn_from_runs), else approved on the
    review page."""
    if not settings.library.enabled or (from_run and not settings.library.learn_from_runs) or not values:
        return 0
    for v in values:
        if not v.documents and v.sources:
            v.documents = documents_of(settings, company, v.sources)
    n = FormLibrary(settings, company).add(values, now)
    if n:
        log.info("answer library: %d approved form values of %s added or updated", n, company)
    return n



def reviewed(settings: Settings, session: Any, decisions: Sequence[Any]) -> None:
    """The library after a form's review decisions were written (review_app/form_apply.py): an approved
    value added for the form's company, datapoint and reporting period; an Undo of an approval takes the
    value it added out again. Never fails the write: a library that cannot be written is one warning."""
    import re

    company, period = session.company, session.book.info("reporting period")
    if not settings.library.enabled or not company or not period:
        return
    lib = FormLibrary(settings, company)
    try:
        for d in decisions:
            q, dp = session.questions.get(d.row_key), session.datapoint(d.row_key)
            if q is None or dp is None:
                continue
            if d.action == "Approve" and str(d.after.get("answer", "")).strip():
                failed = "; ".join(c.strip() for c in str(q.checks or "").split(";") if "FAILED" in c)
                learn(settings, company, [FormValue(dp.key, period_key(period), d.after["answer"], d.at[:10],
                                                    unit=q.unit, label=dp.label, sources=q.sources,
                                                    reviewer=d.reviewer, source_form=session.path.name,
                                                    source_cell=d.row_key, checks=failed)],
                      d.at, from_run=False)
            elif d.action == "Undo" and re.search(r"\(Approve\)\s*$", d.note or ""):
                lib.remove(dp.key, period, session.path.name, d.row_key)
    except (sqlite3.DatabaseError, OSError) as exc:
        log.warning("the answer library of %s was not updated with the form's approvals: %s", company, exc)
