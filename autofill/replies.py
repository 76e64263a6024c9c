"""Reading model replies, at the bottom of the package: the code fences, chatty preambles, label lines,
surrounding quotes and loose JSON that every model step's parser meets (HyDE, multi-query, contextualize,
rerank, answer verification, the eval judge). Pure functions; each step's own parser (search/hyde.py
`parse_hyde`, search/multiquery.py `parse_queries`, ingest/contextualize.py `parse_context`,
answer/rerank.py `parse_ranking`, checks/verdict.py, evaluate/judge.py) keeps only what is its own."""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE_BLOCK = re.compile(r"```[a-zA-Z]*\s*\n?(.*?)```", re.DOTALL)
_FENCE_MARK = re.compile(r"```[a-zA-Z]*")
_JSON_FENCE_MARK = re.compile(r"```(?:json|JSON)?")

# "Sure, here is the passage:" and the like, before a passage (HyDE) or a context line (contextualize).
PASSAGE_PREAMBLE = re.compile(
    r"^\s*(?:sure|certainly|of course|okay|ok)?[,.!]?\s*"
    r"(?:here(?:'s| is| are)\b[^\n:]*:|below is\b[^\n:]*:|hypothetical passage:|passage:)\s*",
    re.IGNORECASE,
)
CONTEXT_PREAMBLE = re.compile(r"^\s*(?:sure|certainly|okay|ok)?[,.!]?\s*(?:here(?:'s| is)\b[^\n:]*:|context:|"
                              r"situating (?:sentence|context):|sentence:)\s*", re.IGNORECASE)
# A line that introduces a list ("Here are the queries:") rather than being an item of it.
LIST_INTRO = re.compile(r"^\s*(?:sure|certainly|okay|ok|here (?:are|is)|below are|the queries)\b.*:\s*$",
                        re.IGNORECASE)
# A label line such as "**Hypothetical report excerpt:**" or "# Passage": a colon at its end or
# Markdown heading/bold marks, so an ordinary first sentence mentioning "report" is kept.
_LABEL_LINE = re.compile(
    r"^\s*(?:#+\s*[^\n]{0,80}|\*\*[^\n]{0,80}\*\*:?|[^\n]{0,60}(?:passage|excerpt|report)[^\n]{0,30}:)\s*$",
    re.IGNORECASE,
)


def unfence(text: str) -> str:
    """The content of the first non-empty ```fenced``` block, else the whole text; stripped."""
    text = (text or "").strip()
    fenced = _FENCE_BLOCK.search(text)
    if fenced and fenced.group(1).strip():
        return fenced.group(1).strip()
    return text


def drop_fence_marks(text: str, json_only: bool = False) -> str:
    """The text with its fence marks (```, ```json) blanked, the content kept in place (`json_only`:
    only bare and json fences, replaced by nothing)."""
    if json_only:
        return _JSON_FENCE_MARK.sub("", text or "")
    return _FENCE_MARK.sub(" ", text or "")


def drop_preamble(text: str, preamble: re.Pattern = PASSAGE_PREAMBLE) -> str:
    """The text without one leading preamble matched by `preamble`; stripped."""
    return preamble.sub("", text, count=1).strip()


def drop_label_line(text: str, max_chars: int = 90) -> str:
    """The text without a heading-like first line ("**Passage:**", "# Excerpt") when more follows."""
    first_line, _, rest = text.partition("\n")
    if rest.strip() and len(first_line) <= max_chars and _LABEL_LINE.match(first_line):
        return rest.strip()
    return text


def unquote(text: str, pairs: tuple[tuple[str, str], ...] = (("\"", "\""), ("'", "'"))) -> str:
    """The text without the first pair of `pairs` that surrounds it whole."""
    for left, right in pairs:
        if len(text) > len(left) + len(right) and text.startswith(left) and text.endswith(right):
            return text[len(left):-len(right)].strip()
    return text


def json_values(text: str) -> list[Any]:
    """Every JSON object or array found in `text`, outermost first: tolerates code fences, prose
    around the JSON, trailing commas and Python-style True/False/None."""
    cleaned = drop_fence_marks(str(text or ""), json_only=True)
    out: list[Any] = []
    i = 0
    while i < len(cleaned):
        if cleaned[i] in "{[":
            end = _matching_close(cleaned, i)
            value = _loads_lenient(cleaned[i:end]) if end else None
            if value is not None:
                out.append(value)
                i = end
                continue
        i += 1
    return out


def _matching_close(text: str, start: int) -> int:
    """Index just past the bracket closing the one at `start` (double-quoted strings skipped), 0 if none."""
    depth, in_string, escaped = 0, False, False
    for i in range(start, len(text)):
        ch = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return i + 1
    return 0


def _loads_lenient(candidate: str) -> Any:
    repaired = re.sub(r",\s*([}\]])", r"\1", candidate)
    for attempt in (candidate, repaired,
                    re.sub(r"\bTrue\b", "true", re.sub(r"\bFalse\b", "false", re.sub(r"\bNone\b", "null", repaired)))):
        try:
            return json.loads(attempt)
        except ValueError:
            continue
    return None
