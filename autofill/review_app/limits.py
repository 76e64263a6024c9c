"""What the review server accepts in a request body: at most MAX_BODY_BYTES (refused from its
Content-Length before anything is read, and counted as it streams in when it has none), JSON of the
shape each route expects (a wrong shape is a 400 with one line, never a 500), and cell text no longer
than an Excel cell holds (refused with the limit named, never cut on its way into the workbook).

Pure checks and one reader (`read_body`) the routes of app.py call first; the field lists are the
routes' contracts (what the page's script sends)."""

from __future__ import annotations

import json

from autofill.review_app.apply import FIELD_LABELS
from autofill.review.sidecar import FIELDS
from autofill.workbook.safety import EXCEL_CELL_LIMIT, xml_safe

MAX_BODY_BYTES = 1024 * 1024  # 5 cells of 32,767 characters, 4 UTF-8 bytes each, fit in 655 KB
MAX_NAME_CHARS = 1000  # a row key, version, reviewer name or action (messages repeat them)
MAX_CONFIRM = 100  # failed checks a reviewer confirms by name in one save
_TEXT = (str,)
_WB = (str, int)
# Route -> its body's keys and their types; keys not listed are ignored, absent ones read as empty
# (but `key`: the row a request is about is never guessed).
SHAPES: dict[str, dict[str, tuple[type, ...]]] = {
    "decide": {"wb": _WB, "key": _TEXT, "base": _TEXT, "reviewer": _TEXT, "action": _TEXT, "values": (dict,),
               "confirm": (list,)},
    "undo": {"wb": _WB, "key": _TEXT, "base": _TEXT, "reviewer": _TEXT},
    "reanswer": {"wb": _WB, "key": _TEXT, "base": _TEXT, "reviewer": _TEXT},
    "library": {"wb": _WB, "key": _TEXT},
}
REQUIRED = ("key",)
_TYPE_WORDS = {str: "text", int: "a whole number", dict: "an object of cell texts", list: "a list of texts"}


class BadRequest(Exception):
    """A body the server will not act on; `status` 400 (malformed) or 413 (too large)."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def too_large() -> BadRequest:
    return BadRequest(f"the request is larger than the review server takes ({MAX_BODY_BYTES // 1024} KiB); "
                      "nothing was saved", status=413)


def check_length(header: str | None) -> None:
    """Refuse from the Content-Length header alone, before the body is read."""
    if header is None:
        return
    try:
        length = int(header)
    except ValueError:
        raise BadRequest("the Content-Length header is not a number") from None
    if length > MAX_BODY_BYTES:
        raise too_large()


async def read_body(request, route: str) -> dict:
    """The body of a POST to `route`, read up to MAX_BODY_BYTES and checked against SHAPES[route]."""
    check_length(request.headers.get("content-length"))
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise too_large()
        chunks.append(chunk)
    return parse_body(b"".join(chunks), route)


def parse_body(raw: bytes, route: str) -> dict:
    try:
        body = json.loads(raw)
    except (ValueError, RecursionError):  # not JSON, not UTF-8, nested beyond Python's stack
        raise BadRequest("the request body is not valid JSON") from None
    return check_shape(body, route)


def check_shape(body, route: str) -> dict:
    """`body` when it is an object whose known keys have the route's types and whose cell texts fit in
    a cell; BadRequest naming the first thing wrong otherwise."""
    if not isinstance(body, dict):
        raise BadRequest(f"the request body must be a JSON object, not {_json_kind(body)}")
    for name, types in SHAPES[route].items():
        value = body.get(name)
        if value is None:
            if name in REQUIRED:
                raise BadRequest(f"{name!r} is missing: the request names no question row")
            continue
        if isinstance(value, bool) or not isinstance(value, types):
            raise BadRequest(f"{name!r} must be {' or '.join(_TYPE_WORDS[t] for t in types)}, not {_json_kind(value)}")
        if isinstance(value, str):
            check_name(name, value)
    check_confirm(body.get("confirm") or [])
    check_values(body.get("values") or {})
    return body


def check_name(name: str, value: str) -> None:
    """A row key, version, reviewer name, action or confirmed check: within MAX_NAME_CHARS (a confirmed
    check: a cell) and free of characters a workbook cannot store (they would reach the Review log)."""
    limit = EXCEL_CELL_LIMIT if name == "confirm" else MAX_NAME_CHARS
    if len(value) > limit:
        raise BadRequest(f"{name!r} is longer than {limit:,} characters; nothing was saved")
    bad = xml_safe(value)[1]
    if bad:
        raise BadRequest(f"{name!r} holds a character a workbook cannot store (U+{bad[0]:04X}); nothing was saved")


def check_confirm(confirm: list) -> None:
    """The failed checks a reviewer confirms by name: a list of texts."""
    if len(confirm) > MAX_CONFIRM:
        raise BadRequest(f"'confirm' names more than {MAX_CONFIRM} checks; nothing was saved")
    for item in confirm:
        if not isinstance(item, str):
            raise BadRequest(f"'confirm' must be a list of texts, not a list holding {_json_kind(item)}")
        check_name("confirm", item)


def check_values(values: dict) -> None:
    """The cells of a decision: known fields, text (or null), each within Excel's cell limit."""
    for name, value in values.items():
        if name not in FIELDS:
            raise BadRequest(f"unknown cell {name!r} (known: {', '.join(FIELDS)})")
        if value is None:
            continue
        if not isinstance(value, str):
            raise BadRequest(f"the {FIELD_LABELS[name]} must be text, not {_json_kind(value)}")
        if len(value) > EXCEL_CELL_LIMIT:
            raise BadRequest(f"the {FIELD_LABELS[name]} is {len(value):,} characters; an Excel cell holds at most "
                             f"{EXCEL_CELL_LIMIT:,}: shorten it (nothing was saved)")


def _json_kind(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    return {dict: "an object", list: "a list", str: "text", int: "a number", float: "a fractional number"}.get(type(value),
                                                                                                type(value).__name__)
