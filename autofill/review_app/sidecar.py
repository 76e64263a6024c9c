"""The decisions a reviewer makes in the browser, kept in a SQLite file next to the workbook
(`.<workbook name>.review.sqlite`, WAL, synchronous FULL). A decision is committed here before the
page is told "Saved", so a crash, a kill -9 or a closed tab loses nothing; the workbook is written
from these records afterwards (apply.py) and each record is marked applied once it is in the file.
A workbook open in Excel is not written: its decisions stay pending here until the lock is gone or
`autofill review --apply` runs.

One record per decision: who, when, what (the action and the row's editable cells before and after),
and whether it is in the workbook yet. The records are also the audit trail (the Review log sheet)."""

from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

FIELDS = ("answer", "reasoning", "sources", "review", "reviewer_comment")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS decisions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    row_key TEXT NOT NULL,
    question TEXT NOT NULL,
    reviewer TEXT NOT NULL,
    at TEXT NOT NULL,
    action TEXT NOT NULL,
    before TEXT NOT NULL,
    after TEXT NOT NULL,
    note TEXT NOT NULL DEFAULT '',
    applied INTEGER NOT NULL DEFAULT 0,
    undone INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS decisions_row ON decisions(row_key);
"""


def sidecar_path(workbook: Path) -> Path:
    workbook = Path(workbook)
    return workbook.with_name(f".{workbook.name}.review.sqlite")


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@dataclass
class Decision:
    id: int
    row_key: str
    question: str
    reviewer: str
    at: str
    action: str
    before: dict[str, str]
    after: dict[str, str]
    note: str = ""
    applied: bool = False
    undone: bool = False

    def changes(self) -> list[tuple[str, str, str]]:
        """(field, before, after) for each editable cell the decision changed."""
        return [(f, self.before.get(f, ""), self.after.get(f, "")) for f in FIELDS
                if self.before.get(f, "") != self.after.get(f, "")]


class DecisionStore:
    """The sidecar of one workbook; safe to share between threads (one connection behind a lock)."""

    def __init__(self, workbook: Path):
        self.path = sidecar_path(workbook)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(self.path, check_same_thread=False, timeout=30, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=FULL")  # committed means on disk, before "Saved"
        self._conn.executescript(_SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def add(self, row_key: str, question: str, reviewer: str, action: str, before: dict, after: dict,
            note: str = "", applied: bool = False, undoes: int | None = None) -> Decision:
        """Record a decision (committed when this returns); `undoes`: the id of the decision it takes
        back, marked undone in the same transaction."""
        at = now_iso()
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                cur = self._conn.execute(
                    "INSERT INTO decisions(row_key, question, reviewer, at, action, before, after, note, applied) "
                    "VALUES (?,?,?,?,?,?,?,?,?)",
                    (row_key, question, reviewer, at, action, json.dumps(before), json.dumps(after), note,
                     int(applied)))
                if undoes is not None:
                    self._conn.execute("UPDATE decisions SET undone = 1 WHERE id = ?", (undoes,))
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            return Decision(cur.lastrowid, row_key, question, reviewer, at, action, dict(before), dict(after), note,
                            applied)

    def _select(self, where: str = "", args: tuple = ()) -> list[Decision]:
        with self._lock:
            rows = self._conn.execute(
                "SELECT id, row_key, question, reviewer, at, action, before, after, note, applied, undone "
                f"FROM decisions {where} ORDER BY id", args).fetchall()
        return [Decision(r[0], r[1], r[2], r[3], r[4], r[5], json.loads(r[6]), json.loads(r[7]), r[8], bool(r[9]),
                         bool(r[10])) for r in rows]

    def all(self) -> list[Decision]:
        return self._select()

    def pending(self) -> list[Decision]:
        """Decisions not yet written into the workbook, oldest first."""
        return self._select("WHERE applied = 0")

    def pending_count(self) -> int:
        with self._lock:
            return self._conn.execute("SELECT COUNT(*) FROM decisions WHERE applied = 0").fetchone()[0]

    def last_for(self, row_key: str) -> Decision | None:
        """The row's latest decision that has not been undone (what Undo takes back)."""
        found = self._select("WHERE row_key = ? AND undone = 0 AND action != 'Undo'", (row_key,))
        return found[-1] if found else None

    def mark_applied(self, ids: list[int]) -> None:
        if not ids:
            return
        with self._lock:
            self._conn.executemany("UPDATE decisions SET applied = 1 WHERE id = ?", [(i,) for i in ids])

