"""The answer library of one company: approved answers, kept next to its evidence store.

One SQLite file per company, `<workspace>/vectordb/library/<collection>.sqlite3` (the collection name
of the company's evidence store, so "BHP" and "bhp" never share a library). SQLite because it is in
the standard library, transactional (a crash mid-import leaves the old library), and one file a team
can copy. An entry is keyed by its normalised question text: adding the same question again updates
the entry, it never adds a second one.

Question embeddings are stored as float32 blobs with the name of the embedder that made them. They
are filled lazily, by the run that matches against the library, with the evidence store's embedder;
an entry embedded by another embedder (a store rebuilt with another model) is embedded again."""

from __future__ import annotations

import array
import json
import sqlite3
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Sequence

from autofill import questions
from autofill.errors import InputError
from autofill.settings import Settings
from autofill.store import derived
from autofill.store.chroma_client import collection_name
from autofill.checks.reviewed import covers, overridden

SCHEMA_VERSION = 2  # 2: checks and override (an entry carries what was checked at approval)
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    qkey TEXT NOT NULL UNIQUE,
    question TEXT NOT NULL,
    form_of_answer TEXT NOT NULL DEFAULT '',
    answer TEXT NOT NULL,
    reasoning TEXT NOT NULL DEFAULT '',
    sources TEXT NOT NULL DEFAULT '',
    reviewer_comment TEXT NOT NULL DEFAULT '',
    approved_at TEXT NOT NULL,
    source_questionnaire TEXT NOT NULL DEFAULT '',
    source_row TEXT NOT NULL DEFAULT '',
    documents TEXT NOT NULL DEFAULT '{}',
    added_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    embedder TEXT NOT NULL DEFAULT '',
    embedding BLOB,
    checks TEXT,
    override TEXT NOT NULL DEFAULT ''
);
"""
# Columns added after version 1, put into a library made before them.
_ADDED = {"checks": "TEXT", "override": "TEXT NOT NULL DEFAULT ''"}
_FIELDS = ("question", "form_of_answer", "answer", "reasoning", "sources", "reviewer_comment", "approved_at",
           "source_questionnaire", "source_row", "documents", "checks", "override")


def _rekey(conn: sqlite3.Connection) -> None:
    """Key every entry by today's rule of "same question" when the library was keyed by an earlier one
    (questions.RULE in meta 'qrule'), in one transaction. Later rules only tell more questions apart, so
    no two entries come to share a key."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'qrule'").fetchone()
    if row is not None and row[0] == questions.RULE:
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        for entry_id, question in conn.execute("SELECT id, question FROM entries").fetchall():
            conn.execute("UPDATE entries SET qkey = ? WHERE id = ?", (question_key(question), entry_id))
        conn.execute("INSERT OR REPLACE INTO meta VALUES ('qrule', ?)", (questions.RULE,))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def question_key(question: str) -> str:
    """The identity of a question in the library (its `qkey`): the one rule of autofill/questions.py."""
    return questions.question_key(question)


@dataclass
class Entry:
    question: str
    answer: str
    approved_at: str  # YYYY-MM-DD
    reasoning: str = ""
    sources: str = ""  # "file.pdf p. 3; other.pdf p. 12", as in the Sources column
    reviewer_comment: str = ""
    source_questionnaire: str = ""  # the workbook it was approved in
    source_row: str = ""  # "Sheet!12"
    form_of_answer: str = ""
    documents: dict[str, str] = field(default_factory=dict)  # cited file name -> sha256 at approval
    id: int = 0
    added_at: str = ""
    updated_at: str = ""
    embedder: str = ""
    embedding: list[float] | None = None
    # The checks of the answer against its cited pages when it was added (checks/reviewed.py): the
    # failed ones in words; [] all passed; None never checked (an entry from before checks were kept).
    checks: list[str] | None = None
    override: str = ""  # the reviewer's recorded confirmation of failed checks (the decision's note)
    # Where a reviewer records that confirmation in Excel ("Questionnaire!I7", the row's Reviewer comment
    # cell; harvest.py); not stored.
    override_cell: str = field(default="", compare=False)

    @property
    def key(self) -> str:
        return question_key(self.question)

    @property
    def refused(self) -> str:
        """Why the library does not take this entry ("" when it does): it was never checked, or a
        check failed that the reviewer's recorded override does not name."""

        if self.checks is None:
            return "its answer was not checked against its cited pages"
        left = [c for c in self.checks if not covers(overridden(self.override), [c])]
        if left:
            return "failed checks without the reviewer's recorded override: " + "; ".join(left)
        return ""


@dataclass
class AddResult:
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    refused: list[tuple[str, str]] = field(default_factory=list)  # (question or row, why) not taken

    def __iadd__(self, other: "AddResult") -> "AddResult":
        self.added += other.added
        self.updated += other.updated
        self.unchanged += other.unchanged
        self.refused += other.refused
        return self

    def to_json(self) -> dict:
        return {"added": self.added, "updated": self.updated, "unchanged": self.unchanged,
                "refused": [{"row": row, "why": why} for row, why in self.refused]}


def library_path(settings: Settings, company: str) -> Path:

    return derived.library(settings.vectordb_dir, collection_name(company))


def library_size(settings: Settings, company: str) -> int:
    """Entries in the company's library, answers and form values (library/forms.py); 0 without one
    (nothing is created)."""
    path = library_path(settings, company)
    if not path.is_file():
        return 0
    n = 0
    with closing(sqlite3.connect(path, timeout=30)) as conn:
        for table in ("entries", "form_values"):
            try:
                n += int(conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
            except sqlite3.DatabaseError:
                continue
    return n


def _blob(vector: Sequence[float] | None) -> bytes | None:
    return None if vector is None else array.array("f", vector).tobytes()


def _vector(blob: bytes | None) -> list[float] | None:
    if not blob:
        return None
    out = array.array("f")
    out.frombytes(blob)
    return out.tolist()


def _entry(row: sqlite3.Row) -> Entry:
    return Entry(id=row["id"], question=row["question"], form_of_answer=row["form_of_answer"], answer=row["answer"],
                 reasoning=row["reasoning"], sources=row["sources"], reviewer_comment=row["reviewer_comment"],
                 approved_at=row["approved_at"], source_questionnaire=row["source_questionnaire"],
                 source_row=row["source_row"], documents=json.loads(row["documents"] or "{}"),
                 added_at=row["added_at"], updated_at=row["updated_at"], embedder=row["embedder"],
                 embedding=_vector(row["embedding"]),
                 checks=None if row["checks"] is None else json.loads(row["checks"]), override=row["override"])


class Library:
    """A company's answer library. Open with `open_library`; use as a context manager or `close()`."""

    def __init__(self, path: Path, company: str, conn: sqlite3.Connection) -> None:
        self.path, self.company, self._conn = path, company, conn

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> "Library":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One transaction: all of it lands, or none (BEGIN IMMEDIATE: one writer at a time)."""
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            yield self._conn
        except BaseException:
            self._conn.rollback()
            raise
        self._conn.commit()

    # ------------------------------------------------------------------------------ reading

    def entries(self) -> list[Entry]:
        rows = self._conn.execute("SELECT * FROM entries ORDER BY id").fetchall()
        return [_entry(r) for r in rows]

    def get(self, question: str) -> Entry | None:
        row = self._conn.execute("SELECT * FROM entries WHERE qkey = ?", (question_key(question),)).fetchone()
        return _entry(row) if row else None

    def __len__(self) -> int:
        return int(self._conn.execute("SELECT COUNT(*) FROM entries").fetchone()[0])

    # ------------------------------------------------------------------------------ writing

    def add(self, entries: Sequence[Entry], now: str) -> AddResult:
        """Add or update entries in one transaction. The same question (normalised) updates its entry;
        its approval date moves only when the approved answer itself changed. Only checked answers are
        taken: one whose checks failed needs the reviewer's recorded override of them (`Entry.refused`)."""
        result = AddResult()
        with self._write() as conn:
            for e in entries:
                if not question_key(e.question) or not e.answer.strip():
                    continue
                why = e.refused
                if why:
                    result.refused.append((e.source_row or e.question, why))
                    continue
                result += self._upsert(conn, e, now)
        return result

    def _upsert(self, conn: sqlite3.Connection, e: Entry, now: str) -> AddResult:
        values = {f: getattr(e, f) for f in _FIELDS}
        values["documents"] = json.dumps(e.documents, sort_keys=True, ensure_ascii=False)
        values["checks"] = None if e.checks is None else json.dumps(e.checks, ensure_ascii=False)
        old = conn.execute("SELECT * FROM entries WHERE qkey = ?", (e.key,)).fetchone()
        if old is None:
            conn.execute(
                f"INSERT INTO entries (qkey, {', '.join(_FIELDS)}, added_at, updated_at) "
                f"VALUES (?, {', '.join('?' for _ in _FIELDS)}, ?, ?)",
                (e.key, *values.values(), now, now))
            return AddResult(added=1)
        if old["answer"].strip() == e.answer.strip():
            # The same approval seen again (the same workbook added twice, or a later copy of it): the
            # earliest approval date stands, the rest is refreshed.
            values["approved_at"] = min(old["approved_at"], e.approved_at) if e.approved_at else old["approved_at"]
        if all(old[f] == v or str(old[f]) == str(v) for f, v in values.items()):
            return AddResult(unchanged=1)
        sets = ", ".join(f"{f} = ?" for f in values)
        # The question's wording may differ (case, punctuation): keep the embedding only for the same text.
        keep_vector = old["question"] == e.question
        conn.execute(
            f"UPDATE entries SET {sets}, updated_at = ?"
            + ("" if keep_vector else ", embedding = NULL, embedder = ''") + " WHERE id = ?",
            (*values.values(), now, old["id"]))
        return AddResult(updated=1)

    def remove(self, questions: Sequence[str] = (), ids: Sequence[int] = ()) -> int:
        """Remove entries by question text (normalised) or id; returns how many went."""
        with self._write() as conn:
            n = 0
            for q in questions:
                n += conn.execute("DELETE FROM entries WHERE qkey = ?", (question_key(q),)).rowcount
            for i in ids:
                n += conn.execute("DELETE FROM entries WHERE id = ?", (int(i),)).rowcount
        return n

    def clear(self) -> int:
        with self._write() as conn:
            return conn.execute("DELETE FROM entries").rowcount

    def set_embeddings(self, embedder: str, vectors: dict[int, Sequence[float]]) -> None:
        with self._write() as conn:
            conn.executemany("UPDATE entries SET embedder = ?, embedding = ? WHERE id = ?",
                             [(embedder, _blob(v), i) for i, v in vectors.items()])

    def ensure_embeddings(self, embedder) -> list[Entry]:
        """Every entry, with a question embedding by `embedder` (missing ones are made and saved)."""
        entries = self.entries()
        stale = [e for e in entries if e.embedding is None or e.embedder != embedder.name]
        if stale:
            vectors = embedder.embed_documents([e.question for e in stale])
            self.set_embeddings(embedder.name, {e.id: v for e, v in zip(stale, vectors)})
            for e, v in zip(stale, vectors):
                e.embedding, e.embedder = list(v), embedder.name
        return entries


def open_library(settings: Settings, company: str, create: bool = True) -> Library | None:
    """The company's library (created empty when missing and `create`); None when missing otherwise."""
    path = library_path(settings, company)
    if not path.is_file():
        if not create:
            return None
        path.parent.mkdir(parents=True, exist_ok=True)
    try:
        conn = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
        conn.row_factory = sqlite3.Row
        conn.executescript(_SCHEMA)
        have = {r[1] for r in conn.execute("PRAGMA table_info(entries)")}
        for column, kind in _ADDED.items():
            if column not in have:
                conn.execute(f"ALTER TABLE entries ADD COLUMN {column} {kind}")
        conn.execute("INSERT OR IGNORE INTO meta VALUES ('company', ?)", (company.strip(),))
        conn.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        _rekey(conn)
    except sqlite3.DatabaseError as exc:
        raise InputError(f"the answer library {path} cannot be read ({exc}); move it away to start a new one") from None
    return Library(path, company.strip(), conn)
