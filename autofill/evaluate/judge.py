"""LLM-judged answer quality, after RAGAS (Es et al., 2023), when an LLM is configured.

  correctness        0-1 grade of the answer against the gold answer (one judged call).
  faithfulness       the judge splits the answer into claims and marks each as supported or not by
                     the passages the answer cites (all passages given to the answer step when it cites
                     none); score = supported claims / claims. None when the answer makes no claim.
  answer relevancy   as RAGAS: the judge writes n = 3 questions the answer would answer; the score is
                     the mean cosine similarity between the embeddings of those questions and of the
                     real question (the embedder is the company store's own), and 0 when the judge
                     calls the answer noncommittal. None without an embedder.
  context relevancy  as RAGAS's context_relevancy: the passages given to the answer step are split into
                     numbered sentences and the judge lists the relevant ones; score = relevant / all.

Each metric renders a `judge_*.j2` template (workspace templates/ overrides the package defaults) and
parses the reply with a pure, lenient parser; a failed call or an unreadable reply leaves that metric
None with a note, it never stops the evaluation.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Sequence

from autofill.delimit import untrusted
from autofill.errors import AutofillError
from autofill.evaluate.metrics import RetrievedPassage, ordered, sentences
from autofill.providers.base import ChatMessage, ChatModel, Embedder
from autofill.providers.cost import pricing_for, usage_of
from autofill.records import StageUsage
from autofill.replies import json_values  # noqa: F401 - used here and re-exported for tests
from autofill.settings import Settings
from autofill.templating import render

RELEVANCY_QUESTIONS = 3
MAX_CONTEXT_SENTENCES = 120  # keeps the context-relevancy prompt bounded for very long contexts
METRICS = ("correctness", "faithfulness", "answer_relevancy", "context_relevancy")
_TRUE = {"true", "yes", "1", "supported", "y", "1.0"}


@dataclass
class JudgeScores:
    correctness: float | None = None
    faithfulness: float | None = None
    answer_relevancy: float | None = None
    context_relevancy: float | None = None
    usage: StageUsage = field(default_factory=StageUsage)
    notes: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------- pure parsers


def _first_dict(text: str, *keys: str) -> dict | None:
    for value in json_values(text):
        if isinstance(value, dict) and (not keys or any(k in {str(x).lower() for x in value} for k in keys)):
            return {str(k).lower(): v for k, v in value.items()}
    return None


def _to_score(value: Any) -> float | None:
    """0.8, "0.8", "80%", "8/10", "4 out of 5" -> a score clamped to [0, 1]."""
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float)):
        number = float(value)
        if math.isnan(number):
            return None
        return min(1.0, max(0.0, number / 100 if 1 < number <= 100 else number))
    text = str(value or "").strip()
    m = re.match(r"^(-?\d+(?:\.\d+)?)\s*(?:/|out of)\s*(\d+(?:\.\d+)?)", text)
    if m and float(m[2]) > 0:
        return min(1.0, max(0.0, float(m[1]) / float(m[2])))
    m = re.match(r"^(-?\d+(?:\.\d+)?)\s*%", text)
    if m:
        return min(1.0, max(0.0, float(m[1]) / 100))
    m = re.match(r"^-?\d+(?:\.\d+)?$", text)
    return _to_score(float(text)) if m else None


def parse_score(text: str) -> float | None:
    """A 0-1 score from a judge reply: the JSON "score" field, else "score: 0.7" in prose, else a
    lone number; None when there is none."""
    obj = _first_dict(text, "score", "correctness", "rating")
    if obj is not None:
        for key in ("score", "correctness", "rating"):
            if key in obj:
                score = _to_score(obj[key])
                if score is not None:
                    return score
    m = re.search(r"\b(?:score|rating|correctness)\b[\"'*\s]*[:=]?\s*\**\s*(-?\d+(?:\.\d+)?\s*(?:%|/\s*\d+|out of \d+)?)",
                  str(text or ""), re.IGNORECASE)
    if m:
        return _to_score(m[1])
    numbers = re.findall(r"(?<![\w.])(\d+(?:\.\d+)?\s*(?:%|/\s*\d+)?)(?![\w.])", str(text or ""))
    return _to_score(numbers[-1]) if len(numbers) == 1 else None


def _truthy(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in _TRUE


def parse_claims(text: str) -> list[tuple[str, bool]] | None:
    """Claims and verdicts from a faithfulness reply: {"claims": [{"claim", "supported"}]}, a bare
    list of such objects, or lines such as "1. BHP ... - supported: yes". None when unreadable."""
    for value in json_values(text):
        items = value.get("claims", value.get("statements")) if isinstance(value, dict) else value
        if isinstance(items, list) and all(isinstance(i, dict) for i in items):
            out = []
            for item in items:
                lowered = {str(k).lower(): v for k, v in item.items()}
                claim = str(lowered.get("claim", lowered.get("statement", ""))).strip()
                verdict = next((lowered[k] for k in ("supported", "verdict", "faithful", "supports") if k in lowered), False)
                out.append((claim, _truthy(verdict)))
            return out
    out = []
    for line in str(text or "").splitlines():
        m = re.match(r"^\s*(?:[-*•]|\d+[.)])\s*(.+?)\s*[-–:|\[(]+\s*(?:supported\s*[:=]?\s*)?(yes|no|true|false|supported|not supported|unsupported)\W*$",
                     line, re.IGNORECASE)
        if m:
            out.append((m[1].strip(), m[2].lower() in ("yes", "true", "supported")))
    return out or None


def parse_questions(text: str) -> tuple[list[str], bool] | None:
    """Generated questions and the noncommittal flag from an answer-relevancy reply."""
    obj = _first_dict(text, "questions", "question")
    if obj is not None:
        raw = obj.get("questions", obj.get("question", []))
        questions = [str(q).strip() for q in (raw if isinstance(raw, list) else [raw]) if str(q).strip()]
        flag = obj.get("noncommittal", 0)
        return questions, _truthy(flag)
    lines = [re.sub(r"^\s*(?:[-*•]|\d+[.)])\s*", "", line).strip() for line in str(text or "").splitlines()]
    questions = [line for line in lines if line.endswith("?")]
    if not questions:
        return None
    return questions, bool(re.search(r"noncommittal\W*(?:1|true|yes)", str(text), re.IGNORECASE))


def parse_sentence_ids(text: str, n: int) -> list[int] | None:
    """Relevant sentence numbers (1..n, distinct, in the reply's order) from a context-relevancy reply:
    {"relevant": [1, 4]}, a bare list, "[1], [4]" or "1, 4"; "none" gives []. None when unreadable."""
    raw: Any = None
    values = json_values(text)
    for value in values:
        if isinstance(value, dict):
            lowered = {str(k).lower(): v for k, v in value.items()}
            raw = next((lowered[k] for k in ("relevant", "sentences", "relevant_sentences", "ids") if k in lowered), None)
            if raw is not None:
                break
    if raw is None and any(isinstance(v, list) for v in values):
        raw = [x for v in values if isinstance(v, list) for x in v]  # "[1], [4]"
    if raw is None:
        if re.search(r"\bnone\b|\bno relevant\b", str(text or ""), re.IGNORECASE):
            return []
        raw = re.findall(r"\d+", str(text or ""))
        if not raw:
            return None
    if not isinstance(raw, list):
        raw = [raw]
    out: list[int] = []
    for item in raw:
        m = re.search(r"\d+", str(item))
        if m and 1 <= int(m[0]) <= n and int(m[0]) not in out:
            out.append(int(m[0]))
    return out


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(x * x for x in b))
    return sum(x * y for x, y in zip(a, b)) / (na * nb) if na and nb else 0.0


def passage_views(passages: Sequence[RetrievedPassage]) -> list[dict]:
    """Passages as the faithfulness template shows them; label and text through `delimit.untrusted`
    like every other prompt's passages."""
    return [{"number": i, "label": untrusted(f"{p.file} p. {p.pages[0] if p.pages else '?'}"),
             "text": untrusted(p.text)} for i, p in enumerate(passages, start=1)]


def context_sentences(passages: Sequence[RetrievedPassage]) -> list[str]:
    out: list[str] = []
    for p in ordered(passages):
        out.extend(sentences(p.text))
    return out[:MAX_CONTEXT_SENTENCES]


# --------------------------------------------------------------------------- the judge (I/O)


class Judge:
    """Scores answers with `chat` (the judge model) and, for answer relevancy, `embedder`."""

    def __init__(self, settings: Settings, chat: ChatModel, embedder: Embedder | None = None) -> None:
        self.settings = settings
        self.chat = chat
        self.embedder = embedder
        self._usage_of = usage_of
        self._pricing = pricing_for(settings)

    @property
    def model(self) -> str:
        return getattr(self.chat, "model", "")

    def _ask(self, template: str, scores: JudgeScores, **variables: Any) -> str | None:
        # Answers (written by a model that read untrusted passages) and gold answers sit between
        # <answer> / <candidate_answer> / <reference_answer> tags: they must not be able to close them.
        for name in ("answer", "gold_answer"):
            if name in variables:
                variables[name] = untrusted(variables[name])
        messages = [ChatMessage("system", render(self.settings.templates_dir, "judge_system")),
                    ChatMessage("user", render(self.settings.templates_dir, template, **variables))]
        try:
            result = self.chat.complete(messages, temperature=0.0, max_tokens=self.settings.llm.max_tokens,
                                        json_mode=True)
        except AutofillError as exc:
            scores.notes.append(f"{template}: {exc}")
            return None
        scores.usage.add(self._usage_of(result, self._pricing))
        return result.text

    def score(self, question: str, answer: str, gold_answer: str, passages: Sequence[RetrievedPassage]) -> JudgeScores:
        scores = JudgeScores()
        context = ordered(passages)
        if not answer.strip():
            scores.notes.append("no answer to judge")
        else:
            if gold_answer.strip():
                reply = self._ask("judge_correctness", scores, question=question, answer=answer, gold_answer=gold_answer)
                scores.correctness = parse_score(reply) if reply is not None else None
            cited = [p for p in context if p.cited] or context
            if cited:
                reply = self._ask("judge_faithfulness", scores, question=question, answer=answer,
                                  passages=passage_views(cited))
                claims = parse_claims(reply) if reply is not None else None
                if claims:
                    scores.faithfulness = sum(1 for _, ok in claims if ok) / len(claims)
            scores.answer_relevancy = self._answer_relevancy(question, answer, scores)
        units = context_sentences(context)
        if units:
            reply = self._ask("judge_context_relevancy", scores, question=question,
                              sentences=[{"number": i, "text": untrusted(s)} for i, s in enumerate(units, start=1)])
            ids = parse_sentence_ids(reply, len(units)) if reply is not None else None
            scores.context_relevancy = len(ids) / len(units) if ids is not None else None
        return scores

    def _answer_relevancy(self, question: str, answer: str, scores: JudgeScores) -> float | None:
        if self.embedder is None:
            return None
        reply = self._ask("judge_answer_relevancy", scores, answer=answer, n=RELEVANCY_QUESTIONS)
        parsed = parse_questions(reply) if reply is not None else None
        if not parsed or not parsed[0]:
            return None
        generated, noncommittal = parsed
        if noncommittal:
            return 0.0
        target = self.embedder.embed_query(question)
        vectors = self.embedder.embed_documents(generated)
        return sum(cosine(target, v) for v in vectors) / len(vectors)
