"""`autofill library add|list|export|import|remove`: what each subcommand does, apart from the click
wiring (commands.py). Each function returns plain data for --json and a text summary."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from autofill.errors import InputError
from autofill.library.harvest import approved_entries, override_hint
from autofill.library.store import AddResult, Entry, library_path, open_library
from autofill.records import DocumentRecord
from autofill.settings import Settings
from autofill.store.chroma_store import now_iso
from autofill.store.reading import find_for_reading
from autofill.library.checking import EvidenceChecker
from autofill.library.xlsx import export_workbook
from autofill.library.xlsx import import_workbook
from autofill.library.forms import FormLibrary, documents_of
from autofill.library.form_sheet import add_form_sheet, import_form_values
from autofill.checks.reviewed import failed_reasons
from autofill.records import QuestionRow

log = logging.getLogger(__name__)


@dataclass
class Done:
    data: dict
    lines: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def _now() -> str:

    return now_iso()


def _documents(settings: Settings, company: str) -> dict[str, DocumentRecord]:
    """The evidence store's manifest (file -> record); empty, with a warning, without a store."""

    store = find_for_reading(settings, company)
    if store is None:
        log.warning("no evidence store for %r: the cited documents' hashes are unknown, so these answers are "
                    "suggested but never reused without a model call until they are added again after "
                    "`autofill ingest`", company)
        return {}
    return store.documents()


def _lib(settings: Settings, company: str, create: bool = False):
    lib = open_library(settings, company, create=create)
    if lib is None:
        raise InputError(f"no answer library for company {company!r} yet; "
                         f"add approved answers with: autofill library add --company {company!r} FILLED.xlsx")
    return lib


def _counts(r: AddResult) -> str:
    return f"{r.added} added, {r.updated} updated, {r.unchanged} unchanged" + (
        f", {len(r.refused)} not added (failed checks)" if r.refused else "")


def _checker(settings: Settings, company: str):

    return EvidenceChecker(settings, company)


def refused_lines(refused: list[tuple[str, str]], hints: dict[str, str] | None = None) -> list[str]:
    """One line per answer not taken, each followed by how to record the override when there is one."""
    out = []
    for row, why in refused:
        out.append(f"  not added: {row}: {why}")
        if (hints or {}).get(row):
            out.append(f"    {hints[row]}")
    return out


def add(settings: Settings, company: str, paths: list[Path]) -> Done:
    """Add the rows marked Approved in each filled workbook (all read before anything is written),
    each checked against its cited pages (an answer whose checks failed needs the reviewer's recorded
    override)."""
    documents = _documents(settings, company)
    checker = _checker(settings, company)
    per_file: list[tuple[Path, list[Entry]]] = []
    for path in paths:
        path = Path(path)
        if not path.is_file():
            raise InputError(f"workbook not found: {path}")
        per_file.append((path, approved_entries(settings, path, documents, checker=checker)))
    total = AddResult()
    files, lines = [], []
    with _lib(settings, company, create=True) as lib:
        for path, entries in per_file:
            r = lib.add(entries, _now())
            total += r
            hints = {e.source_row: override_hint(e) for e in entries if e.source_row}
            data = r.to_json()
            for x in data["refused"]:
                if hints.get(x["row"]):
                    x["override"] = hints[x["row"]]
            files.append({"file": str(path), "approved_rows": len(entries), **data})
            lines += [f"  {path.name}: {len(entries)} approved rows"] + refused_lines(r.refused, hints)
        size = len(lib)
    lines.append(f"{company}: {_counts(total)}; the answer library holds {size} answers")
    return Done({"company": company, "files": files, **total.to_json(), "entries": size}, lines)


def _short(text: str, n: int) -> str:
    t = " ".join(str(text).split())
    return t if len(t) <= n else t[: n - 3] + "..."


def list_entries(settings: Settings, company: str) -> Done:
    """The approved answers, then, apart, the approved form values (library/forms.py: by datapoint and
    reporting period)."""
    lib = open_library(settings, company, create=False)
    entries = [] if lib is None else lib.entries()
    if lib is not None:
        lib.close()
    values = FormLibrary(settings, company).values()
    data = {"company": company, "entries": [
        {"id": e.id, "question": e.question, "answer": e.answer, "approved": e.approved_at,
         "source_questionnaire": e.source_questionnaire, "sources": e.sources, "documents": e.documents,
         "checks": e.checks, "override": e.override}
        for e in entries], "form_values": [
        {"id": v.id, "datapoint": v.datapoint, "period": v.period, "value": v.value, "unit": v.unit,
         "label": v.label, "approved": v.approved_at, "reviewer": v.reviewer, "source_form": v.source_form,
         "source_cell": v.source_cell, "sources": v.sources, "documents": v.documents, "checks": v.checks}
        for v in values]}
    if not entries and not values:
        return Done(data, [f"{company}: the answer library is empty"])
    lines = [f"{company}: {len(entries)} approved answers" if entries else f"{company}: no approved answers"]
    for e in entries:
        lines.append(f"  #{e.id} [{e.approved_at}] {_short(e.question, 70)}")
        lines.append(f"      {_short(e.answer, 90)}  ({e.source_questionnaire or 'imported'})")
        if e.checks:
            lines.append(f"      approved over failed checks: {_short('; '.join(e.checks), 80)}")
    if values:
        lines.append(f"{company}: {len(values)} approved form values (by datapoint and reporting period)")
    for v in values:
        lines.append(f"  {v.datapoint} ({v.period}): {_short(v.shown(), 60)}" + (f"  {_short(v.label, 60)}"
                                                                                 if v.label else ""))
        lines.append(f"      {_short(v.provenance(), 150)}")
        if v.checks:
            lines.append(f"      approved over failed checks: {_short(v.checks, 80)}")
    return Done(data, lines)


def export(settings: Settings, company: str, out: Path) -> Done:
    """The answers on the workbook's first sheet, the form values on a sheet of their own
    (library/form_sheet.py)."""
    with _lib(settings, company) as lib:
        entries = lib.entries()
    values = FormLibrary(settings, company).values()
    path = export_workbook(entries, Path(out), company, more=lambda wb: add_form_sheet(wb, values))
    also = f" and {len(values)} form values" if values else ""
    return Done({"company": company, "file": str(path), "entries": len(entries), "form_values": len(values)},
                [f"Exported {len(entries)} approved answers{also} of {company} to {path}"])


def import_(settings: Settings, company: str, path: Path) -> Done:
    """A workbook `export` wrote, edited or not: its answers checked against today's evidence and
    added or updated; its form values (sheet "Form values") added or updated by datapoint and period."""
    entries = import_workbook(Path(path), _now()[:10])
    values = import_form_values(Path(path), _now()[:10])
    check_entries(entries, _checker(settings, company))
    for v in values:
        if not v.documents and v.sources:  # the cited documents' hashes as the store has them now
            v.documents = documents_of(settings, company, v.sources)
    with _lib(settings, company, create=True) as lib:
        r = lib.add(entries, _now())
        size = len(lib)
    forms = FormLibrary(settings, company)
    changed = forms.add(values, _now())
    held = len(forms.values())
    lines = refused_lines(r.refused) + [
        f"{company}: imported {Path(path).name}: {_counts(r)}; the answer library holds {size} answers"]
    if values or held:
        lines.append(f"{company}: form values: {len(values)} read, {changed} added or updated; "
                     f"the answer library holds {held} form values")
    return Done({"company": company, "file": str(path), **r.to_json(), "entries": size,
                 "form_values": {"read": len(values), "changed": changed, "held": held}}, lines)


def check_entries(entries: list[Entry], checker) -> None:
    """Set each entry's checks: its answer against its cited pages in today's evidence (an imported
    entry is checked here, whatever the file says; its Override column stays the reviewer's)."""
    from autofill.workbook.validations import form_of_answer_values

    for e in entries:
        row = QuestionRow(sheet="", row=0, question=e.question, form_of_answer=e.form_of_answer,
                          allowed_values=form_of_answer_values(e.form_of_answer),
                          allowed_values_source="form of answer" if e.form_of_answer else "")
        e.checks = failed_reasons(checker.check(row, e.answer, e.sources))


def remove(settings: Settings, company: str, ids: list[int], questions: list[str], everything: bool,
           datapoints: Sequence[str] = (), period: str = "") -> Done:
    """Approved answers (by id or question) and form values (by datapoint, of one period or all) out of the
    library; `everything` empties both."""
    if not (ids or questions or everything or datapoints):
        raise InputError("say what to remove: --id N, --question TEXT, --datapoint NAME or --all")
    if period and not datapoints:
        raise InputError("--period names the period of a --datapoint's values: add --datapoint NAME")
    n = 0
    if everything or ids or questions:
        with _lib(settings, company) as lib:
            n = lib.clear() if everything else lib.remove(questions=questions, ids=ids)
    forms = FormLibrary(settings, company)
    m = forms.clear() if everything else forms.remove_datapoints(list(datapoints), period)
    if not (n or m):
        raise InputError(f"nothing matched in the answer library of {company!r} "
                         "(see `autofill library list` for ids, questions and datapoints)")
    lib = open_library(settings, company, create=False)
    size = 0 if lib is None else len(lib)
    if lib is not None:
        lib.close()
    held = len(forms.values())
    removed = f"{n} answers" + (f" and {m} form values" if m or datapoints or everything else "")
    holds = f"{size} answers" + (f" and {held} form values" if held or m else "")
    return Done({"company": company, "removed": n, "entries": size, "form_values_removed": m, "form_values": held,
                 "library": str(library_path(settings, company))},
                [f"{company}: removed {removed}; the answer library holds {holds}"])
