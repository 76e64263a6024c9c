"""The library takes only what was checked (library/store.Entry.refused, library/harvest, library/checking):
an entry carries its checks; one whose checks failed enters only with the reviewer's recorded override
naming them (read from the workbook's Review log); an entry never checked stays out; a library made
before checks were kept opens and reads its old entries as unchecked."""

from __future__ import annotations

import sqlite3

import openpyxl

from autofill.checks.reviewed import override_note
from autofill.library.checking import EvidenceChecker
from autofill.library.harvest import approved_entries
from autofill.library.store import Entry, library_path, open_library
from autofill.records import Passage
from autofill.review_app.apply import LOG_COLUMNS, REVIEW_LOG_SHEET
from autofill.settings import Settings

FIGURE = "987,654 tCO2e not in cited passages"
PAGE = Passage("c1", "r.pdf", 3, 3, "", "Scope 1 emissions were 1,120 kt CO2e in FY2020.")


class Store:
    """The evidence store as a checker reads it: the passages covering cited pages, the manifest."""

    def page_passages(self, pages):
        return [PAGE] if ("r.pdf", 3) in pages else []

    def documents(self):
        return {}


def entry(**kw) -> Entry:
    return Entry(question=kw.pop("question", "What were Scope 1 emissions in FY2020?"),
                 answer=kw.pop("answer", "987,654 tCO2e"), approved_at="2026-11-26", **kw)


def test_an_entry_with_failed_checks_needs_the_override_that_names_them(workspace):
    assert entry(checks=[]).refused == ""
    assert "not checked" in entry().refused  # checks None: never checked
    assert entry(checks=[FIGURE]).refused == f"failed checks without the reviewer's recorded override: {FIGURE}"
    assert entry(checks=[FIGURE], override=override_note([FIGURE])).refused == ""
    assert FIGURE not in entry(checks=[FIGURE, "no citation"], override=override_note([FIGURE])).refused
    assert "no citation" in entry(checks=[FIGURE, "no citation"], override=override_note([FIGURE])).refused
    with open_library(Settings(workspace=workspace), "Acme") as lib:
        r = lib.add([entry(checks=[FIGURE]), entry(question="Second?", checks=[FIGURE],
                                                   override=override_note([FIGURE]))], "t")
        assert (r.added, [row for row, _ in r.refused]) == (1, ["What were Scope 1 emissions in FY2020?"])
        [kept] = lib.entries()
        assert (kept.question, kept.checks, kept.override) == ("Second?", [FIGURE], override_note([FIGURE]))


def test_a_library_from_before_checks_opens_and_reads_old_entries_as_unchecked(workspace):
    s = Settings(workspace=workspace)
    path = library_path(s, "Acme")
    path.parent.mkdir(parents=True)
    conn = sqlite3.connect(path)
    conn.executescript("""
        CREATE TABLE entries (id INTEGER PRIMARY KEY AUTOINCREMENT, qkey TEXT NOT NULL UNIQUE, question TEXT NOT NULL,
            form_of_answer TEXT NOT NULL DEFAULT '', answer TEXT NOT NULL, reasoning TEXT NOT NULL DEFAULT '',
            sources TEXT NOT NULL DEFAULT '', reviewer_comment TEXT NOT NULL DEFAULT '', approved_at TEXT NOT NULL,
            source_questionnaire TEXT NOT NULL DEFAULT '', source_row TEXT NOT NULL DEFAULT '',
            documents TEXT NOT NULL DEFAULT '{}', added_at TEXT NOT NULL, updated_at TEXT NOT NULL,
            embedder TEXT NOT NULL DEFAULT '', embedding BLOB);
        INSERT INTO entries (qkey, question, answer, approved_at, added_at, updated_at)
            VALUES ('old question', 'Old question?', 'Yes', '2024-01-01', 't', 't');""")
    conn.commit()
    conn.close()
    with open_library(s, "Acme") as lib:
        [old] = lib.entries()
        assert (old.answer, old.checks, old.override) == ("Yes", None, "")
        assert lib.add([entry(checks=[])], "t2").added == 1


def _approved_workbook(path, log_note: str):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Q"
    ws.append(["No.", "Question", "Answer", "Reasoning", "Sources", "Confidence", "Status", "Review"])
    ws.append(["1", "What were Scope 1 emissions in FY2020?", "987,654 tCO2e", "", "r.pdf p. 3", "", "", "Approved"])
    ws.append(["2", "What were Scope 1 emissions in FY2020 in kt?", "1,120 kt CO2e", "", "r.pdf p. 3", "", "",
               "Approved"])
    log = wb.create_sheet(REVIEW_LOG_SHEET)
    log.append(LOG_COLUMNS)
    log.append(["2026-11-26", "Ana", "Q", 2, "What were ...", "Approve", "Review", "", "Approved", log_note, 7])
    wb.save(path)
    return path


def test_harvest_checks_each_approved_row_and_reads_the_override_from_the_review_log(workspace, tmp_path):
    s = Settings(workspace=workspace)
    checker = EvidenceChecker(s, "Acme", store=Store())
    path = _approved_workbook(tmp_path / "filled.xlsx", override_note([FIGURE]))
    figure, good = approved_entries(s, path, checker=checker)
    assert (figure.checks, figure.override, figure.refused) == ([FIGURE], override_note([FIGURE]), "")
    assert (good.checks, good.override, good.refused) == ([], "", "")
    # Approved in Excel, no confirmation recorded: the failed check keeps it out.
    plain = _approved_workbook(tmp_path / "plain.xlsx", "")
    figure, _good = approved_entries(s, plain, checker=checker)
    assert figure.refused == f"failed checks without the reviewer's recorded override: {FIGURE}"
    # Without a store (or a fallback) nothing can be checked.
    [unchecked, _] = approved_entries(s, path, checker=EvidenceChecker(s, "Nobody"))
    assert unchecked.checks == ["not checked: no evidence store for 'Nobody' (run `autofill ingest`)"]
