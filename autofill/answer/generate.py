"""The chain-of-thought answer: render the prompt with the question and the labelled passages,
call the model in JSON mode, and parse its reply into an Answer whose citations are checked
against the passages actually given. Reviewers fact-check every answer against its cited pages,
so a citation that points outside the context is dropped and the row's Status says so."""

from __future__ import annotations

import ast
import json
import re
from dataclasses import replace
from typing import Any

from autofill.answer.rerank import Call, passage_views
from autofill.language import prompt_languages
from autofill.providers.base import ChatMessage
from autofill.records import Answer, Citation, Passage, QuestionRow
from autofill.replies import drop_fence_marks
from autofill.settings import Settings
from autofill.states import NO_VALID_CITATION, Outcome, status_label
from autofill.templating import render
from autofill.quotes import holding_figures
from autofill.review.highlights import strip_citations

UNPARSED = status_label(Outcome.UNPARSED)
ANSWERED = status_label(Outcome.ANSWERED)
CONFIDENCE = ("high", "medium", "low")
NOT_DISCLOSED = "not disclosed"
# Key spellings models actually use (compared case-insensitively, "-"/" " as "_"), preferred first:
# the seed study's own format is {"Thought": ..., "Answer": ...}.
ANSWER_KEYS = ("answer", "final_answer", "finalanswer")
REASONING_KEYS = ("reasoning", "thought", "thoughts", "rationale", "analysis", "explanation")
CITATION_KEYS = ("citations", "citation", "sources", "source", "references", "evidence")

_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_INDEX_CITATION = re.compile(r"^\s*(?:\[\s*(\d+)\s*\]|(?:passage\s*)?#?\s*(\d+))\s*$", re.IGNORECASE)
_PAGE = re.compile(r"\bp(?:age|p)?\.?\s*(\d+)", re.IGNORECASE)


# --------------------------------------------------------------------------- JSON extraction


def _loads_lenient(candidate: str) -> Any:
    """json.loads, then with trailing commas removed, then as a Python literal (single quotes,
    True/False/None); None when nothing works."""
    for text in (candidate, _TRAILING_COMMA.sub(r"\1", candidate)):
        try:
            return json.loads(text)
        except ValueError:
            pass
    try:
        pythonish = re.sub(r"\btrue\b", "True", re.sub(r"\bfalse\b", "False", re.sub(r"\bnull\b", "None", candidate)))
        return ast.literal_eval(_TRAILING_COMMA.sub(r"\1", pythonish))
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None


def _balanced_objects(text: str) -> list[tuple[int, int]]:
    """(start, end) spans of top-level {...} blocks, tracking strings so braces inside them count not."""
    spans, depth, start, quote, escaped = [], 0, -1, "", False
    for i, ch in enumerate(text):
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = ""
            continue
        if ch in "\"'" and depth > 0:
            # An apostrophe inside a word ("company's") does not open a string.
            if ch == "'" and i > 0 and text[i - 1].isalnum():
                continue
            quote = ch
        elif ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                spans.append((start, i + 1))
    return spans


def _key(name: object) -> str:
    return re.sub(r"[\s-]+", "_", str(name).strip().lower())


def _has_answer(obj: Any) -> bool:
    return isinstance(obj, dict) and any(_key(k) in ANSWER_KEYS for k in obj)


def extract_json_object(text: str) -> tuple[dict | None, str]:
    """The reply's JSON object that has an answer key ("answer", "Answer", "final_answer"; the last
    such object if several), and the text outside it (models sometimes reason before the JSON)."""
    cleaned = drop_fence_marks(text or "", json_only=True)
    found, outside = None, cleaned
    for start, end in _balanced_objects(cleaned):
        obj = _loads_lenient(cleaned[start:end])
        if _has_answer(obj):
            found, outside = obj, (cleaned[:start] + cleaned[end:])
    if found is None:
        # A reply cut off before its closing brace: try closing it.
        start = cleaned.find("{")
        if start >= 0:
            obj = _loads_lenient(cleaned[start:].rstrip().rstrip(",") + "}")
            if _has_answer(obj):
                found, outside = obj, cleaned[:start]
    return found, outside.strip()


# --------------------------------------------------------------------------- citations


def _passage_for_page(passages: list[Passage], file_part: str, page: int) -> int | None:
    """1-based index of the first passage covering `page` of a file whose name matches `file_part`
    (empty: any file)."""
    want = file_part.strip().lower().removesuffix(".pdf")
    for i, p in enumerate(passages, start=1):
        name = p.file_name.lower().removesuffix(".pdf")
        if want and want not in name and name not in want:
            continue
        if p.page_start <= page <= max(p.page_start, p.page_end):
            return i
    return None


def resolve_citation(raw: Any, passages: list[Passage]) -> tuple[int, Citation] | str:
    """A citation as the model wrote it (3, "[3]", "3", "FILE p. 12", {"file":..,"page":..}) to
    (passage index, Citation), or a description of why it was dropped."""
    if isinstance(raw, bool):
        return f"citation {raw!r} is not a passage"
    if isinstance(raw, float) and raw.is_integer():
        raw = int(raw)
    if isinstance(raw, dict):
        page = raw.get("page")
        text = f"{raw.get('file') or raw.get('file_name') or ''} p. {page}" if page is not None else str(
            raw.get("passage", raw.get("id", "")))
        return resolve_citation(text, passages)
    if isinstance(raw, int):
        if 1 <= raw <= len(passages):
            p = passages[raw - 1]
            return raw, p.citation()
        return f"citation [{raw}] is not a passage in the evidence"
    text = str(raw).strip()
    m = _INDEX_CITATION.match(text)
    if m:
        return resolve_citation(int(m.group(1) or m.group(2)), passages)
    page_match = _PAGE.search(text)
    if page_match:
        page = int(page_match.group(1))
        index = _passage_for_page(passages, text[:page_match.start()].strip(" ,;:-"), page)
        if index is not None:
            return index, passages[index - 1].citation(page)
        return f"citation {text!r} is not a page in the evidence"
    return f"citation {text!r} is not a passage in the evidence"


def _citation_list(value: Any) -> list[Any]:
    if value is None or value == "":
        return []
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, str):
        # "[1], [3]" or "1, 3" or "FILE p. 3; FILE p. 4"
        parts = re.split(r"[;,]|\]\s*\[", value)
        return [p.strip(" []") for p in parts if p.strip(" []")]
    return [value]


# --------------------------------------------------------------------------- the answer


def _allowed_prefix(answer: str, allowed: list[str]) -> str | None:
    """The allowed value the answer starts with (longest match, case-insensitive), if any."""
    low = answer.strip().lower()
    for value in sorted(allowed, key=len, reverse=True):
        v = value.strip().lower()
        if v and low.startswith(v) and (len(low) == len(v) or not low[len(v)].isalnum()):
            return value
    return None


def _field(obj: dict, names: tuple[str, ...]) -> Any:
    """The value of the first of `names` present (case-insensitive) with a non-empty value."""
    keyed = {_key(k): v for k, v in obj.items()}
    for name in names:
        value = keyed.get(name)
        if value not in (None, "", [], {}):
            return value
    return next((keyed[n] for n in names if n in keyed), None)


def _text_of(value: Any) -> str:
    if isinstance(value, list):
        return "\n".join(_text_of(v) for v in value if v not in (None, ""))
    if isinstance(value, dict):
        return "; ".join(f"{k}: {_text_of(v)}" for k, v in value.items())
    return "" if value is None else str(value).strip()


def parse_answer(text: str, passages: list[Passage], allowed_values: list[str] | None = None) -> Answer:
    """Parse the model's reply. `passages` are the context in the order the prompt numbered them.
    Never raises and never loses the reply: an unparseable reply becomes an Answer with an empty
    answer, the raw text as reasoning and status "Unparsed model output"."""
    obj, outside = extract_json_object(text)
    answer_value = _field(obj, ANSWER_KEYS) if obj is not None else None
    if isinstance(answer_value, dict):
        answer_value = None  # {"answer": {...}}: not an answer a questionnaire cell can hold
    answer = (", ".join(map(str, answer_value)) if isinstance(answer_value, list)
              else "" if answer_value is None else str(answer_value)).strip()
    if obj is None or not answer:
        # No reply, no JSON, or an empty answer: nothing a reviewer could take for an answer.
        return Answer(answer="", reasoning=(text or "").strip(), status=UNPARSED, raw=text or "")
    reasoning = _text_of(_field(obj, REASONING_KEYS)) or outside
    confidence = str(_field(obj, ("confidence",)) or "").strip().lower()
    flags: list[str] = []
    if confidence not in CONFIDENCE:
        confidence = ""

    citations: list[Citation] = []
    indexes: list[int] = []
    dropped = 0
    for raw in _citation_list(_field(obj, CITATION_KEYS)):
        resolved = resolve_citation(raw, passages)
        if isinstance(resolved, str):
            dropped += 1
            flags.append(f"dropped {resolved}")
            continue
        index, citation = resolved
        if index not in indexes:
            indexes.append(index)
        if citation not in citations:
            citations.append(citation)

    # Only the allowed value's exact spelling is fixed here ("yes" -> "Yes"); whether an answer fits
    # the drop-down, and what happens when it does not, is the workbook writer's call.
    value = _allowed_prefix(answer, allowed_values or [])
    if value is not None and not answer.startswith(value):
        answer = value + answer[len(value):]

    status = ANSWERED
    if dropped:
        status += f"; dropped {dropped} citation{'s' if dropped > 1 else ''} not in the evidence"
    if not citations and not answer.lower().startswith(NOT_DISCLOSED):
        # Reviewers check every answer against its pages: one without any is flagged and counted.
        flags.append(NO_VALID_CITATION)
        status += f"; {NO_VALID_CITATION}"
    return Answer(answer=answer, reasoning=reasoning, citations=citations, cited_passages=indexes,
                  confidence=confidence, status=status, raw=text or "", flags=flags)


def cite_figure_page(answer: Answer, context: list[Passage], locate=None) -> Answer:
    """The passage stating the answer's figure cited first, when the model cited only passages that do not
    state it (a page naming the topic) and another passage of the context does (issue 47). Never a page
    without the figure: `locate(passage, text)` picks, in a passage running over a page break, the page
    holding the figure's words. Indexes refer to `context`."""

    if not answer.answer or not answer.citations:
        return answer
    index = holding_figures(strip_citations(answer.answer), [p.text for p in context], answer.cited_passages)
    if index is None:
        return answer
    passage = context[index - 1]
    page = locate(passage, answer.answer) if locate is not None else passage.page_start
    citation = passage.citation(page)
    return replace(answer, citations=[citation] + [c for c in answer.citations if c != citation],
                   cited_passages=[index] + [i for i in answer.cited_passages if i != index])


def answer_messages(settings: Settings, company: str, row: QuestionRow, context: list[Passage],
                    report_language: str = "") -> list[ChatMessage]:
    """`report_language`: the store's; with the row's (the questionnaire's) it decides whether the prompt
    names the answer's language (language.prompt_languages)."""
    _, language = prompt_languages(row.language, report_language)
    # A row may name its own prompt (a form's datapoint: forms/answer.DatapointRow, "form_answer"); the
    # template gets the row itself besides the usual variables.
    template = getattr(row, "answer_template", "") or "answer"
    prompt = render(settings.templates_dir, template, row=row, company=company, question=row.question,
                    form_of_answer=row.form_of_answer, explanation=row.explanation,
                    allowed_values=list(row.allowed_values), reviewer_guidance=row.reviewer_comment,
                    approved_answer=row.approved_answer, passages=passage_views(context),
                    answer_language=language)
    return [ChatMessage("system", render(settings.templates_dir, "answer_system")), ChatMessage("user", prompt)]


def generate_answer(settings: Settings, call: Call, company: str, row: QuestionRow, context: list[Passage],
                    report_language: str = "") -> Answer:
    """Ask for the answer over `context` (prompt order) and parse it; citation indexes refer to `context`."""
    result = call(answer_messages(settings, company, row, context, report_language), True)
    return parse_answer(result.text, context, row.allowed_values)
