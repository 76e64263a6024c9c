"""What the review server accepts (issue 32): a body over the limit is a 413 (from its Content-Length,
and from what streams in without one, against the real server process), an answer longer than an
Excel cell is refused with the limit named and nothing cut, a well-formed body of the wrong shape is
a 400 with one line (never a 500), and the redirect that moves the token into a cookie stays on this
server."""

from __future__ import annotations

import http.client
import json

import pytest

from autofill.review_app.limits import MAX_BODY_BYTES
from autofill.settings import Settings
from autofill.workbook.safety import EXCEL_CELL_LIMIT
from tests.review_app_helpers import ReviewServer, send_big_body
from tests.review_fixtures import QUESTION_2, make_output_workbook
from tests.test_review_app import Server, _cells


@pytest.fixture
def server(tmp_path, workspace):
    srv = Server(Settings(workspace=workspace), make_output_workbook(tmp_path / "filled.xlsx"))
    yield srv
    srv.close()


def _key(server) -> str:
    return next(k for k, q in server.session.questions.items() if q.question == QUESTION_2)  # not approved


def test_a_body_over_the_limit_is_refused_from_its_length(server):
    key = _key(server)
    body = json.dumps({"key": key, "base": server.version(key), "reviewer": "Ana", "action": "Edit",
                       "values": {"answer": "x" * MAX_BODY_BYTES}})
    r = server.client.post("/api/decide", content=body, headers={**server.headers, "Content-Type": "application/json"})
    assert r.status_code == 413 and "nothing was saved" in r.json()["message"]
    assert server.session.store.pending_count() == 0


def test_an_answer_longer_than_a_cell_is_refused_with_the_limit_named(server):
    key = _key(server)
    r = server.decide(key, "Edit", answer="x" * 40_010)
    assert r.status_code == 400
    assert r.json()["message"] == ("the Answer is 40,010 characters; an Excel cell holds at most 32,767: shorten it "
                                   "(nothing was saved)")
    assert server.session.store.pending_count() == 0
    # The longest a cell holds goes in whole, nothing cut or marked as cut.
    full = "y" * (EXCEL_CELL_LIMIT - 1) + "z"
    assert server.decide(key, "Edit", reviewer_comment=full).status_code == 200
    server.session.flush()
    q, _, _ = _cells(server.session.path, key)
    assert q.reviewer_comment == full


@pytest.mark.parametrize("route", ["decide", "undo", "reanswer", "library"])
def test_a_body_of_the_wrong_shape_is_a_400_with_one_line(server, route):
    key = _key(server)
    shapes = [b"[1,2]", b'"x"', b"null", b"42", b"[" * 100_000 + b"]" * 100_000, b"\xff\xfe{}",
              json.dumps({"key": 5}).encode(), json.dumps({"key": key, "wb": {}}).encode(),
              json.dumps({"key": key, "reviewer": ["Ana"]}).encode(), json.dumps({"key": "k" * 100_000}).encode()]
    if route == "decide":
        shapes += [json.dumps({"key": key, "values": v}).encode()
                   for v in ("x", [1, 2], {"answer": 3}, {"answer": {"a": 1}}, {"no_such_cell": "x"})]
    for raw in shapes:
        r = server.client.post(f"/api/{route}", content=raw,
                               headers={**server.headers, "Content-Type": "application/json"})
        assert r.status_code == 400, (raw[:40], r.status_code, r.text[:300])
        message = r.json()["message"]
        assert message and "\n" not in message and "Traceback" not in message, message
    assert server.session.store.pending_count() == 0
    assert server.client.get("/api/status").status_code == 200  # and the server still serves


@pytest.fixture(scope="module")
def process(tmp_path_factory):
    """The review server as users start it (its own process, uvicorn)."""
    root = tmp_path_factory.mktemp("limits")
    (root / "ws").mkdir()
    srv = ReviewServer(root / "ws", make_output_workbook(root / "filled.xlsx"))
    yield srv
    assert srv.stop() == 0


def _address(srv) -> tuple[str, int, str]:
    host_port = srv.base.split("//", 1)[1]
    host, port = host_port.rsplit(":", 1)
    return host, int(port), srv.url.split("token=", 1)[1]


def test_a_streamed_body_is_refused_once_it_passes_the_limit(process):
    # Far more than the limit and no Content-Length: the server answers before it is all sent.
    status, _seconds = send_big_body(process, 16 * MAX_BODY_BYTES, chunked=True)
    assert status.startswith("HTTP/1.1 413"), status
    host, port, token = _address(process)
    # The server is still up and took nothing.
    conn = http.client.HTTPConnection(host, port, timeout=30)
    conn.request("GET", "/api/status", headers={"X-Review-Token": token})
    status = conn.getresponse()
    assert status.status == 200 and json.loads(status.read())["pending"] == 0


def test_clients_that_go_away_before_their_reply_leave_the_server_serving(tmp_path, workspace):
    """A browser tab closed while its requests wait (its keep-alive save, a status poll): the connection is
    gone when the reply is written. The server goes on serving and stops with 0. (A forked server with
    SIGPIPE at its default was killed by the second write of a reply, as `autofill review` never is.)"""
    import socket
    import time

    with ReviewServer(workspace, make_output_workbook(tmp_path / "filled.xlsx")) as srv:
        host, port, token = _address(srv)
        for path in ("/api/status", "/api/row?key=Questionnaire!6", "/api/status", f"/?token={token}"):
            with socket.create_connection((host, port), timeout=30) as sock:
                sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nX-Review-Token: {token}\r\n"
                             "\r\n".encode())
            time.sleep(0.2)  # the reply written to a closed connection
            assert srv.proc.poll() is None, f"the server stopped after a client left {path}: exit code " \
                                            f"{srv.proc.poll()}"
        conn = http.client.HTTPConnection(host, port, timeout=30)
        conn.request("GET", "/api/status", headers={"X-Review-Token": token})
        assert conn.getresponse().status == 200
        conn.close()
        assert srv.stop() == 0, srv.stderr


@pytest.mark.parametrize("path, expected", [("//evil.example/x", "/"), ("/\\evil.example/x", "/"),
                                            ("/", "/"), ("/img", "/img")])
def test_the_token_redirect_stays_on_this_server(process, path, expected):
    host, port, token = _address(process)
    conn = http.client.HTTPConnection(host, port, timeout=30)
    conn.request("GET", f"{path}?token={token}&tier=check&x=a%26b")
    r = conn.getresponse()
    r.read()
    assert r.status == 303 and r.getheader("location") == f"{expected}?tier=check&x=a%26b"


@pytest.mark.slow
def test_the_page_says_an_over_long_answer_was_not_saved(tmp_path, workspace):
    """In a real browser: the reviewer is told, and the workbook keeps what it held."""
    from tests.review_app_helpers import CHROMIUM_ARGS, chromium_path

    sync_api = pytest.importorskip("playwright.sync_api", reason="pip install 'autofill[test]' (playwright)")
    if chromium_path() is None:
        pytest.skip("Chromium is not installed: run scripts/install_test_deps.sh")
    path = make_output_workbook(tmp_path / "filled.xlsx")
    before = path.read_bytes()
    with ReviewServer(workspace, path) as srv, sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        context = browser.new_context()
        context.add_init_script("localStorage.setItem('autofillReviewer', 'Ana')")
        page = context.new_page()
        page.goto(srv.url)
        article = page.locator("article", has=page.get_by_role("heading", name=QUESTION_2))
        article.get_by_label("Answer").fill("x" * 40_010)
        article.get_by_role("button", name="Needs changes").click()
        sync_api.expect(article.get_by_role("status")).to_have_text(
            "Not saved: the Answer is 40,010 characters; an Excel cell holds at most 32,767: shorten it "
            "(nothing was saved)")
        browser.close()
        assert srv.stop() == 0
    assert path.read_bytes() == before


# ------------------------------------------------------------------ text a workbook cannot hold; bad fields


def _post(srv, route: str, raw: bytes) -> tuple[int, dict]:
    """POST `raw` (JSON bytes, sent as they are: lone surrogates stay `\\ud800` escapes) to a running server."""
    from autofill.review_app.security import csrf_token

    host, port, token = _address(srv)
    conn = http.client.HTTPConnection(host, port, timeout=60)
    conn.request("POST", f"/api/{route}", body=raw, headers={"X-Review-Token": token, "Content-Type": "application/json",
                                                             "X-CSRF-Token": csrf_token(token)})
    r = conn.getresponse()
    return r.status, json.loads(r.read() or b"{}")


def _version(srv, key: str) -> str:
    host, port, token = _address(srv)
    conn = http.client.HTTPConnection(host, port, timeout=60)
    conn.request("GET", f"/api/row?key={key}", headers={"X-Review-Token": token})
    return json.loads(conn.getresponse().read())["version"]


def _decisions(workbook) -> list[tuple]:
    import sqlite3

    from autofill.review.sidecar import sidecar_path

    with sqlite3.connect(sidecar_path(workbook)) as conn:
        return conn.execute("SELECT id, reviewer, after FROM decisions ORDER BY id").fetchall()


def test_a_review_save_a_workbook_cannot_hold_is_replaced_visibly_and_refusals_change_nothing(tmp_path):
    """Through the real server process: an answer with U+FFFE and a reasoning with a lone surrogate are
    saved with U+FFFD in their place, the save says so and the row's Checks name it; a reviewer name
    with a lone surrogate is a 400 naming the field, before anything is recorded. The workbook opens
    afterwards, holds the decisions and its Review log, and `review` serves it again."""
    from autofill.review_app.apply import read_log
    from autofill.workbook.layout import read_questions

    (tmp_path / "ws").mkdir()
    path = make_output_workbook(tmp_path / "filled.xlsx")
    key = next(q.key for q in read_questions(Settings(), path)[1] if q.question == QUESTION_2)
    with ReviewServer(tmp_path / "ws", path) as srv:
        base = _version(srv, key)
        raw = ('{"key": "%s", "base": "%s", "reviewer": "Ana", "action": "Edit", '
               '"values": {"answer": "Quarterly \\ufffe", "reasoning": "Board minutes \\ud800 p. 3"}}') % (key, base)
        status, data = _post(srv, "decide", raw.encode())
        assert status == 200, data
        assert data["state"]["answer"] == "Quarterly \ufffd" and data["state"]["reasoning"] == "Board minutes \ufffd p. 3"
        reason = ("2 characters an Excel file cannot hold (U+FFFE, U+D800) replaced by U+FFFD in the Answer and "
                  "Reasoning")
        assert data["message"].startswith(f"Saved; {reason}") and reason in data["checks"], data
        recorded = _decisions(path)
        raw = ('{"key": "%s", "base": "%s", "reviewer": "Ana \\ud800", "action": "Needs changes", '
               '"values": {"answer": "Twice a year"}}') % (key, data["version"])
        status, refused = _post(srv, "decide", raw.encode())
        assert status == 400 and refused["message"] == (
            "'reviewer' holds a character a workbook cannot store (U+D800); nothing was saved"), refused
        assert _decisions(path) == recorded  # nothing committed by the refused save
        assert srv.stop() == 0
    q = next(q for q in read_questions(Settings(), path)[1] if q.key == key)  # the workbook opens
    assert q.existing_answer == "Quarterly \ufffd"
    assert [(e["Reviewer"], e["After"]) for e in read_log(path)] == [("Ana", "Quarterly \ufffd"),
                                                                     ("Ana", "Board minutes \ufffd p. 3")]
    with ReviewServer(tmp_path / "ws", path) as again:  # and is served again
        assert _version(again, key) == data["version"]
        assert again.stop() == 0


BAD_VALUES = [5, 2.5, True, False, [], ["x"], {}, {"a": 1}, "\ud800", "x" * 100_000]


@pytest.mark.parametrize("route, fields", [("decide", ["wb", "key", "base", "reviewer", "action", "values", "confirm"]),
                                           ("undo", ["wb", "key", "base", "reviewer"]),
                                           ("reanswer", ["wb", "key", "base", "reviewer"]),
                                           ("library", ["wb", "key"])])
def test_every_bad_field_of_a_review_request_is_a_400_naming_it_and_changes_nothing(server, route, fields):
    """Each field in turn given a number, true/false, a list, an object, a lone surrogate, a huge text
    (and null): 400 naming the field (null: read as empty, never a 500), nothing recorded or written."""
    key = _key(server)
    good = {"wb": 0, "key": key, "base": server.version(key), "reviewer": "Ana", "action": "Needs changes",
            "values": {"reviewer_comment": "look again"}, "confirm": []}
    good = {f: good[f] for f in fields}
    before = server.session.path.read_bytes()

    def post(field, bad):
        raw = json.dumps({**good, field: bad}).encode()
        r = server.client.post(f"/api/{route}", content=raw, headers={**server.headers, "Content-Type": "application/json"})
        assert r.status_code != 500, (field, str(bad)[:20], r.text[:300])
        return r

    for field in fields:
        for bad in BAD_VALUES:
            if field == "wb" and isinstance(bad, int) and not isinstance(bad, bool):
                continue  # a workbook's number
            if field in ("values", "confirm") and bad in ({}, []) or (field == "confirm" and bad == ["x"]):
                continue  # no cells / no confirmations, or a confirmation nothing asked for: a fine request
            if field == "values" and isinstance(bad, dict):
                bad = {"answer": 5}
            r = post(field, bad)
            assert r.status_code == 400, (field, str(bad)[:20], r.status_code, r.text[:300])
            message = r.json()["message"]
            named = {"values": ["'values'", "Answer"], "wb": ["'wb'", "workbook"]}.get(field, [f"'{field}'"])
            assert any(n in message for n in named) and "\n" not in message, (field, str(bad)[:20], message)
            assert server.session.store.pending_count() == 0 and not server.session.store.all(), (field, bad)
    assert server.session.path.read_bytes() == before
    for field in fields:  # null reads as absent: the request goes on without it (key: refused), never a 500
        r = post(field, None)
        assert r.status_code in (200, 400, 409, 428), (field, r.status_code, r.text[:300])
        if field == "key":
            assert r.status_code == 400 and r.json()["message"] == "'key' is missing: the request names no question row"


def test_confirm_of_the_wrong_type_is_a_400(server):
    key = _key(server)
    for bad in (5, True, "yes", {"a": 1}, [5], [None], ["\ud800"], ["x" * 40_000], ["x"] * 101):
        raw = json.dumps({"key": key, "base": server.version(key), "reviewer": "Ana", "action": "Approve",
                          "confirm": bad})
        r = server.client.post("/api/decide", content=raw.encode(),
                               headers={**server.headers, "Content-Type": "application/json"})
        assert r.status_code == 400 and "'confirm'" in r.json()["message"], (str(bad)[:20], r.status_code, r.text)
    assert not server.session.store.all()
