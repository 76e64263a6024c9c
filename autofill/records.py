"""Typed records passed between stages. Ingestion (document_records.py): ParsedDocument -> Chunk. Answering:
QuestionRow -> Passage -> Answer -> RowResult. Kept free of I/O so every stage is testable alone."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autofill.document_records import (  # noqa: F401 (the ingest records, importable from here as before)
    Block, PageContent, ParsedDocument, Chunk, DocumentRecord, StoreInfo, FileOutcome, SkippedFile,
)
from autofill.states import NO_VALID_CITATION, Outcome, parse_status

if TYPE_CHECKING:
    from autofill.states import Tier

# --------------------------------------------------------------------------- answering


@dataclass
class QuestionRow:
    sheet: str
    row: int  # 1-based worksheet row
    question: str
    number: str = ""
    section: str = ""
    form_of_answer: str = ""
    explanation: str = ""
    hyde_hint: str = ""
    allowed_values: list[str] = field(default_factory=list)  # from a drop-down or the form of answer
    # "dropdown" (the Answer cell accepts only these values) or "form of answer" (named in the text)
    allowed_values_source: str = ""
    existing_answer: str = ""
    status: str = ""  # Status cell of a previous run
    review: str = ""  # Approved / Needs changes / Rejected
    reviewer_comment: str = ""
    # The answer library's approved answer for this question (autofill/library), given to the answer
    # prompt as the previously approved answer; "" when the library has none above the threshold.
    approved_answer: str = ""
    existing_sources: str = ""  # Sources cell of a previous run (an edited row is re-checked against it)
    existing_tier: str = ""  # Tier cell of a previous run (a kept row is counted by it)
    # Merged Answer cells (workbook/layout.py): the cell that holds this row's answer when it is the
    # top-left of a merged range elsewhere ("D9"), or why no answer can be written to this row.
    answer_cell: str = ""
    unwritable: str = ""
    # The framework datapoints the row asks for (autofill/frameworks), as the `Framework datapoints`
    # cell writes them: one "label (strength): requirement ids" line each; "" when none.
    datapoints: str = ""
    # The questionnaire's language (autofill/language.py), "" when unknown: keyword search stems in it.
    language: str = ""

    @property
    def key(self) -> str:
        """Stable identity of a row for checkpoints and caches."""
        return f"{self.sheet}!{self.row}"


def build_query(row: QuestionRow) -> str:
    """The retrieval query without HyDE: the question plus its form of answer and explanation,
    which often name the exact terms a report uses ("Scope 1 and Scope 2", "base year"). Searched by
    search/retrieval.py and translated as a whole by translation/translator.py."""
    parts = [row.question.strip(), row.form_of_answer.strip(), row.explanation.strip()]
    return "\n".join(p for p in parts if p)


@dataclass
class Passage:
    """A retrieved chunk, as handed from retrieval to rerank to the answer step."""

    chunk_id: str
    file_name: str
    page_start: int
    page_end: int
    section: str
    text: str
    score: float = 0.0  # retrieval score (cosine similarity, RRF or reranker score)
    rank: int = 0  # 1-based rank after the stage that produced it
    ocr: bool = False  # some of the text was read by OCR
    page_labels: list[str] = field(default_factory=list)  # printed number of pages page_start..page_end
    context: str = ""  # the chunk's model-written context line (Chunk.context); searched, never shown as evidence
    has_table: bool = False  # the chunk holds a table (Chunk.has_table): the second stage leaves it in place

    @property
    def page_label(self) -> str:
        return f"{self.file_name} p. {self.page_start}"

    def printed(self, page: int) -> str:
        """The number printed on PDF page `page` of this passage ("" when unknown)."""
        i = page - self.page_start
        return self.page_labels[i] if 0 <= i < len(self.page_labels) else ""

    def citation(self, page: int | None = None) -> "Citation":
        page = self.page_start if page is None else page
        return Citation(self.file_name, page, self.printed(page))


@dataclass(frozen=True)
class Citation:
    file_name: str
    page: int  # 1-based PDF page index (what gold keys and eval use)
    printed: str = ""  # the number printed on that page, when known

    def label(self) -> str:
        """`FILE p. 26`, or `FILE p. 26 (printed 24)` when the page shows another number."""
        return f"{self.file_name} p. {self.page}{printed_suffix(self.page, self.printed)}"


def printed_suffix(page: int, printed: str) -> str:
    """` (printed 24)` when the printed number differs from the PDF page index, else ""."""
    printed = (printed or "").strip()
    return f" (printed {printed})" if printed and printed != str(page) else ""


@dataclass
class Answer:
    answer: str
    reasoning: str = ""
    citations: list[Citation] = field(default_factory=list)  # most relevant first
    cited_passages: list[int] = field(default_factory=list)  # 1-based indexes into the context
    confidence: str = ""  # "high", "medium", "low"
    status: str = "Answered"
    raw: str = ""  # the model's raw reply, kept when it could not be parsed
    flags: list[str] = field(default_factory=list)  # e.g. "dropped citation to p. 99"


class Severity(str, Enum):
    """How much a failed check weighs: a hard failure makes the row Needs work, a soft one Check."""

    HARD = "hard"
    SOFT = "soft"


@dataclass(frozen=True)
class CheckResult:
    """One trust check of an answer against its cited evidence (autofill/checks)."""

    name: str  # "figures", "years", "scope", "period", "form", "citations", "confidence", "verify", ...
    passed: bool
    severity: Severity
    reason: str  # in words, naming the figure or year: "987,654 tCO2e not in cited passages"

    def to_dict(self) -> dict:
        return {"name": self.name, "passed": self.passed, "severity": self.severity.value, "reason": self.reason}

    @classmethod
    def from_dict(cls, d: dict) -> "CheckResult":
        return cls(str(d["name"]), bool(d["passed"]), Severity(d.get("severity", "hard")), str(d.get("reason", "")))


# The model-calling stages of a row, in order; usage is accounted and reported per stage.
LLM_STAGES = ("hyde", "multiquery", "rerank", "answer", "verify")


@dataclass
class StageUsage:
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_calls: int = 0
    cost_usd: float = 0.0  # of the priced calls only
    unpriced_calls: int = 0  # calls to a model or endpoint with no price (providers/cost.py): cost unknown

    def add(self, other: "StageUsage") -> None:
        self.calls += other.calls
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.cached_calls += other.cached_calls
        self.cost_usd += other.cost_usd
        self.unpriced_calls += other.unpriced_calls

    @property
    def cost_known(self) -> bool:
        return not self.unpriced_calls

    def to_json(self) -> dict:
        return {"calls": self.calls, "cached_calls": self.cached_calls, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens,
                "cost_usd": round(self.cost_usd, 6) if self.cost_known else None}


def stages_json(usage: "dict[str, StageUsage]") -> dict:
    """Usage by model stage (every stage of LLM_STAGES, zeros included, then any other stage that made
    calls, e.g. an ingest's "contextualize") for `--json` outputs."""
    out = {stage: usage.get(stage, StageUsage()).to_json() for stage in LLM_STAGES}
    out.update((stage, u.to_json()) for stage, u in usage.items() if stage not in out)
    return out


def outcome_of(answer: "Answer | None") -> Outcome:
    """How a row with this answer ended: no answer is a failure; otherwise its status says whether a
    model answered, an evidence-only draft was made or the reply could not be read."""
    if answer is None:
        return Outcome.FAILED
    return parse_status(answer.status) or Outcome.ANSWERED


@dataclass
class LibraryMatch:
    """The answer library's best approved answer for a question (autofill/library/match.py)."""

    entry_id: int
    question: str  # the approved question, as worded where it was approved
    answer: str
    approved_at: str  # YYYY-MM-DD
    strength: float  # calibrated match strength, 0-1
    source_questionnaire: str = ""
    documents_unchanged: bool = False  # every document it cited is in the store with the same hash

    @property
    def cell_text(self) -> str:
        """The `Library answer` cell: the answer, then when it was approved and how well it matches."""
        where = f", {self.source_questionnaire}" if self.source_questionnaire else ""
        return f"{self.answer}\n(approved {self.approved_at}{where}; match {self.strength:.2f})"


@dataclass
class RowResult:
    question: QuestionRow
    answer: Answer | None
    passages: list[Passage] = field(default_factory=list)  # the context given to the answer step, in rank order
    usage: dict[str, StageUsage] = field(default_factory=dict)  # by stage: hyde, rerank, answer
    error: str = ""
    seconds: float = 0.0
    checks: list[CheckResult] = field(default_factory=list)  # trust checks, run once the row is finished
    tier: "Tier | None" = None  # Ready / Check / Needs work from the checks; None before they ran
    # How the row ended; derived from `answer` when not given (None -> FAILED). SKIPPED rows were kept
    # as a person left them (answer None) and are written only to note why in their Status.
    outcome: Outcome | None = None
    note: str = ""  # SKIPPED: the Status to write (e.g. edited by hand), empty to leave the row alone
    library: LibraryMatch | None = None  # the approved library answer shown for this row
    # The new answer differs materially (verdict, figures) from the approved library answer: never Ready.
    changed_since_approved: bool = False
    # This run's model replies by stage (providers.base.ChatResult), for the response cache: a bad one is
    # forgotten (answer/opening.py). Not checkpointed.
    replies: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.outcome is None:
            self.outcome = outcome_of(self.answer)

    @property
    def failed(self) -> bool:
        return self.outcome is Outcome.FAILED

    @property
    def uncited(self) -> bool:
        """A model answer (other than "Not disclosed") without one valid citation."""
        return self.answer is not None and any(f.startswith(NO_VALID_CITATION) for f in self.answer.flags)

    @property
    def bad_reply(self) -> bool:
        """The model's answer could not be read, or failed a check of its form: never replayed (not from
        the response cache, not from a checkpoint), so the next run asks again."""
        return self.outcome is Outcome.UNPARSED or any(c.name == "form" and not c.passed for c in self.checks)


@dataclass
class RunReport:
    output: Path
    rows: int
    answered: int  # a model answered (whatever the checks say about the answer)
    failed: int  # no answer: provider error after retries, or an error in the row
    skipped: int  # kept as a person left them (approved, answered by hand, edited by hand)
    usage: dict[str, StageUsage]
    seconds: float
    report_html: Path | None = None
    evidence_only: bool = False  # no model configured: rows are quoted-evidence drafts
    drafted: int = 0  # evidence-only drafts: quotes for a reviewer, never an answer
    unparsed: int = 0  # the model replied but the reply could not be read
    uncited: int = 0  # answered, but no citation points into the evidence (flagged in Status)
    edited: int = 0  # of the skipped rows: cells autofill wrote that a person changed since
    history: Path | None = None  # the previous output, kept before it was replaced
    # Rows that need another run, for the summary: (outcome, row key such as "Sheet!12", why).
    problems: list[tuple[str, str, str]] = field(default_factory=list)
    tiers: dict[str, int] = field(default_factory=dict)  # rows per trust tier: ready, check, needs_work
    reused: int = 0  # rows filled with an approved library answer, no model call (not in answered)
    pending: int = 0  # rows not started (a portfolio's cost cap); the next run answers them
    approved: int = 0  # of the skipped rows: approved in review (Tier Approved)
    waiting: int = 0  # of the skipped rows: Rejected / Needs changes, waiting for a model
    not_written: int = 0  # a model answered but the Answer cell cannot hold it (not in answered)
    cost_unknown: str = ""  # why the cost is unknown (a call to a model or endpoint with no price); "" when known
    plan: dict = field(default_factory=dict)  # the resolved plan (autofill/plan.py Plan.to_json())

    @property
    def ok(self) -> bool:
        """Every row ended well: a run with failed or unparsed rows exits 1."""
        return not (self.failed or self.unparsed)

    def totals(self) -> StageUsage:
        total = StageUsage()
        for u in self.usage.values():
            total.add(u)
        return total

    def to_json(self) -> dict:
        t = self.totals()
        return {
            "output": str(self.output),
            "rows": self.rows,
            "answered": self.answered,
            "drafted": self.drafted,
            "unparsed": self.unparsed,
            "failed": self.failed,
            "skipped": self.skipped,
            "reused": self.reused,
            "uncited": self.uncited,
            "edited_by_hand": self.edited,
            "approved": self.approved,
            "waiting_for_model": self.waiting,
            "not_written": self.not_written,
            "llm_calls": t.calls,
            "prompt_tokens": t.prompt_tokens,
            "completion_tokens": t.completion_tokens,
            "cost_usd": round(t.cost_usd, 6) if t.cost_known else None,
            "cost_unknown_reason": (self.cost_unknown or "no price for the model") if not t.cost_known else None,
            "stages": stages_json(self.usage),  # the same split as the Run info sheet
            "seconds": round(self.seconds, 2),
            "evidence_only": self.evidence_only,
            "report": str(self.report_html) if self.report_html else None,
            "history": str(self.history) if self.history else None,
            "tiers": {k: self.tiers.get(k, 0) for k in ("ready", "check", "needs_work", "approved")},
            "plan": self.plan,
        }


# --------------------------------------------------------------------------- what an ingest reports


@dataclass
class IngestReport:
    company: str
    files: list[FileOutcome]
    seconds: float
    timings: dict[str, float] = field(default_factory=dict)  # parse / embed / store seconds
    skipped_files: list[SkippedFile] = field(default_factory=list)
    # Model usage of `ingest --contextualize` (stage "contextualize"); empty without it.
    usage: dict[str, StageUsage] = field(default_factory=dict)

    def count(self, *statuses: str) -> int:
        return sum(1 for f in self.files if f.status in statuses)

    def to_json(self) -> dict:
        ok = [f for f in self.files if f.status != "failed"]
        return {
            "company": self.company,
            "documents": len(ok),
            "new_documents": self.count("new", "replaced"),
            "skipped_documents": self.count("skipped"),
            "failed_documents": self.count("failed"),
            "pages": sum(f.pages for f in ok),
            "chunks": sum(f.chunks for f in ok),
            "ocr_pages": sum(f.ocr_pages for f in ok),
            "seconds": round(self.seconds, 2),
            "skipped_files": len(self.skipped_files),
            "warnings": [{"file": f.path, "why": why} for f in ok for why in f.warnings],
            "failed": [{"file": f.path, "why": f.error} for f in self.files if f.status == "failed"],
            **({"llm": {stage: u.to_json() for stage, u in self.usage.items()}} if self.usage else {}),
        }
