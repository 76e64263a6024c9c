"""Multi-query retrieval: the model rewrites a question into a few search queries (one per fact it
needs, in the words a report uses), and each is searched alongside the question itself; retrieval fuses
all the lists by reciprocal rank fusion (search/retrieval.retrieve's `extra_queries`).

A question such as "What was the capital expenditure to revenue ratio in FY2022?" needs two line items
that sit in two statements; one query embeds as neither. The queries only steer the search: they are
never shown as evidence. Render `multiquery.j2`, call (cached, costed as stage "multiquery"), parse."""

from __future__ import annotations

import json
import re

from autofill.providers.base import Call
from autofill.delimit import untrusted
from autofill.providers.base import ChatMessage
from autofill.records import QuestionRow
from autofill.replies import LIST_INTRO, unfence
from autofill.settings import Settings
from autofill.templating import render

STAGE = "multiquery"
QUERIES = 3  # asked for; a reply may give fewer (at least one is useful) and never more are used
MAX_QUERY_CHARS = 300  # a "query" longer than this is a paragraph, not a search

# "1.", "2)", "-", "*", "•", "Query 2:", "Q1 -" at the start of a line.
_BULLET = re.compile(r"^\s*(?:[-*•]+|\(?\d{1,2}[.):]|(?:search\s+)?(?:query|q)\s*\d*\s*[:.)-])\s*", re.IGNORECASE)


def _clean(line: str) -> str:
    line = line.replace("**", "").strip()
    previous = None
    while previous != line:  # "1. - Query: ..." strips in turns
        previous = line
        line = _BULLET.sub("", line, count=1).strip()
    if len(line) >= 2 and line[0] == line[-1] and line[0] in "\"'`":
        line = line[1:-1].strip()
    if line.startswith("“") and line.endswith("”"):
        line = line[1:-1].strip()
    return " ".join(line.split())


def parse_queries(text: str, question: str = "", limit: int = QUERIES) -> list[str]:
    """The search queries in a reply, at most `limit`, in reply order: one per line (bullets, numbers,
    quotes, code fences and an introducing line dropped) or a JSON list of strings (or {"queries": [...]}).
    Duplicates (ignoring case and spacing) and a repetition of `question` itself are dropped, as are
    lines too long to be a query. Returns [] for an empty or unusable reply: retrieval then uses the
    question alone."""
    text = unfence(text)
    candidates: list[str] = []
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        data = next((v for v in data.values() if isinstance(v, list)), None)
    if isinstance(data, list):
        candidates = [str(x) for x in data if isinstance(x, (str, int, float))]
    else:
        candidates = [line for line in text.splitlines() if not LIST_INTRO.match(line)]
    seen = {" ".join(question.lower().split())} if question.strip() else set()
    out: list[str] = []
    for raw in candidates:
        query = _clean(raw)
        key = query.lower()
        if not query or len(query) > MAX_QUERY_CHARS or key in seen:
            continue
        seen.add(key)
        out.append(query)
        if len(out) >= limit:
            break
    return out


def multiquery_messages(settings: Settings, company: str, row: QuestionRow) -> list[ChatMessage]:
    prompt = render(settings.templates_dir, "multiquery", company=company, question=untrusted(row.question),
                    form_of_answer=untrusted(row.form_of_answer), explanation=untrusted(row.explanation),
                    count=QUERIES)
    return [ChatMessage("user", prompt)]


def search_queries(settings: Settings, call: Call, company: str, row: QuestionRow) -> list[str]:
    """The extra search queries for `row` (at most QUERIES; [] when the reply had none)."""
    return parse_queries(call(multiquery_messages(settings, company, row), False).text, row.question)
