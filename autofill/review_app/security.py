"""The review server's locks: a random session token (in the URL printed at start, then a cookie of the
browser that opened it) without which every request gets 401 (none given) or 403 (a wrong one); for
requests that change anything, a CSRF token the page carries (derived from the session token) in a
request header, an Origin that is this server's own, and no `Sec-Fetch-Site: cross-site`. Bound to a
loopback address, the Host header must name it too (a DNS-rebinding page cannot borrow the origin).
The redirect that moves the token into the cookie goes to this server's own paths only."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from urllib.parse import urlencode

from starlette.responses import PlainTextResponse, RedirectResponse
from starlette.requests import Request

TOKEN_PARAM = "token"
CSRF_HEADER = "x-csrf-token"
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
LOOPBACK = ("127.0.0.1", "localhost", "[::1]")
OWN_PATH = re.compile(r"/[A-Za-z0-9_./-]*")


def own_path(path: str) -> str:
    """`path` when it is a plain path of this server, else "/": a redirect never leaves it (`//host/x`
    and `/\\host/x` are other servers to a browser)."""
    if OWN_PATH.fullmatch(path) and not path.startswith("//"):
        return path
    return "/"


def new_token() -> str:
    return secrets.token_urlsafe(24)


def csrf_token(token: str) -> str:
    return hmac.new(token.encode(), b"autofill-review-csrf", hashlib.sha256).hexdigest()[:32]


class Guard:
    """ASGI middleware in front of every route."""

    def __init__(self, app, token: str, host: str, port_of: callable):
        self.app, self.token, self.host = app, token, host
        self.port_of = port_of  # the bound port, known once the server listens (--port 0)
        self.csrf = csrf_token(token)

    @property
    def cookie(self) -> str:
        return f"autofill_review_{self.port_of()}"

    def _allowed_hosts(self) -> set[str] | None:
        if self.host not in ("127.0.0.1", "localhost", "::1"):
            return None  # bound to another interface on purpose: the token is the lock (the CLI warned)
        port = self.port_of()
        return {f"{h}:{port}" for h in LOOPBACK}

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        request = Request(scope)
        refusal = self.check(request)
        if refusal is not None:
            return await refusal(scope, receive, send)
        if request.method == "GET" and request.query_params.get(TOKEN_PARAM):
            # The URL printed at start: the token moves into a cookie and out of the address bar.
            query = urlencode([(k, v) for k, v in request.query_params.multi_items() if k != TOKEN_PARAM])
            response = RedirectResponse(own_path(request.url.path) + (f"?{query}" if query else ""), status_code=303)
            response.set_cookie(self.cookie, self.token, httponly=True, samesite="strict", path="/")
            return await response(scope, receive, send)
        return await self.app(scope, receive, send)

    def check(self, request: Request):
        allowed = self._allowed_hosts()
        if allowed is not None and request.headers.get("host", "") not in allowed:
            return PlainTextResponse("unknown host", status_code=403)
        given = (request.query_params.get(TOKEN_PARAM) or request.headers.get("x-review-token")
                 or request.cookies.get(self.cookie))
        if not given:
            return PlainTextResponse("the review session token is missing: open the URL autofill review printed",
                                     status_code=401)
        if not hmac.compare_digest(given.encode(), self.token.encode()):
            return PlainTextResponse("wrong review session token", status_code=403)
        if request.method in SAFE_METHODS:
            return None
        if request.headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
            return PlainTextResponse("cross-site request refused", status_code=403)
        origin = request.headers.get("origin")
        if origin is not None and origin != f"{request.url.scheme}://{request.headers.get('host', '')}":
            return PlainTextResponse("cross-origin request refused", status_code=403)
        if not hmac.compare_digest(request.headers.get(CSRF_HEADER, "").encode(), self.csrf.encode()):
            return PlainTextResponse("the page's CSRF token is missing or wrong: reload the page", status_code=403)
        return None
