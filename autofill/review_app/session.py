"""One workbook under review: its rows as the page shows them, the reviewers' decisions and the
writer that puts them into the file.

The rows' editable cells (Answer, Reasoning, Sources, Review, Reviewer comment) are read from the
workbook, with the sidecar's decisions not yet written laid over them. A save names the version of
the row it was made on (a hash of those cells); a save over a row that changed since is refused with
both versions (`Conflict`), so two reviewers never overwrite each other unseen. An Approved row takes
no edit until it is reopened. Each decision is committed to the sidecar before `decide` returns; a
writer thread then puts pending decisions into the workbook (apply.py), after copying the file into
history/ once per session, and waits while Excel or LibreOffice has the file open. A change to the file
made elsewhere (saved in Excel), or a decision another review server put into the shared sidecar, is
read again before the next page; a save that meets such a decision unseen is a Conflict too (sidecar.py).

Every save that changes the Answer, Sources or Review is checked as the next run will check it
(review_app/checking.py): the row's new Tier and Checks go back to the page at once and into the
workbook with the decision; an empty answer is never approved, and failed checks or a value off the
drop-down list need the reviewer's confirmation by name (`Unconfirmed` until then), recorded as the
decision's note."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from pathlib import Path

from autofill.errors import InputError
from autofill.review.reader import ReviewQuestion, read_filled_workbook
from autofill.checks.tier import decide_tier
from autofill.records import CheckResult, Severity
from autofill.review_app.apply import (FIELD_LABELS, STATUS_CELL, TRUST_CELLS, apply_decisions, ensure_writable,
                                       read_layout)
from autofill.review_app.checking import RowChecker, gate
from autofill.review.sidecar import FIELDS, Decision, DecisionStore, Stale, version_of
from autofill.states import ReviewState, Tier, parse_review, parse_tier
from autofill.workbook.record import TRACKED_ROLES
from autofill.workbook.history import keep_previous
from autofill.workbook.reviewer import edited_note
from autofill.workbook.safety import replaced_reason, xml_safe

log = logging.getLogger(__name__)

ACTIONS = {"Approve": ReviewState.APPROVED, "Needs changes": ReviewState.NEEDS_CHANGES,
           "Reject": ReviewState.REJECTED, "Reopen": ReviewState.NONE}
EDIT = "Edit"
TIER_RANK = {Tier.NEEDS_WORK: 0, Tier.CHECK: 1, Tier.READY: 2, Tier.APPROVED: 3, None: 4}
CHECKED_FIELDS = ("answer", "sources", "review")  # what the checks and the tier read
WRITE_DELAY_S = 0.3  # saves close together go into the workbook in one write
RETRY_S = 2.0  # how often a workbook open in Excel is looked at again


class Conflict(Exception):
    """The row changed since the reviewer loaded it; `theirs` is what it holds now."""

    def __init__(self, message: str, theirs: dict, version: str):
        super().__init__(message)
        self.theirs, self.version = theirs, version


class Refused(Exception):
    """A save that cannot be made (an Approved row edited without reopening, nothing to undo)."""


def state_of(q: ReviewQuestion) -> dict[str, str]:
    return {f: getattr(q, f) or "" for f in FIELDS}


def _edited(current: dict[str, str], values: dict) -> tuple[dict[str, str], str]:
    """The row's editable cells with the reviewer's `values` put in (Review is the action's), each made
    safe for the workbook before anything is recorded (safety.xml_safe: characters an .xlsx cannot hold
    become U+FFFD), and the Checks line naming what was replaced ("" none)."""
    after, replaced = dict(current), {}
    for f, v in values.items():
        if f in FIELDS and f != "review" and v is not None:
            after[f], replaced[FIELD_LABELS[f]] = xml_safe(str(v).replace("\r\n", "\n").strip())
    return after, replaced_reason(replaced)


@dataclass
class Saved:
    decision: Decision | None
    state: dict[str, str]
    version: str
    trust: dict[str, str] | None = None  # the row's Tier and Checks cells after the save (checking.py)
    replaced: str = ""  # characters a workbook cannot hold, replaced in the reviewer's text (safety.xml_safe)


class ReviewSession:
    def __init__(self, settings, workbook: Path, write_delay: float = WRITE_DELAY_S):
        self.settings = settings
        self.path = Path(workbook).absolute()
        self.store = DecisionStore(self.path, on_newer=self._adopt)
        self.write_delay = write_delay
        self._lock = threading.RLock()  # rows and states
        self._file_lock = threading.Lock()  # the workbook file: one writer, no reading half a write
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._history_kept = False
        self.blocked = ""  # why pending decisions cannot be written now (open in Excel)
        self.last_error = ""
        self.closed = False
        self.left = 0  # decisions still pending when the session closed
        self.trust: dict[str, dict[str, str]] = {}  # row key -> Tier and Checks of its last checked save
        self.statuses: dict[str, str] = {}  # row key -> the Status its last save gave it (edited cells: _status)
        self._checker: RowChecker | None = None
        self._load()
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ reading
    def _stamp(self) -> tuple[int, int]:
        st = self.path.stat()
        return st.st_mtime_ns, st.st_size

    def _load(self) -> None:
        seen = self.store.newest_ids()  # before the file: what is read below is at least this new
        book = self._read_book()
        states = {q.key: state_of(q) for q in book.questions if q.in_sheet}
        position = {q.key: i for i, q in enumerate(book.questions)}
        with self._lock:  # no decision slips in between reading the pending ones and using them
            trust, statuses = {}, {}
            for d in self.store.pending():  # decisions the file does not hold yet
                if d.row_key in states:
                    states[d.row_key].update({f: d.after.get(f, "") for f, _b, _a in d.changes()})
                    if "tier" in d.after:
                        trust[d.row_key] = {k: d.after.get(k, "") for k in TRUST_CELLS}
                    if STATUS_CELL in d.after:
                        statuses[d.row_key] = d.after[STATUS_CELL]
            self.trust, self.statuses = trust, statuses
            self.book, self.states, self._layout, self._checker = book, states, None, None
            self.questions = {q.key: q for q in book.questions if q.in_sheet}
            self.order = sorted(self.questions, key=lambda k: (TIER_RANK[parse_tier(self.questions[k].tier)],
                                                              position[k]))
            self.store.seen.update({k: max(i, self.store.seen.get(k, 0)) for k, i in seen.items()})
            self._known = self._stamp()
            self.generation = getattr(self, "generation", 0) + 1

    def _read_book(self):
        """The workbook's rows as the page shows them (a form's session reads its datapoints: forms.py)."""
        return read_filled_workbook(self.path)

    def _apply(self, decisions) -> list[int]:
        """Write pending `decisions` (a function that reads them) into the workbook; the ids written."""
        return apply_decisions(self.settings, self.path, decisions, self.layout)

    @property
    def layout(self):
        """The workbook's layout (which column holds which cell), read when the first write needs it."""
        if self._layout is None:
            self._layout = read_layout(self.settings, self.path)
        return self._layout

    @property
    def checker(self) -> RowChecker:
        if self._checker is None:
            self._checker = RowChecker(self.settings, self)
        return self._checker

    def refresh(self) -> None:
        """Read the workbook again when someone else saved it (Excel) since it was read."""
        if not self._file_lock.acquire(blocking=False):
            return  # our own writer is busy with it; it knows what it writes
        try:
            if self._stamp() != self._known or self.store.has_unseen():
                log.info("%s or its decisions changed elsewhere; reading it again", self.path.name)
                self._load()
        except (OSError, InputError) as exc:
            log.warning("could not read %s again: %s", self.path.name, exc)
        finally:
            self._file_lock.release()

    @property
    def company(self) -> str:
        return self.book.info("company")

    def state(self, key: str) -> dict[str, str]:
        with self._lock:
            if key not in self.states:
                raise Refused(f"no question row {key} in {self.path.name}")
            return dict(self.states[key])

    def counts(self) -> tuple[int, int]:
        """(reviewed, rows): rows with a Review decision, of all question rows."""
        with self._lock:
            done = sum(1 for s in self.states.values() if parse_review(s["review"]) is not ReviewState.NONE)
            return done, len(self.states)

    # ------------------------------------------------------------------ deciding
    def _reviewer_for(self, reviewer: str, action: str) -> str:
        """The reviewer's name as recorded; Refused without one, or for an action the page has not."""
        reviewer = " ".join((reviewer or "").split())[:80]
        if not reviewer:
            raise Refused("say who you are first (reviewer name)")
        if action not in ACTIONS and action != EDIT:
            raise Refused(f"unknown action {action!r}")
        return reviewer

    def _unlocked(self, key: str, base: str, action: str, what: str) -> dict:
        """The state of `key` (under the lock), Refused when it changed since `base` or is approved and
        locked (only Reopen opens it)."""
        current = self.state(key)
        self._check_base(current, base)
        if parse_review(current["review"]) is ReviewState.APPROVED and action != "Reopen":
            raise Refused(f"this {what} is approved and locked; reopen it to change it")
        return current

    def decide(self, key: str, base: str, reviewer: str, action: str, values: dict[str, str] | None = None,
               note: str = "", confirm: list[str] | None = None) -> Saved:
        """Record one decision: `action` is Approve / Needs changes / Reject / Reopen / Edit; `values`
        the editable cells as the reviewer left them; `confirm` the failed checks the reviewer has
        confirmed by name. Refused when the row changed since `base`; Unconfirmed while a failed check
        of an approval, or a value off the drop-down list, is not confirmed."""
        reviewer = self._reviewer_for(reviewer, action)
        with self._lock:
            current = self._unlocked(key, base, action, "row")
            after, replaced = _edited(current, values or {})
            if action in ACTIONS:
                after["review"] = ACTIONS[action].label
            if after["answer"] != current["answer"]:
                after["answer"] = self.checker.canonical(key, after["answer"])
            if after == current:
                return Saved(None, current, version_of(current), self.trust.get(key))
            cells = self._checked_cells(key, action, current, after, confirm, replaced)
            if cells is not None:
                note = "\n".join(n for n in (note, cells.pop("note")) if n)
            status = self._status(key, current, after)
            d = self.store.add(key, self.questions[key].question, reviewer, action, current,
                               {**after, **(cells or {}), **status}, note)
            self.states[key] = after
            self.statuses.update({key: status["status"]} if status else {})
        self._wake.set()
        return Saved(d, after, version_of(after), self.trust.get(key), replaced)

    def _status(self, key: str, before: dict[str, str], after: dict[str, str]) -> dict[str, str]:
        """{"status": the row's new Status} when the save changes the Answer, Reasoning or Sources: what
        the next run writes for a row a person edited (workbook/reviewer.edited_note, naming the cells
        that differ from the workbook's), or the workbook's own Status when they are back as it holds
        them; {} when the save leaves those cells alone."""
        if all(before.get(f) == after.get(f) for f in TRACKED_ROLES):
            return {}
        q = self.questions[key]
        roles = [f for f in TRACKED_ROLES if after.get(f, "") != (getattr(q, f) or "")]
        return {"status": edited_note(roles) if roles else q.status}

    def _checked_cells(self, key: str, action: str, before: dict, after: dict,
                       confirm: list[str] | None, replaced: str = "") -> dict[str, str] | None:
        """The row's new Tier and Checks (and the decision's note) when the save changes what the checks
        read (Answer, Sources, Review), approves, or had characters replaced (`replaced`: the Checks
        line saying which, a soft failure); None when it does none of these."""
        if action != "Approve" and not replaced and all(before.get(f) == after.get(f) for f in CHECKED_FIELDS):
            return None
        checked = self.checker.check(key, after)
        if replaced:
            checked.checks.append(CheckResult("characters", False, Severity.SOFT, replaced))
            if checked.tier is not Tier.APPROVED:
                checked.tier = decide_tier(checked.checks)
        try:
            note = gate(action, before, after, checked, confirm or [])
        except ValueError as exc:
            raise Refused(str(exc)) from None
        self.trust[key] = checked.cells()
        return {**checked.cells(), "note": note}

    def undo(self, key: str, base: str, reviewer: str) -> Saved:
        """Take back the row's last decision (its cells as they were before it)."""
        with self._lock:
            current = self.state(key)
            self._check_base(current, base)
            last = self.store.last_for(key)
            if last is None:
                raise Refused("nothing to undo on this row")
            if {f: current.get(f, "") for f in FIELDS} != {f: last.after.get(f, "") for f in FIELDS}:
                raise Refused("the row changed after its last decision here; nothing undone")
            after = {f: last.before.get(f, "") for f in FIELDS}
            q = self.questions[key]
            # Back to what the workbook held: its own Tier and Checks; else the restored cells checked.
            cells = ({"tier": q.tier, "checks": q.checks} if after == state_of(q)
                     else self.checker.check(key, after).cells())
            self.trust[key] = cells
            status = self._status(key, current, after)
            d = self.store.add(key, self.questions[key].question, reviewer or last.reviewer, "Undo", current,
                               {**after, **cells, **status, **self._undo_extra(last)},
                               note=f"undoes decision {last.id} ({last.action})", undoes=last.id)
            self.states[key] = after
            self.statuses.update({key: status["status"]} if status else {})
        self._wake.set()
        return Saved(d, after, version_of(after), cells)

    def _undo_extra(self, last: Decision) -> dict:
        """What else an Undo of `last` records for the writer (a form: the cells as they were before it)."""
        return {}

    def _adopt(self, key: str, stale: Stale) -> None:
        """Another review server saved row `key` (the sidecar said so at save time): its version is the
        row's from now on, so the reviewer's next save is made on it."""
        with self._lock:
            if key in self.states:
                self.states[key] = dict(stale.theirs)

    def _check_base(self, current: dict, base: str) -> None:
        now = version_of(current)
        if base != now:
            raise Conflict("someone else changed this row since you loaded it", current, now)

    # ------------------------------------------------------------------ writing
    def flush(self) -> int:
        """Write every pending decision into the workbook now; the number written. Raises InputError
        when the workbook is open in an office suite (the decisions stay pending)."""
        with self._file_lock:
            if not self.store.pending_count():
                return 0
            why = ensure_writable(self.path)
            if why:
                raise InputError(why)
            if not self._history_kept:
                keep_previous(self.path, self.settings.workbook.history_versions)
                self._history_kept = True
            # The pending list is read under the workbook's lock: another server's writer may go first.
            ids = self._apply(self.store.pending)
            self.store.mark_applied(ids)
            self._known = self._stamp()
            return len(ids)

    def _writer(self) -> None:
        while not self._stop.is_set():
            woken = self._wake.wait(timeout=RETRY_S)
            if woken:
                self._stop.wait(self.write_delay)
                self._wake.clear()
            if not self.store.pending_count():
                continue
            try:
                self.flush()
                self.blocked = self.last_error = ""
            except InputError as exc:
                self.blocked = str(exc)
            except Exception as exc:  # noqa: BLE001 - the decisions stay in the sidecar; say why
                self.last_error = f"{type(exc).__name__}: {exc}"
                log.warning("could not write decisions into %s: %s", self.path.name, self.last_error)

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._writer, name="autofill-review-writer", daemon=True)
            self._thread.start()
            self._wake.set()  # decisions left pending by an earlier session

    def close(self) -> None:
        """Stop the writer and write what is pending (a workbook still open elsewhere keeps its
        decisions in the sidecar for the next start or `autofill review --apply`)."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=60)
        if self.closed:
            return
        self.closed = True
        try:
            self.flush()
        except InputError as exc:
            log.warning("%s; %d decisions wait in %s: run `autofill review --apply %s` once it is closed", exc,
                        self.store.pending_count(), self.store.path.name, self.path.name)
        self.left = self.store.pending_count()
        self.store.close()

    def status(self) -> dict:
        pending = self.store.pending_count()
        done, total = self.counts()
        blocked = (self.blocked or ensure_writable(self.path)) if pending else ""
        return {"pending": pending, "blocked": blocked, "error": self.last_error,
                "reviewed": done, "rows": total}
