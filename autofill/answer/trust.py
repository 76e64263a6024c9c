"""The trust layer at run time: once a row is finished, its checks (autofill/checks, pure) and its
tier go onto the RowResult; with `verify.llm` one extra model call first asks whether the cited
passages support each claim (render `verify.j2`, call, `checks.verdict.parse_verdict`), cached like
every call and costed under the "verify" stage. A failed verification call never fails the row: it
becomes a soft check ("model verification failed")."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Mapping

from autofill.answer.rerank import passage_views
from autofill.checks.row import CheckContext, assess, cited_passages, outcome_of
from autofill.checks.verdict import parse_verdict
from autofill.providers.base import ChatMessage, ChatModel
from autofill.providers.cost import UsageMeter
from autofill.providers.factory import make_chat
from autofill.records import CheckResult, RowResult, Severity, StageUsage
from autofill.settings import Settings
from autofill.delimit import untrusted
from autofill.states import Outcome
from autofill.templating import render

log = logging.getLogger(__name__)
STAGE = "verify"
TEMPLATES = ("verify", "judge_system")


def verify_messages(settings: Settings, result: RowResult) -> list[ChatMessage]:
    cited, _ = cited_passages(result)
    prompt = render(settings.templates_dir, "verify", question=result.question.question,
                    answer=untrusted(result.answer.answer) if result.answer else "", passages=passage_views(cited))
    return [ChatMessage("system", render(settings.templates_dir, "judge_system")), ChatMessage("user", prompt)]


@dataclass
class Trust:
    settings: Settings
    context: CheckContext
    chat: ChatModel | None = None  # the verifying model; None: no model verification
    meter: UsageMeter | None = None

    def assess(self, result: RowResult, verify: bool = True) -> RowResult:
        """Set `result.checks` and `result.tier`. verify=False re-runs the deterministic checks and
        keeps an earlier model verdict (a row resumed from a checkpoint)."""
        if verify and self.chat is not None and outcome_of(result) is Outcome.ANSWERED and result.answer.answer:
            extra = self._verify(result)
        else:
            extra = [c for c in result.checks if c.name == "verify"]
        result.checks, result.tier = assess(result, self.context, extra)
        return result

    def reassess(self, result: RowResult) -> RowResult:
        """A row resumed from a checkpoint: checks again under this run's settings (reporting year,
        documents), keeping its model verdict, or verifying it now if it has none."""
        return self.assess(result, verify=not any(c.name == "verify" for c in result.checks))

    def _verify(self, result: RowResult) -> list[CheckResult]:
        s = self.settings
        messages = verify_messages(s, result)  # a broken template stops the run (InputError), as elsewhere
        try:
            reply = self.chat.complete(messages, temperature=0.0, max_tokens=s.llm.max_tokens, json_mode=True)
        except Exception as exc:  # noqa: BLE001 - a verification failure must not fail the answered row
            log.warning("model verification of %s failed: %s", result.question.key, exc)
            return [CheckResult("verify", False, Severity.SOFT, f"model verification failed ({type(exc).__name__})")]
        if self.meter is not None:
            result.usage.setdefault(STAGE, StageUsage()).add(self.meter.record(STAGE, reply))
        return parse_verdict(reply.text)


def make_trust(settings: Settings, documents: Mapping[str, Any], chat: ChatModel | None,
               meter: UsageMeter | None) -> Trust:
    """The run's Trust: document periods from the store's records, the reporting year from settings,
    and the verifying model when `verify.llm` is on (`verify.judge_model`, or the answering model)."""
    periods = {name: getattr(rec, "period", "") or "" for name, rec in documents.items()}
    context = CheckContext(periods=periods, reporting_year=settings.run.reporting_year)
    judge = None
    if settings.verify.llm:
        if chat is None:
            log.warning("verify.llm is on but no LLM is configured; answers are checked without a model")
        elif settings.verify.judge_model:
            judge = make_chat(settings, settings.verify.judge_model)
        else:
            judge = chat
    return Trust(settings=settings, context=context, chat=judge, meter=meter)
