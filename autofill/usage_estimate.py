"""What a run or an ingest is expected to cost, as records (`StageEstimate` per model stage,
`CompanyEstimate` per company), and the usage calibration that refines the figures from what the API billed
(`vectordb/.usage-calibration.json`: characters per token and completion tokens per call, per model and
stage). Below both the ingest's estimate (ingest/context_estimate.py) and the portfolio's
(portfolio/estimate.py), which fill these records."""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autofill.fileio import atomic_write_bytes
from autofill.records import StageUsage
from autofill.settings import Settings

log = logging.getLogger(__name__)

CALIBRATION_FILE = ".usage-calibration.json"
# Past calls weigh at most this much against a new run's, so the calibration follows a changed model.
MAX_WEIGHT_CALLS = 2000
_calibration_lock = threading.Lock()


@dataclass
class StageEstimate:
    calls: int = 0
    prompt_chars: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass
class CompanyEstimate:
    company: str
    model: str  # "" without a model: evidence-only drafts cost nothing
    rows: int = 0  # rows this run would answer
    rows_done: int = 0  # finished by an earlier run (checkpoint) or kept as they are
    up_to_date: bool = False  # a complete earlier run with the same inputs: nothing to do
    documents_to_ingest: int = 0  # new or changed PDF files
    stages: dict[str, StageEstimate] = field(default_factory=dict)
    cost_usd: float = 0.0  # the rows, plus ingest_cost_usd
    priced: bool = True  # False: no price applies to the model at its endpoint (providers/cost.py): cost unknown
    unpriced_reason: str = ""  # why, in one line naming what to set
    error: str = ""  # why this company cannot be estimated (it will fail the same way when run)
    # Contextualising the files to ingest (ingest.contextualize; stage "contextualize"), part of cost_usd
    # and reserved from the budget before the ingest starts.
    ingest_cost_usd: float = 0.0
    # The questionnaire is a form of named input cells (issue 45): `rows` counts its datapoints, each
    # priced as the question row it is answered as (portfolio/form_cost.py).
    form: bool = False

    @property
    def calls(self) -> int:
        return sum(s.calls for s in self.stages.values())

    @property
    def prompt_tokens(self) -> int:
        return sum(s.prompt_tokens for s in self.stages.values())

    @property
    def completion_tokens(self) -> int:
        return sum(s.completion_tokens for s in self.stages.values())

    @property
    def cost_per_row(self) -> float:
        return (self.cost_usd - self.ingest_cost_usd) / self.rows if self.rows else 0.0

    def add_contextualize(self, ctx: Any) -> None:
        """Add an ingest.contextualize.ContextEstimate for the files this company will ingest."""
        self.stages["contextualize"] = StageEstimate(calls=ctx.chunks, prompt_chars=ctx.prompt_chars,
                                                     prompt_tokens=ctx.prompt_tokens,
                                                     completion_tokens=ctx.completion_tokens)
        self.ingest_cost_usd = ctx.cost_usd
        self.cost_usd += ctx.cost_usd
        self.priced = self.priced and ctx.priced
        self.unpriced_reason = self.unpriced_reason or getattr(ctx, "unpriced_reason", "")

    def to_json(self) -> dict[str, Any]:
        return {"company": self.company, "model": self.model or None, "rows": self.rows,
                "rows_done": self.rows_done, "up_to_date": self.up_to_date,
                "documents_to_ingest": self.documents_to_ingest, "calls": self.calls,
                "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "cost_usd": round(self.cost_usd, 6) if self.cost_known else None,
                "ingest_cost_usd": round(self.ingest_cost_usd, 6) if self.cost_known else None,
                "priced": self.priced, "cost_unknown_reason": None if self.cost_known else self.unpriced_reason,
                "evidence_only": not self.model, "error": self.error or None, "form": self.form}

    @property
    def cost_known(self) -> bool:
        """False when model calls would be made at a price nobody set (see providers/cost.py)."""
        return self.priced or not self.model or not self.calls

    def cost_text(self) -> str:
        """"$0.0123", "cost unknown", or, without a model, that there is nothing to pay."""
        if not self.model:
            return "evidence-only drafts (no model configured): no model calls, nothing to pay"
        return f"${self.cost_usd:.4f}" if self.cost_known else "cost unknown"


def calibration_path(settings: Settings) -> Path:
    return settings.vectordb_dir / CALIBRATION_FILE


def load_calibration(settings: Settings) -> dict[str, Any]:
    try:
        data = json.loads(calibration_path(settings).read_text(encoding="utf-8"))
        return data if isinstance(data, dict) and isinstance(data.get("models"), dict) else {"models": {}}
    except (OSError, ValueError):
        return {"models": {}}


def stage_figures(settings: Settings, model: str, stage: str) -> tuple[float, float | None]:
    """(characters per token, completion tokens per call or None for the default) for model/stage."""
    entry = load_calibration(settings)["models"].get(model, {}).get(stage, {})
    ratio = entry.get("chars_per_token") or settings.portfolio.chars_per_token
    return float(ratio), (float(entry["completion_per_call"]) if entry.get("completion_per_call") else None)


def calibrate(settings: Settings, estimate: CompanyEstimate, usage: dict[str, StageUsage]) -> None:
    """Refine the figures of `estimate.model` from the usage a run reported. Per stage: the estimated
    prompt characters of the calls actually made (cached calls cost nothing and are left out) over
    the prompt tokens billed for them, and the completion tokens per call."""
    if not estimate.model:
        return
    with _calibration_lock:
        data = load_calibration(settings)
        model = data["models"].setdefault(estimate.model, {})
        changed = False
        for stage, est in estimate.stages.items():
            u = usage.get(stage)
            if u is None or u.calls <= 0 or u.prompt_tokens <= 0 or est.calls <= 0:
                continue
            chars = est.prompt_chars / est.calls * u.calls
            old = model.get(stage, {})
            w_old = min(float(old.get("calls", 0)), MAX_WEIGHT_CALLS)
            w_new = float(u.calls)
            ratio = chars / u.prompt_tokens
            completion = u.completion_tokens / u.calls
            if w_old and old.get("chars_per_token"):
                ratio = (old["chars_per_token"] * w_old + ratio * w_new) / (w_old + w_new)
                completion = (old.get("completion_per_call", completion) * w_old + completion * w_new) / (w_old + w_new)
            model[stage] = {"chars_per_token": round(ratio, 4), "completion_per_call": round(completion, 2),
                            "calls": int(w_old + w_new)}
            changed = True
        if changed:
            try:
                atomic_write_bytes(calibration_path(settings), json.dumps(data, indent=1).encode())
            except OSError as exc:
                log.warning("could not save the usage calibration (%s); estimates keep the defaults", exc)
