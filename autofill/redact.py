"""Making any URL, key, header or line of text safe to show or write: the one place that decides.

Bottom layer (imports nothing of the package). Everything that writes or prints an endpoint goes
through it: `autofill config`, the Run info sheet (hence the review report and pack), error messages,
the response cache's entries and keys, and every log line the CLI prints (`--debug` included, the
SDKs' and httpx's own lines with their URLs and headers).

- `mask_secret(key)`: "****wxyz", the last four characters only of a key long enough not to give it away.
- `safe_url(url)`: the URL without its user and password (`***@host`) and with the values of its query
  parameters masked (`?api-key=***`), except the few that name a version (`api-version=2024-06-01`).
- `url_identity(url)`: what names an endpoint without storing its secrets: the safe URL plus, when the
  URL carried any, a SHA-256 of the whole URL (two URLs differing only in a key stay two endpoints).
- `safe_headers(headers)`: authorization, key, token, cookie and secret headers masked.
- `safe_text(text)`: free text (a log line, an exception's message, a traceback) with URL credentials,
  secret query values and authorization headers masked, and every secret `remember`ed replaced.
- `remember(*values)` / `remember_url(url)`: secrets known to this process (the configured keys, the
  user, password and query values of the configured URLs), so `safe_text` finds them wherever a
  library happens to print them. Values shorter than `MIN_REMEMBERED` are not remembered: replacing
  "pw" everywhere would wreck the text; URL-shaped occurrences are masked whatever their length.
"""

from __future__ import annotations

import base64
import hashlib
import re
import threading
from typing import Any, Iterable, Mapping
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit, urlunsplit

SECRET_TAIL = 4  # characters of a key shown, the way provider dashboards show them
SECRET_MIN_SHOWN = 16  # a shorter secret shows none of its characters
MASK = "***"
MIN_REMEMBERED = 4  # shorter secrets are masked where they sit in a URL, not searched for in free text

# Query parameters whose values name a protocol version, not a secret: shown as they are.
PLAIN_PARAMS = frozenset({"api-version", "api_version", "version", "v"})
# Header (and key=value) names whose values are secrets.
_SECRET_NAME = re.compile(r"auth|key|token|secret|password|passwd|cookie|signature|sig$|credential", re.I)

_lock = threading.Lock()
_remembered: set[str] = set()


def mask_secret(value: Any) -> str:
    """"****wxyz" for a key (its last four characters only when it is long enough not to give it
    away), "" when unset."""
    text = str(value or "")
    if not text:
        return ""
    return "****" + (text[-SECRET_TAIL:] if len(text) >= SECRET_MIN_SHOWN else "")


def _split(url: str):
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises on a malformed port
        return parts
    except ValueError:
        return None


def safe_url(url: Any) -> str:
    """The URL as it may be shown or stored: no user or password, query values masked (but
    `api-version`), no fragment. Text that is not a URL with a host comes back as it is."""
    text = str(url or "")
    parts = _split(text) if "//" in text else None
    if parts is None or not parts.netloc:
        return text
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{MASK}@" + netloc.rpartition("@")[2]
    query = ""
    if parts.query:
        pairs = _pairs(parts.query)
        query = urlencode([(k, v if k.lower() in PLAIN_PARAMS else MASK) for k, v in pairs], safe="*") \
            if pairs else MASK
    return urlunsplit((parts.scheme, netloc, parts.path, query, ""))


def _pairs(query: str) -> list[tuple[str, str]]:
    """name=value pairs of a query; [] when any part is not one (a bare token: all of it is masked)."""
    if not query or any("=" not in part for part in query.split("&")):
        return []
    return parse_qsl(query, keep_blank_values=True)


def url_secrets(url: Any) -> list[str]:
    """The secrets a URL carries: its user, its password and the values of its query parameters (but
    `api-version`), each as written and percent-decoded."""
    text = str(url or "")
    parts = _split(text) if "//" in text else None
    if parts is None:
        return []
    found = []
    userinfo = parts.netloc.rpartition("@")[0] if "@" in parts.netloc else ""
    if userinfo:
        user, _, password = userinfo.partition(":")
        found += [user, password]
        found.append(base64.b64encode(unquote(userinfo).encode()).decode())  # as a Basic auth header
    pairs = _pairs(parts.query)
    found += [value for name, value in pairs if name.lower() not in PLAIN_PARAMS] if pairs else [parts.query]
    out = []
    for value in found:
        for form in (value, unquote(value), quote(unquote(value), safe="")):
            if form and form not in out:
                out.append(form)
    return out


def url_identity(url: Any) -> dict[str, str]:
    """An endpoint's identity without its secrets: {"base_url": safe URL}, plus {"url_sha256": ...}
    when the URL carried secrets (so that two keys in one URL remain two endpoints)."""
    text = str(url or "")
    shown = safe_url(text)
    identity = {"base_url": shown}
    if shown != text and url_secrets(text):
        identity["url_sha256"] = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return identity


def safe_headers(headers: Mapping[str, Any] | Iterable[tuple[str, Any]]) -> dict[str, str]:
    """Headers as they may be shown: the value of any authorization, key, token, cookie or secret
    header masked."""
    items = headers.items() if isinstance(headers, Mapping) else headers
    return {str(k): (MASK if _SECRET_NAME.search(str(k)) else str(v)) for k, v in items}


def remember(*values: Any) -> None:
    """Secrets this process knows (keys from the settings): `safe_text` masks them wherever they are."""
    with _lock:
        _remembered.update(v for v in (str(x or "") for x in values) if len(v) >= MIN_REMEMBERED)


def remember_url(url: Any) -> None:
    remember(*url_secrets(url))


def forget_remembered() -> None:
    """For tests: no secret remembered any more."""
    with _lock:
        _remembered.clear()


# user:password@ in any URL; the value of a secret-looking query parameter; a header or key=value pair
# naming a secret (authorization: Bearer ..., 'api-key': '...', x-api-key=...).
_USERINFO = re.compile(r"(?<=//)[^/\s@'\"<>]+@")
_QUERY_VALUE = re.compile(r"(?<=[?&])([A-Za-z0-9_.\-]+)=([^&#\s'\"<>]+)")
_HEADER = re.compile(
    r"(?P<name>\b[\w\-]*(?:authorization|api[-_]?key|token(?!s)|secret|password|cookie)[\w\-]*['\"]?\s*[:=]\s*"
    r"['\"]?(?:(?:Bearer|Basic|Token)\s+)?)(?P<value>[^'\"\s,;&)}\]]+)", re.I)


def _query_value(match: re.Match) -> str:
    name = match.group(1)
    return match.group(0) if name.lower() in PLAIN_PARAMS else f"{name}={MASK}"


def safe_text(text: Any, headers: bool = True) -> str:
    """Free text made safe to print or write: credentials in URLs, query values of URLs (but the
    version), authorization and key headers (`headers=False`: not looked for, for a command's result,
    which may quote a document saying "password: ..."), and every remembered secret masked."""
    out = str(text)
    if "@" in out:
        out = _USERINFO.sub(f"{MASK}@", out)
    if "=" in out and "//" in out:
        out = _mask_url_queries(out)
    if headers and _HEADER.search(out):
        out = _HEADER.sub(lambda m: m.group("name") + MASK, out)
    with _lock:
        secrets = sorted(_remembered, key=len, reverse=True)
    for secret in secrets:
        if secret in out:
            out = out.replace(secret, MASK)
    return out


_URL = re.compile(r"\b[a-z][a-z0-9+.\-]*://[^\s'\"<>]+", re.I)


def _mask_url_queries(text: str) -> str:
    """Query values of every URL in `text` masked (`?api-key=***`), but the version. (The review
    server's URL with its token is printed on stdout on purpose, not through here.)"""
    return _URL.sub(lambda m: _QUERY_VALUE.sub(_query_value, m.group(0)) if "?" in m.group(0) else m.group(0),
                    text)
