"""The decisions a reviewer makes in the browser, kept in a SQLite file next to the workbook
(`.<workbook name>.review.sqlite`, WAL, synchronous FULL). A decision is committed here before the
page is told "Saved", so a crash, a kill -9 or a closed tab loses nothing; the workbook is written
from these records afterwards (apply.py) and each record is marked applied once it is in the file.
A workbook open in Excel is not written: its decisions stay pending here until the lock is gone or
`autofill review --apply` runs.

One record per decision: who, when, what (the action and the row's editable cells before and after),
and whether it is in the workbook yet. The records are also the audit trail (the Review log sheet).

The sidecar is what two review servers of one workbook share (commands.py lets only one serve it, but
`--apply`, a server on another machine over a shared folder or a second process started around the lock
still meet here): each store remembers the newest decision of each row it has seen, and a decision is
refused (`Stale`, HTTP 409 with both versions) when the row has a newer decision it has not seen whose
cells differ from the ones the save was made on. The check and the insert are one transaction, under
SQLite's write lock (BEGIN IMMEDIATE), so no other process can slip a decision in between."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from autofill.review.review_log import read_lines

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


def version_of(state: dict[str, str]) -> str:
    """The version of a row's editable cells a save names as its base (a short hash)."""
    return hashlib.sha1(json.dumps([state.get(f, "") for f in FIELDS]).encode()).hexdigest()[:12]


class Stale(Exception):
    """Another store (another review server) saved this row since this one last saw it: `theirs` is
    the row as that decision left it, `version` its version."""

    def __init__(self, row_key: str, theirs: dict[str, str], decision_id: int):
        super().__init__("someone else changed this row since you loaded it (another review of this workbook)")
        self.row_key, self.decision_id = row_key, decision_id
        self.theirs = {f: theirs.get(f, "") for f in FIELDS}
        self.version = version_of(self.theirs)


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

    def __init__(self, workbook: Path, on_newer=None):
        self.path = sidecar_path(workbook)
        self.on_newer = on_newer  # called (row key, Stale) when a save meets another store's newer decision
        self.seen: dict[str, int] = {}  # row key -> the newest decision id this store's rows reflect
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
        back, marked undone in the same transaction. `before` is the row as the save saw it: raises
        Stale (nothing recorded) when another store has since recorded the row otherwise."""
        at = now_iso()
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                stale = self._newer(row_key, before)
                if stale is None:
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
            if stale is None:
                self.seen[row_key] = cur.lastrowid
                return Decision(cur.lastrowid, row_key, question, reviewer, at, action, dict(before), dict(after),
                                note, applied)
        if self.on_newer is not None:  # outside our lock: the session takes its own
            self.on_newer(row_key, stale)
        self.seen[row_key] = max(self.seen.get(row_key, 0), stale.decision_id)
        raise stale

    def _newer(self, row_key: str, before: dict) -> Stale | None:
        """Within the write transaction: the row's newest decision this store has not seen, as Stale
        when it left the row other than `before` says (a decision that agrees is simply seen now)."""
        found = self._conn.execute("SELECT id, after FROM decisions WHERE row_key = ? AND id > ? ORDER BY id DESC "
                                   "LIMIT 1", (row_key, self.seen.get(row_key, 0))).fetchone()
        if found is None:
            return None
        theirs = json.loads(found[1])
        if all(theirs.get(f, "") == before.get(f, "") for f in FIELDS):
            self.seen[row_key] = found[0]
            return None
        return Stale(row_key, theirs, found[0])

    def newest_ids(self) -> dict[str, int]:
        """Row key -> the id of its newest decision (read before the workbook when a session loads it,
        so what the load sees is at least this new)."""
        with self._lock:
            return dict(self._conn.execute("SELECT row_key, MAX(id) FROM decisions GROUP BY row_key").fetchall())

    def has_unseen(self) -> bool:
        """Whether another store recorded a decision since this one last looked (cheap: one MAX)."""
        with self._lock:
            newest = self._conn.execute("SELECT MAX(id) FROM decisions").fetchone()[0] or 0
        return newest > max(self.seen.values(), default=0)

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

    def mark_pending(self, ids: list[int]) -> None:
        """Decisions to write again (the workbook was replaced by a copy without them: reopen_unlogged)."""
        if not ids:
            return
        with self._lock:
            self._conn.executemany("UPDATE decisions SET applied = 0 WHERE id = ?", [(i,) for i in ids])


def reopen_unlogged(workbook: Path) -> list[int]:
    """After `workbook` was replaced by an older copy of itself (workbook/recovery.py): the decisions
    this sidecar marked applied that the copy's Review log lacks are pending again, so the next review
    writer puts them in again, nothing a reviewer decided lost; their ids."""
    if not sidecar_path(workbook).is_file():
        return []
    logged = set()
    for line in read_lines(workbook):
        if line.decision is not None:
            logged.add(line.decision)
    store = DecisionStore(workbook)
    try:
        lost = [d.id for d in store.all() if d.applied and d.id not in logged]
        store.mark_pending(lost)
        return lost
    finally:
        store.close()
