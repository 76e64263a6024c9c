"""Row states, defined once: the reviewer's Review value, how a row ended in a run (its Status), and
the trust tier. Every module that reads or writes these goes through the parse and format functions
here instead of comparing strings, so spellings cannot drift apart between the reviewer logic, the
writer, live Excel, the review report and the evidence-only drafts."""

from __future__ import annotations

from enum import Enum


def _norm(text: object) -> str:
    return " ".join(str(text or "").replace("-", " ").replace("_", " ").split()).lower()


class ReviewState(Enum):
    """The reviewer's verdict in the Review column."""

    NONE = ""
    APPROVED = "Approved"
    NEEDS_CHANGES = "Needs changes"
    REJECTED = "Rejected"

    @property
    def label(self) -> str:
        return self.value

    @property
    def reanswer(self) -> bool:
        """The row is answered again, with the reviewer's comment as guidance."""
        return self in (ReviewState.NEEDS_CHANGES, ReviewState.REJECTED)


# Accepted spellings (after lower-casing, '-' and '_' as spaces, whitespace collapsed).
_REVIEW_SPELLINGS = {
    "approved": ReviewState.APPROVED,
    "approve": ReviewState.APPROVED,
    "needs changes": ReviewState.NEEDS_CHANGES,
    "needs change": ReviewState.NEEDS_CHANGES,
    "need changes": ReviewState.NEEDS_CHANGES,
    "changes needed": ReviewState.NEEDS_CHANGES,
    "rejected": ReviewState.REJECTED,
    "reject": ReviewState.REJECTED,
}

REVIEW_CHOICES = [s.label for s in ReviewState if s is not ReviewState.NONE]


def parse_review(text: object) -> ReviewState:
    """A Review cell's value as a state; anything unrecognised (blank, a note) is NONE."""
    return _REVIEW_SPELLINGS.get(_norm(text), ReviewState.NONE)


class Outcome(Enum):
    """How a row ended in a run; counted separately in the summary, --json and Run info."""

    ANSWERED = "answered"  # a model answered
    DRAFTED = "drafted"  # evidence-only draft (no model configured)
    UNPARSED = "unparsed"  # the model replied, but the reply could not be read
    FAILED = "failed"  # no reply (provider error after retries, or an error in the row)
    SKIPPED = "skipped"  # kept as it was (approved, answered by a person, edited by hand)
    REUSED = "reused"  # an approved library answer reused without a model call
    PENDING = "pending"  # not started: a cost cap (--max-cost) stopped scheduling; the next run answers it
    NOT_WRITTEN = "not_written"  # a model answered, but the Answer cell cannot hold it (merged cell, not a drop-down value)
    APPROVED = "approved"  # kept: a reviewer approved the row (its cells stay as they are; Status and Tier say so)
    EDITED = "edited"  # kept: a person changed cells autofill wrote; re-checked on their text
    WAITING = "waiting"  # Rejected / Needs changes, but no model is configured to answer it again


# The Status cell: "; "-joined parts, the first naming how the row ended (its Outcome), the rest details
# ("dropped 1 citation not in the evidence"). A re-answered row starts with REANSWERED_PREFIX.
STATUS_LABELS = {
    Outcome.ANSWERED: "Answered",
    Outcome.DRAFTED: "Evidence only (no LLM configured)",
    Outcome.UNPARSED: "Unparsed model output",
    Outcome.FAILED: "Failed",
    Outcome.SKIPPED: "Kept",
    Outcome.REUSED: "Reused from the answer library",
    Outcome.NOT_WRITTEN: "Answer not written",
    Outcome.APPROVED: "Approved in review",
    Outcome.WAITING: "Waiting for a model",
}
# Outcomes of rows a run keeps as a person left them (counted together as "skipped" / kept).
KEPT = (Outcome.SKIPPED, Outcome.APPROVED, Outcome.EDITED, Outcome.WAITING)
# Outcomes whose Answer cell holds a model's (or library's) answer written by this run.
WRITES_ANSWER = (Outcome.ANSWERED, Outcome.REUSED)
REANSWERED_PREFIX = "Re-answered after review"
EDITED_BY_HAND = "Edited by hand"  # a person changed cells autofill wrote; the row is kept as they left it
PREVIOUS_KEPT = "previous answer kept"  # a failed or unparsed row did not replace what was there
NO_VALID_CITATION = "no valid citation"  # an answer (not "Not disclosed") without a citation in the evidence
_STATUS_SPELLINGS = {_norm(label): outcome for outcome, label in STATUS_LABELS.items()}
_STATUS_SPELLINGS.update({"evidence only": Outcome.DRAFTED, "no evidence retrieved": Outcome.FAILED,
                          "reused approved answer": Outcome.REUSED})  # library/runtime.reused_status

# The opening of an evidence-only draft's reasoning cell (answer/evidence_only.py): the writer, the
# reviewer logic and the library tell a draft from an answer by it.
DRAFT_PREFIX = "Evidence found (not an answer): "


def status_label(outcome: Outcome) -> str:
    if outcome is Outcome.EDITED:
        return EDITED_BY_HAND
    return STATUS_LABELS[outcome]


def approved_status(date: str) -> str:
    """Status of an approved row: "Approved in review (2026-11-25)" (the date the row was first seen
    approved by a run)."""
    return f"{STATUS_LABELS[Outcome.APPROVED]} ({date})"


def waiting_status(review: "ReviewState", comment: str) -> str:
    """Status of a Rejected / Needs-changes row that no model can answer again in this run."""
    why = f"{review.label} in review" + ("; the reviewer's comment is kept for the next run" if comment.strip() else "")
    return (f"{STATUS_LABELS[Outcome.WAITING]}: {why}; configure a model (OPENAI_API_KEY / OPENAI_BASE_URL or "
            f"COHERE_API_KEY) and run again to answer it")


def format_status(outcome: Outcome, *details: str, error: str = "") -> str:
    """The Status cell for a row that ended with `outcome`: "Failed: <error>", "Answered; <detail>"."""
    head = status_label(outcome) + (f": {error}" if error and outcome in (Outcome.FAILED, Outcome.NOT_WRITTEN) else "")
    return "; ".join([head, *(d for d in details if d)])


def parse_status(text: object) -> Outcome | None:
    """How the row ended according to its Status cell (None: blank or not written by autofill). Reads
    the first part that names an outcome, so "Re-answered after review (Rejected); Answered" is
    ANSWERED, "Failed: HTTP 500" is FAILED and "Edited by hand (answer); was: Answered" is SKIPPED."""
    for part in str(text or "").split(";"):
        key = _norm(part.split(":", 1)[0])
        if key.startswith(_norm(EDITED_BY_HAND)):
            return Outcome.EDITED
        if key.startswith(_norm(REANSWERED_PREFIX)):
            continue
        for spelling, outcome in _STATUS_SPELLINGS.items():
            if key == spelling or key.startswith(spelling):
                return outcome
    return None


class Tier(Enum):
    """Trust tier from the checks against the cited evidence: which answers to read first."""

    READY = "Ready"
    CHECK = "Check"
    NEEDS_WORK = "Needs work"
    APPROVED = "Approved"  # a reviewer approved the row as it stands: their verdict, not the checks'

    @property
    def label(self) -> str:
        return self.value

    @property
    def key(self) -> str:
        """The JSON key: ready, check, needs_work."""
        return self.name.lower()

    @property
    def fill(self) -> str:
        """Cell fill colour (RGB hex) for the Tier column: green, amber, red."""
        return {Tier.READY: "C6EFCE", Tier.CHECK: "FFEB9C", Tier.NEEDS_WORK: "FFC7CE", Tier.APPROVED: "BDD7EE"}[self]


def parse_tier(text: object) -> Tier | None:
    t = _norm(text)
    return next((tier for tier in Tier if _norm(tier.value) == t), None)
