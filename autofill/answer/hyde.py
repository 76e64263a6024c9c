"""HyDE: ask the model for a short hypothetical report passage answering the question, and embed
that passage instead of the question. A report-style passage lies closer to real report passages
in embedding space than a question does. The passage is only a query; it is never shown as evidence."""

from __future__ import annotations

import re

from autofill.answer.rerank import Call
from autofill.providers.base import ChatMessage
from autofill.records import QuestionRow
from autofill.settings import Settings
from autofill.templating import render

_FENCE_BLOCK = re.compile(r"```[a-zA-Z]*\s*\n?(.*?)```", re.DOTALL)
# Chatty openings models put before the passage despite being asked not to.
_PREAMBLE = re.compile(
    r"^\s*(?:sure|certainly|of course|okay|ok)?[,.!]?\s*"
    r"(?:here(?:'s| is| are)\b[^\n:]*:|below is\b[^\n:]*:|hypothetical passage:|passage:)\s*",
    re.IGNORECASE,
)
# A label line such as "**Hypothetical report excerpt:**" or "# Passage": a colon at its end or
# Markdown heading/bold marks, so an ordinary first sentence mentioning "report" is kept.
_LABEL_LINE = re.compile(
    r"^\s*(?:#+\s*[^\n]{0,80}|\*\*[^\n]{0,80}\*\*:?|[^\n]{0,60}(?:passage|excerpt|report)[^\n]{0,30}:)\s*$",
    re.IGNORECASE,
)


def parse_hyde(text: str) -> str:
    """The passage from a HyDE reply, without code fences, "Here is ..." preambles, a heading-like
    label line or surrounding quotes. Returns "" for an empty reply."""
    text = (text or "").strip()
    fenced = _FENCE_BLOCK.search(text)
    if fenced and fenced.group(1).strip():
        text = fenced.group(1).strip()
    text = _PREAMBLE.sub("", text, count=1).strip()
    first_line, _, rest = text.partition("\n")
    if rest.strip() and len(first_line) <= 90 and _LABEL_LINE.match(first_line):
        text = rest.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'“”":
        text = text[1:-1].strip()
    if text.startswith("“") and text.endswith("”"):
        text = text[1:-1].strip()
    return text


def hyde_messages(settings: Settings, company: str, row: QuestionRow) -> list[ChatMessage]:
    prompt = render(settings.templates_dir, "hyde", company=company, question=row.question,
                    form_of_answer=row.form_of_answer, explanation=row.explanation, hyde_hint=row.hyde_hint)
    return [ChatMessage("system", render(settings.templates_dir, "hyde_system")), ChatMessage("user", prompt)]


def hypothetical_passage(settings: Settings, call: Call, company: str, row: QuestionRow) -> str:
    """The HyDE passage for `row`; "" when the model returned nothing usable (retrieval then falls
    back to the question query)."""
    return parse_hyde(call(hyde_messages(settings, company, row), False).text)
