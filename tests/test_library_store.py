"""The answer library's store: one SQLite file per company; the same question updates its entry,
never duplicates it; embeddings are made lazily by the store's embedder and remade for another."""

from __future__ import annotations

import sqlite3

import pytest

from autofill.library.store import Entry, library_path, library_size, open_library, question_key
from autofill.settings import Settings
from tests.fakes import FakeEmbedder


def entry(question="Does the company have a net zero target?", answer="Yes. Net zero by 2050.", **kw) -> Entry:
    # checks=[]: checked, none failed (the store takes only checked entries: test_library_checks.py)
    return Entry(question=question, answer=answer, approved_at=kw.pop("approved_at", "2025-03-01"),
                 checks=kw.pop("checks", []), **kw)


def test_adding_the_same_question_twice_updates_and_never_duplicates(workspace):
    s = Settings(workspace=workspace)
    with open_library(s, "Acme") as lib:
        assert lib.add([entry(documents={"r.pdf": "a" * 64})], "t1").added == 1
        # The same workbook added again: nothing changes, the earliest approval date stands.
        again = lib.add([entry(approved_at="2025-04-01", documents={"r.pdf": "a" * 64})], "t2")
        assert (again.added, again.updated, again.unchanged) == (0, 0, 1)
        assert lib.get("does the company have a NET ZERO target").answer == "Yes. Net zero by 2050."
        # Case, punctuation and spacing do not make another question; a changed answer updates it.
        r = lib.add([entry(question="DOES the company have a  net zero target", answer="No.", approved_at="2025-05-01")],
                    "t3")
        assert (r.added, r.updated) == (0, 1)
        assert len(lib) == 1
        e = lib.entries()[0]
        assert (e.answer, e.approved_at, e.added_at, e.updated_at) == ("No.", "2025-05-01", "t1", "t3")
    assert library_size(s, "Acme") == 1
    assert library_size(s, "Other") == 0 and not library_path(s, "Other").exists()  # nothing created


def test_question_key_ignores_case_punctuation_and_spacing():
    assert question_key(" Does the Company have a target? ") == question_key("does the company have a target")
    assert question_key("Scope 1?") != question_key("Scope 3?")


def test_remove_and_clear(workspace):
    s = Settings(workspace=workspace)
    with open_library(s, "Acme") as lib:
        lib.add([entry(), entry(question="What were Scope 1 emissions?", answer="1,120 kt")], "t")
        first = lib.entries()[0]
        assert lib.remove(ids=[first.id]) == 1
        assert lib.remove(questions=["what were scope 1 emissions"]) == 1
        assert len(lib) == 0
        lib.add([entry()], "t")
        assert lib.clear() == 1


def test_companies_have_separate_libraries(workspace):
    s = Settings(workspace=workspace)
    with open_library(s, "BHP") as a, open_library(s, "bhp") as b:
        a.add([entry()], "t")
        assert len(a) == 1 and len(b) == 0


def test_embeddings_are_made_once_and_remade_for_another_embedder(workspace):
    s = Settings(workspace=workspace)
    emb = FakeEmbedder()
    with open_library(s, "Acme") as lib:
        lib.add([entry(), entry(question="What were Scope 1 emissions?", answer="1,120 kt")], "t")
        assert all(e.embedding is None for e in lib.entries())
        got = lib.ensure_embeddings(emb)
        assert emb.texts_embedded == 2 and all(e.embedder == emb.name and len(e.embedding) == 64 for e in got)
        assert got[0].embedding == pytest.approx(emb.embed_query(got[0].question), abs=1e-6)
        lib.ensure_embeddings(emb)
        assert emb.texts_embedded == 2  # stored, not made again
        other = FakeEmbedder(dims=32, name="fake:hash-32")
        assert all(len(e.embedding) == 32 for e in lib.ensure_embeddings(other))
        # A reworded question (same key, other text) drops its vector; the same text keeps it.
        lib.add([entry(question="does the company have a net zero target", answer="Yes.")], "t2")
        assert [e.embedding is None for e in lib.entries()] == [True, False]


def test_a_failed_write_leaves_the_library_as_it_was(workspace):
    s = Settings(workspace=workspace)
    with open_library(s, "Acme") as lib:
        lib.add([entry()], "t")
        bad = entry(question="Second question?", answer="x")
        bad.documents = {"r.pdf": object()}  # not JSON: the whole add fails
        with pytest.raises(TypeError):
            lib.add([entry(question="First new question?", answer="y"), bad], "t2")
        assert [e.question for e in lib.entries()] == ["Does the company have a net zero target?"]
    # The file is a plain SQLite database a team can copy.
    with sqlite3.connect(library_path(s, "Acme")) as conn:
        assert conn.execute("SELECT value FROM meta WHERE key = 'company'").fetchone()[0] == "Acme"


def test_a_library_keyed_by_the_earlier_rule_is_rekeyed_when_opened(workspace):
    """Rule 1 keyed "Share of renewable electricity (%)" as its words only; rule 2 keeps the "%". A library
    written under rule 1 is re-keyed on opening, so the question is found and removed by its new key."""
    s = Settings(workspace=workspace)
    q = "Share of renewable electricity (%)?"
    with open_library(s, "Acme") as lib:
        lib.add([entry(question=q, answer="46")], "t")
    conn = sqlite3.connect(library_path(s, "Acme"))
    conn.execute("UPDATE entries SET qkey = 'share of renewable electricity'")
    conn.execute("UPDATE meta SET value = '1' WHERE key = 'qrule'")
    conn.commit()
    conn.close()
    with open_library(s, "Acme") as lib:
        assert lib.get("share of renewable electricity %").answer == "46"
        assert lib.get("Share of renewable electricity") is None
        assert lib.remove(questions=[q]) == 1
