"""What a batch reports: each company's outcome (its status and its run's counts, copied by name from
the RunReport so `batch` says what `run` says) and the portfolio's report (totals, `--json`, the summary,
the exit code). portfolio/runner.py fills them; the overview workbook, the index page and the Ray engine
read them."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autofill.portfolio.estimate import PortfolioEstimate
from autofill.summaries import row_counts

DONE, UP_TO_DATE, FAILED, PENDING = "done", "up to date", "failed", "pending"
# Ran to the end, but some rows failed or the model's reply could not be read: `run` exits 1 for such a
# run, and so does the batch; the next batch answers those rows again.
INCOMPLETE = "incomplete"

# A company's row counts, copied by name from its run's RunReport (records.py): CompanyOutcome field ->
# RunReport attribute. They are never counted again here, so `batch` says what `run` says.
RUN_COUNTS = {"rows": "rows", "answered": "answered", "drafted": "drafted", "unparsed": "unparsed",
              "failed_rows": "failed", "not_written": "not_written", "pending_rows": "pending", "skipped": "skipped",
              "reused": "reused", "approved": "approved", "edited": "edited", "waiting": "waiting",
              "evidence_only": "evidence_only"}

# A form's datapoints by Decision value -> the CompanyOutcome count that carries them: a value whose checks
# failed waits in the Evidence sheet, answered but not written; a total the form computes is kept as it is.
FORM_COUNTS = {"written": "answered", "not disclosed": "answered", "draft": "drafted", "failed": "failed_rows",
               "waiting for approval": "not_written", "form computes it": "skipped", "approved": "approved",
               "kept: edited by hand": "edited", "kept: earlier run": "reused",
               "pending: cost cap reached": "pending_rows", "reused from the answer library": "reused"}


def form_outcome_counts(counts: dict[str, int], datapoints: int, evidence_only: bool) -> dict[str, Any]:
    """CompanyOutcome fields for a form run's counts (forms.run.FormReport.counts)."""
    out: dict[str, Any] = {"rows": datapoints, "evidence_only": evidence_only, "form_counts": dict(counts)}
    for decision, n in counts.items():
        name = FORM_COUNTS.get(decision)
        if name:
            out[name] = out.get(name, 0) + n
    return out


@dataclass
class CompanyOutcome:
    company: str
    status: str  # DONE, INCOMPLETE, UP_TO_DATE, FAILED (see error), PENDING (cost cap reached before it started)
    error: str = ""
    output: str = ""
    report: str = ""
    year: str = ""
    questionnaire: str = ""
    periods: str = ""  # reporting periods of its documents, where the store records them
    documents: int = 0
    new_documents: int = 0
    # Its run's counts (RUN_COUNTS; an up-to-date company: those of the run that finished it).
    rows: int = 0  # question rows in the questionnaire
    answered: int = 0
    drafted: int = 0
    unparsed: int = 0  # the model replied, but the reply could not be read
    failed_rows: int = 0
    not_written: int = 0  # answered, but the Answer cell cannot hold it (see its Status)
    pending_rows: int = 0
    skipped: int = 0  # kept as they were (of them: approved, edited by hand, waiting for a model)
    reused: int = 0  # approved library answers reused without a model call (not in answered)
    approved: int = 0
    edited: int = 0
    waiting: int = 0
    evidence_only: bool = False  # no model configured: rows are drafts
    cost_usd: float = 0.0  # spent by this batch (an up-to-date company: nothing)
    seconds: float = 0.0
    # What the run that last worked on its workbook cost and took (this one, or for an up-to-date company
    # the one that finished it): the overview shows these, not an up-to-date company's zeros.
    last_cost_usd: float = 0.0
    last_seconds: float = 0.0
    stages: dict[str, Any] = field(default_factory=dict)  # this run's model usage by stage (records.stages_json)
    cost_unknown: str = ""  # why its cost is unknown (calls to a model or endpoint with no price); "" when known
    # A form (issue 45): its datapoints by how they ended, in `run`'s words (forms.answer.Decision values);
    # the row counts above carry them too (FORM_COUNTS), so totals add up across forms and questionnaires.
    form_counts: dict[str, int] = field(default_factory=dict)

    # RunReport's names, so summaries.row_counts words a company's line as `run` words its summary.
    @property
    def failed(self) -> int:
        return self.failed_rows

    @property
    def pending(self) -> int:
        return self.pending_rows

    @property
    def ok(self) -> bool:
        """As RunReport.ok: no row failed and none was unparsed (a failed company is not ok either)."""
        return self.status != FAILED and not (self.failed_rows or self.unparsed)

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def counts(self) -> str:
        """Its rows in words, the same on stderr as it finishes and in the summary on stdout, and the same
        words and numbers as `autofill run` (summaries.row_counts): a draft is never called an answer."""
        if self.form_counts:  # as `autofill run` words a form: "7 datapoints: 4 written, 1 waiting for approval"
            parts = ", ".join(f"{n} {k}" for k, n in self.form_counts.items() if n)
            return f"{self.rows} datapoints: {parts or 'none'}"
        return row_counts(self)

    def cost_text(self) -> str:
        return "cost unknown" if self.cost_unknown else f"${self.cost_usd:.4f}"


@dataclass
class PortfolioReport:
    manifest: Path
    outcomes: list[CompanyOutcome]
    estimate: PortfolioEstimate
    seconds: float
    workbook: Path | None = None
    index: Path | None = None
    cap_reached: bool = False
    extra: dict[str, Any] = field(default_factory=dict)
    engine: str = "local"  # portfolio.engine that did the work

    def total(self, name: str) -> Any:
        return sum(getattr(o, name) for o in self.outcomes)

    def totals(self) -> CompanyOutcome:
        """Every company's row counts added up, under the names summaries.row_counts reads."""
        sums = {name: self.total(name) for name in RUN_COUNTS if name != "evidence_only"}
        ran = [o for o in self.outcomes if o.status != FAILED]
        return CompanyOutcome(company="", status=DONE, evidence_only=bool(ran) and all(o.evidence_only for o in ran),
                              **sums)

    def to_json(self) -> dict[str, Any]:
        return {
            "companies": len(self.outcomes),
            # Succeeded: every row ended well, as `run` exits 0; incomplete: rows failed or unparsed.
            "succeeded": sum(1 for o in self.outcomes if o.ok),
            "incomplete": sum(1 for o in self.outcomes if o.status != FAILED and not o.ok),
            "failed": sum(1 for o in self.outcomes if o.status == FAILED),
            "new_documents": self.total("new_documents"),
            "rows": self.total("rows"),
            "answered": self.total("answered"),
            "drafted": self.total("drafted"),
            "unparsed_rows": self.total("unparsed"),
            "failed_rows": self.total("failed_rows"),
            "not_written_rows": self.total("not_written"),
            "pending_rows": self.total("pending_rows"),
            "skipped_rows": self.total("skipped"),
            "reused_rows": self.total("reused"),
            "cost_usd": None if self.cost_unknown else round(self.total("cost_usd"), 6),
            "estimated_cost_usd": None if self.estimate.cost_unknown else round(self.estimate.total("cost_usd"), 6),
            "cost_unknown_reason": self.cost_unknown or self.estimate.cost_unknown or None,
            "portfolio": str(self.workbook) if self.workbook else None,
            "outputs": {o.company: o.output or None for o in self.outcomes},
            # Model usage by stage per company run now (an up-to-date company spent nothing: {}).
            "stages": {o.company: o.stages for o in self.outcomes if o.stages},
            "seconds": round(self.seconds, 2),
            "engine": self.engine,
        }

    @property
    def ok(self) -> bool:
        """No company failed and no row failed or was unparsed: the batch exits 0 (as `run` does)."""
        return all(o.ok for o in self.outcomes)

    @property
    def cost_unknown(self) -> str:
        """Why what was spent is unknown ("" when it is known)."""
        return next((o.cost_unknown for o in self.outcomes if o.cost_unknown), "")

    def describe(self) -> str:
        lines = []
        for o in self.outcomes:
            if o.status == FAILED:
                lines.append(f"  FAILED  {o.company}: {o.error}")
                continue
            lines.append(f"  {o.status:<10} {o.company}: {o.counts()}, {o.cost_text()}, {o.seconds:.1f} s")
        d = self.to_json()
        if not self.estimate.model_configured and not d["cost_usd"]:
            money = "no model configured (evidence-only drafts): no model calls, nothing to pay"
        elif d["cost_usd"] is None or d["estimated_cost_usd"] is None:
            money = ("cost unknown" if d["cost_usd"] is None else f"${d['cost_usd']:.4f} spent") + \
                f" ({d['cost_unknown_reason']})"
        else:
            money = f"${d['cost_usd']:.4f} spent of ${d['estimated_cost_usd']:.4f} estimated"
        lines.append(f"{d['companies']} companies ({d['succeeded']} succeeded, {d['incomplete']} incomplete, "
                     f"{d['failed']} failed), {d['rows']} rows: {self.totals().counts()}; {money}, {d['seconds']:.1f} s")
        if d["incomplete"]:  # run's words for its rows that need another run
            lines.append("Re-run the same command to retry the failed and unparsed rows; finished rows are kept.")
        if self.cap_reached:
            lines.append("The cost cap was reached: pending rows were not started. Run the same command again "
                         "(with a higher --max-cost) to answer them; finished rows are kept.")
        if self.workbook:
            lines.append(f"Portfolio: {self.workbook}")
        if self.index:
            lines.append(f"Review index: {self.index}")
        return "\n".join(lines)
