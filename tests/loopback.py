"""Machinery shared by the loopback API servers in tests/llm_server.py: a threaded standard-library
HTTP server with a request log, fault injection (error statuses, stalls), latency and a queue of
scripted replies. The API-specific reply shapes (OpenAI, Cohere) live in llm_server.py."""

from __future__ import annotations

import hashlib
import json
import math
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

DEFAULT_TEXT = "OK"
EMBED_DIM = 64
_SECRET_HEADERS = {"authorization", "api-key", "x-api-key", "cookie"}

# --------------------------------------------------------------------------- replies and records


@dataclass
class Reply:
    """A scripted reply. `text` is the assistant message; token counts default to an estimate
    (characters / 4) of the prompt and the text. `status` != 200 turns it into an error reply with
    `error_message`; `body` replaces the whole JSON body (for malformed-response tests);
    `delay_s` adds latency to this reply only."""

    text: str = DEFAULT_TEXT
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    status: int = 200
    error_message: str = ""
    retry_after: float | None = None
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = None
    delay_s: float = 0.0
    finish_reason: str = "stop"

    @classmethod
    def error(cls, status: int, message: str = "", retry_after: float | None = None) -> "Reply":
        return cls(status=status, error_message=message or f"injected error {status}", retry_after=retry_after)


@dataclass
class RecordedRequest:
    method: str
    path: str  # without the query string
    query: str
    headers: dict[str, str]  # lower-case names; authorization headers removed
    json: Any
    auth_headers: list[str] = field(default_factory=list)  # names of the auth headers sent, not values
    status: int = 0  # the status the server answered with (0 while in flight)
    started: float = 0.0  # time.monotonic() when the request arrived
    finished: float = 0.0

    @property
    def route(self) -> str:
        """"chat", "embeddings", "cohere-chat", "cohere-embed", "cohere-rerank" or "other"."""
        return _route_of(self.path)


@dataclass
class _Fault:
    kind: str  # "status" or "stall"
    status: int = 500
    message: str = ""
    retry_after: float | None = None
    stall_s: float = 0.0
    routes: tuple[str, ...] | None = None  # None: any route


def _route_of(path: str) -> str:
    p = path.rstrip("/")
    if p.endswith("/chat/completions"):
        return "chat"
    if p.endswith("/embeddings"):
        return "embeddings"
    if p.endswith("/v2/chat") or p.endswith("/v1/chat"):
        return "cohere-chat"
    if p.endswith("/v2/embed") or p.endswith("/v1/embed"):
        return "cohere-embed"
    if p.endswith("/v2/rerank") or p.endswith("/v1/rerank"):
        return "cohere-rerank"
    return "other"


# --------------------------------------------------------------------------- helpers for responders


def _content_text(content: Any) -> str:
    """Message content as text: OpenAI allows a string or a list of parts; Cohere a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) if isinstance(p, dict) else str(p) for p in content)
    return "" if content is None else str(content)


def message_text(req: dict) -> str:
    """All message contents of a chat request, joined by newlines."""
    return "\n".join(_content_text(m.get("content")) for m in req.get("messages", []) or [])


def system_text(req: dict) -> str:
    return "\n".join(_content_text(m.get("content")) for m in req.get("messages", []) if m.get("role") == "system")


def last_user_text(req: dict) -> str:
    users = [m for m in req.get("messages", []) if m.get("role") == "user"]
    return _content_text(users[-1].get("content")) if users else ""


def by_marker(routes: dict[str, Any], default: Any = None) -> Callable[[dict], Any]:
    """A responder that picks its reply by the first marker found in the request's message text,
    e.g. by_marker({"hypothetical passage": hyde_text, "Rank the passages": ranker, "JSON": answer}).
    Values are a reply (str, Reply, dict) or a callable(req) returning one; no match gives `default`."""

    def responder(req: dict) -> Any:
        text = message_text(req)
        for marker, reply in routes.items():
            if marker in text:
                return reply(req) if callable(reply) else reply
        return default(req) if callable(default) else default

    return responder


def estimate_tokens(text: str) -> int:
    return max(1, math.ceil(len(text) / 4)) if text else 0


def hash_vector(text: str, dim: int = EMBED_DIM) -> list[float]:
    """A deterministic unit vector for `text` (same text, same vector; different texts differ)."""
    raw = b""
    counter = 0
    while len(raw) < dim * 4:
        raw += hashlib.sha256(f"{counter}:{text}".encode()).digest()
        counter += 1
    values = [(int.from_bytes(raw[i * 4:(i + 1) * 4], "little") / 2**32) * 2 - 1 for i in range(dim)]
    norm = math.sqrt(sum(v * v for v in values)) or 1.0
    return [v / norm for v in values]


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def overlap_score(query: str, document: str) -> float:
    """Share of the query's words found in the document, in [0, 1]: a transparent fake relevance."""
    q = _words(query)
    return len(q & _words(document)) / len(q) if q else 0.0


# --------------------------------------------------------------------------- the server


class _Handler(BaseHTTPRequestHandler):
    server: "_HTTPServer"
    protocol_version = "HTTP/1.0"  # one request per connection: no stale keep-alive sockets

    def log_message(self, format: str, *args: Any) -> None:  # keep pytest output clean
        pass

    def do_GET(self) -> None:
        self.server.owner._handle(self, "GET")

    def do_POST(self) -> None:
        self.server.owner._handle(self, "POST")


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    # socketserver's default listen backlog is 5, and every request is a new connection (HTTP/1.0): 16
    # rows calling at once (benchmarks/startup.py) must not depend on the kernel absorbing the overflow.
    request_queue_size = 128
    owner: "LoopbackServer"


class LoopbackServer:
    """Shared machinery: threaded server, request log, fault injection, latency, replies queue."""

    def __init__(self, latency_s: float = 0.0, responder: Callable[[dict], Any] | None = None,
                 embed_dim: int = EMBED_DIM, require_key: str | None = None) -> None:
        self.latency_s = latency_s
        self.responder = responder
        # When set, requests without this key (Bearer or api-key header) get 401, and the message
        # echoes the key they sent, as real APIs do: tests check that it never leaks further.
        self.require_key = require_key
        self.embed_dim = embed_dim
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._requests: list[RecordedRequest] = []
        self._faults: list[_Fault] = []
        self._queue: list[Any] = []
        self._in_flight = 0
        self.responder_errors: list[str] = []  # exceptions raised by the responder (answered as 500)
        self.max_in_flight = 0  # highest number of requests served at the same time
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ---- lifecycle

    def start(self) -> "LoopbackServer":
        self._httpd = _HTTPServer(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name=f"{type(self).__name__}:{self.port}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._closing.set()  # wakes stalled and slow handlers at once
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> "LoopbackServer":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        """Root URL without a version path, e.g. http://127.0.0.1:PORT."""
        return f"http://127.0.0.1:{self.port}"

    # ---- scripting

    def queue(self, *replies: Any) -> None:
        """Replies for the next chat requests, in order (str, Reply or raw dict body)."""
        with self._lock:
            self._queue.extend(replies)

    def fail_next(self, n: int = 1, status: int = 500, message: str = "", retry_after: float | None = None,
                  routes: tuple[str, ...] | None = None) -> None:
        """Answer the next `n` requests (on `routes`, default all) with an error status. 429 with a
        Retry-After header when `retry_after` is given (seconds, may be 0)."""
        with self._lock:
            for _ in range(n):
                self._faults.append(_Fault("status", status=status, message=message or f"injected error {status}",
                                           retry_after=retry_after, routes=routes))

    def stall_next(self, n: int = 1, seconds: float = 5.0, routes: tuple[str, ...] | None = None) -> None:
        """Hold the next `n` requests for `seconds` before answering (past a short client timeout)."""
        with self._lock:
            for _ in range(n):
                self._faults.append(_Fault("stall", stall_s=seconds, routes=routes))

    def reset(self) -> None:
        """Forget recorded requests, queued replies and pending faults (keeps responder and latency)."""
        with self._lock:
            self._requests.clear()
            self._queue.clear()
            self._faults.clear()
            self.max_in_flight = 0

    # ---- inspection

    @property
    def requests(self) -> list[RecordedRequest]:
        """A snapshot of every request so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    def count(self, route: str | None = None) -> int:
        return sum(1 for r in self.requests if route is None or r.route == route)

    # ---- request handling

    def _take_fault(self, route: str) -> _Fault | None:
        with self._lock:
            for i, f in enumerate(self._faults):
                if f.routes is None or route in f.routes:
                    return self._faults.pop(i)
        return None

    def _take_queued(self) -> Any:
        with self._lock:
            return self._queue.pop(0) if self._queue else None

    def _handle(self, h: _Handler, method: str) -> None:
        path, _, query = h.path.partition("?")
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        headers = {k.lower(): v for k, v in h.headers.items() if k.lower() not in _SECRET_HEADERS}
        auth = [k.lower() for k in h.headers.keys() if k.lower() in _SECRET_HEADERS]
        rec = RecordedRequest(method, path, query, headers, body, auth_headers=auth, started=time.monotonic())
        with self._lock:
            self._requests.append(rec)
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
        try:
            sent_key = self._sent_key(h)
            if self.require_key is not None and sent_key != self.require_key:
                status, reply_headers, payload = self._error_reply(401, f"Incorrect API key provided: {sent_key}", None)
            else:
                status, reply_headers, payload = self._respond(rec, h)
            rec.status = status
            self._send(h, status, reply_headers, payload)
        finally:
            rec.finished = time.monotonic()
            with self._lock:
                self._in_flight -= 1

    @staticmethod
    def _sent_key(h: _Handler) -> str:
        bearer = h.headers.get("Authorization", "")
        return bearer[7:] if bearer.startswith("Bearer ") else h.headers.get("api-key", "")

    def _respond(self, rec: RecordedRequest, h: _Handler) -> tuple[int, dict[str, str], Any]:
        route = rec.route
        if route == "other" or not isinstance(rec.json, dict):
            return 404 if route == "other" else 400, {}, self._error_body(404 if route == "other" else 400,
                                                                          f"no route for {rec.method} {rec.path}")
        if self.latency_s:
            self._closing.wait(self.latency_s)
        fault = self._take_fault(route)
        if fault is not None and fault.kind == "stall":
            # The client has normally given up by now; a stalled request never takes a queued reply,
            # so the retry that follows gets it.
            self._closing.wait(fault.stall_s)
        elif fault is not None:
            return self._error_reply(fault.status, fault.message, fault.retry_after)
        reply = self._reply_for(route, rec.json, use_queue=fault is None)
        if isinstance(reply, Reply):
            if reply.delay_s:
                self._closing.wait(reply.delay_s)
            if reply.status != 200:
                return self._error_reply(reply.status, reply.error_message, reply.retry_after)
            if reply.body is not None:
                return 200, dict(reply.headers), reply.body
            return 200, dict(reply.headers), self._success_body(route, rec.json, reply)
        return 200, {}, reply  # a raw dict body from the responder or the queue

    def _reply_for(self, route: str, req: dict, use_queue: bool = True) -> Any:
        """Chat routes consult queue then responder; embed/rerank routes compute their answer."""
        if route in ("chat", "cohere-chat"):
            reply = self._take_queued() if use_queue else None
            if reply is None and self.responder is not None:
                try:
                    reply = self.responder(req)
                except Exception as exc:  # a broken test responder must show up, not hang the client
                    with self._lock:
                        self.responder_errors.append(f"{type(exc).__name__}: {exc}")
                    return Reply.error(500, f"test responder raised {type(exc).__name__}: {exc}")
            if reply is None:
                reply = DEFAULT_TEXT
            return Reply(text=reply) if isinstance(reply, str) else reply
        return Reply()

    def _error_reply(self, status: int, message: str, retry_after: float | None) -> tuple[int, dict[str, str], Any]:
        headers = {} if retry_after is None else {"Retry-After": f"{retry_after:g}"}
        return status, headers, self._error_body(status, message)

    def _send(self, h: _Handler, status: int, headers: dict[str, str], payload: Any) -> None:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        try:
            h.send_response(status)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(len(data)))
            for k, v in headers.items():
                h.send_header(k, v)
            h.end_headers()
            h.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout test): nothing to deliver

    # ---- per-API shapes, overridden below

    def _error_body(self, status: int, message: str) -> Any:
        return {"message": message}

    def _success_body(self, route: str, req: dict, reply: Reply) -> Any:
        raise NotImplementedError
