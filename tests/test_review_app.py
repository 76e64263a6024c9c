"""autofill review's server in-process (Starlette's TestClient, no browser): the token and CSRF
locks, decisions written into the workbook the way a reviewer typing in Excel writes them (so the next
`autofill run` keeps an edited answer, keeps an Approved row and re-answers a Needs-changes row with
the comment), conflicts, the approved lock, undo, the sidecar waiting while the workbook is open in
Excel and `--apply`, the Review log (in the workbook, the review pack, never read as questions), and
PDF text or answers holding HTML shown as text."""

from __future__ import annotations

import json

import openpyxl
import pytest
from starlette.testclient import TestClient

from autofill.answer.pipeline import run_questionnaire
from autofill.providers.base import Providers
from autofill.review_app.app import AppState, build_app
from autofill.review_app.apply import REVIEW_LOG_SHEET, read_log
from autofill.review_app.security import csrf_token
from autofill.review_app.session import ReviewSession
from autofill.review.sidecar import sidecar_path
from autofill.settings import Settings
from autofill.workbook.record import read_state
from autofill.workbook.layout import read_questions
from autofill.workbook.reviewer import rows_to_answer
from tests import cli_process
from tests.answer_helpers import COMPANY, FACTS, make_questionnaire, copied_workspace
from tests.review_fixtures import HOSTILE_TEXT, PDF_NAME, make_output_workbook, make_report_pdf

PORT = 8765
BASE = f"http://127.0.0.1:{PORT}"


@pytest.fixture(scope="module")
def filled(tmp_path_factory):
    """A workbook filled offline (evidence-only drafts) by a real run over the sample PDF."""
    root = tmp_path_factory.mktemp("ws")
    settings, emb = copied_workspace(root, filler=False)
    questionnaire = make_questionnaire(root / "questionnaire.xlsx", FACTS[:3])
    report = run_questionnaire(settings, COMPANY, questionnaire, providers=Providers(embedder=emb))
    RUN[root] = (questionnaire, emb)
    return root, report.output.read_bytes(), report.output.name


RUN: dict = {}  # workspace -> (questionnaire, embedder) of the module's fill, for re-running it


class Server:
    def __init__(self, settings, path):
        self.session = ReviewSession(settings, path, write_delay=0)
        self.state = AppState(settings=settings, sessions=[self.session], token="tok-" + "x" * 20, port=PORT)
        self.client = TestClient(build_app(self.state), base_url=BASE)
        self.client.cookies.set(f"autofill_review_{PORT}", self.state.token)
        self.headers = {"X-CSRF-Token": csrf_token(self.state.token), "Origin": BASE}

    def rows(self) -> dict[str, dict]:
        return {k: {"version": self.client.get("/api/row", params={"key": k}).json()["version"]}
                for k in self.session.questions}

    def version(self, key: str) -> str:
        return self.client.get("/api/row", params={"key": key}).json()["version"]

    def decide(self, key, action, reviewer="Ana", base=None, confirm=True, **values):
        """A decision; with `confirm`, failed checks the server asks about (428) are confirmed, as the
        reviewer does with "Approve anyway" (tests/test_review_app_checks.py tests that step)."""
        body = {"key": key, "base": base or self.version(key), "reviewer": reviewer, "action": action,
                "values": values}
        r = self.client.post("/api/decide", json=body, headers=self.headers)
        if r.status_code == 428 and confirm:
            r = self.client.post("/api/decide", json={**body, "confirm": r.json()["confirm"]}, headers=self.headers)
        return r

    def close(self):
        self.state.close()


@pytest.fixture
def server(filled, tmp_path):
    root, data, name = filled
    path = tmp_path / name
    path.write_bytes(data)
    srv = Server(Settings(workspace=root), path)
    yield srv
    srv.close()


def _cells(path, key):
    layout, rows = read_questions(Settings(workspace=path.parent), path)
    return next(q for q in rows if q.key == key), layout, rows


def test_requests_without_the_token_are_refused(server):
    anon = TestClient(server.client.app, base_url=BASE)
    assert anon.get("/").status_code == 401
    assert anon.get("/", params={"token": "wrong"}).status_code == 403
    assert anon.post("/api/decide", json={}, headers=server.headers).status_code == 401
    # The printed URL's token becomes a cookie, then the page loads.
    opened = anon.get("/", params={"token": server.state.token})
    assert opened.status_code == 200 and "<article" in opened.text
    # Another Host (DNS rebinding) is refused even with the token.
    assert TestClient(server.client.app, base_url="http://evil.example:8765").get(
        "/", params={"token": server.state.token}).status_code == 403


def test_state_changing_requests_need_the_csrf_token_and_our_origin(server):
    key = next(iter(server.session.questions))
    body = {"key": key, "base": server.version(key), "reviewer": "Ana", "action": "Needs changes", "values": {}}
    assert server.client.post("/api/decide", json=body).status_code == 403  # no CSRF header
    bad_origin = {**server.headers, "Origin": "http://evil.example"}
    assert server.client.post("/api/decide", json=body, headers=bad_origin).status_code == 403
    cross = {**server.headers, "Sec-Fetch-Site": "cross-site"}
    assert server.client.post("/api/decide", json=body, headers=cross).status_code == 403
    assert server.client.post("/api/decide", json=body, headers=server.headers).status_code == 200
    garbled = server.client.post("/api/decide", content=b"{not json", headers=server.headers)
    assert garbled.status_code == 400


def test_decisions_reach_the_workbook_as_a_reviewer_in_excel_would_leave_them(server):
    path = server.session.path
    keys = list(server.session.questions)
    record_before = read_state(path, _cells(path, keys[0])[1]).record
    r = server.decide(keys[0], "Approve", answer="Yes. Net zero Scope 1 and 2 by 2050 (checked).")
    assert r.status_code == 200 and r.json()["message"] == "Saved"
    r = server.decide(keys[1], "Needs changes", reviewer_comment="Name the committee and how often it meets")
    assert r.json()["ok"]
    server.session.flush()

    q0, layout, rows = _cells(path, keys[0])
    assert q0.existing_answer == "Yes. Net zero Scope 1 and 2 by 2050 (checked)." and q0.review == "Approved"
    state = read_state(path, layout)
    assert state.record == record_before  # the record of what autofill wrote is untouched
    assert state.edited[keys[0]] == ["answer"]  # so the next run sees a hand edit ...
    to_answer, kept = rows_to_answer(rows, state.edited)
    assert keys[0] in {q.key for q in kept}  # ... and keeps the approved row
    again = next(q for q in to_answer if q.key == keys[1])  # Needs changes: answered again
    assert again.reviewer_comment == "Name the committee and how often it meets"

    log = read_log(path)
    assert [(x["Reviewer"], x["Action"], x["Field"]) for x in log] == [
        ("Ana", "Approve", "Answer"), ("Ana", "Approve", "Review"), ("Ana", "Needs changes", "Review"),
        ("Ana", "Needs changes", "Reviewer comment")]
    assert layout.ignored_sheets[REVIEW_LOG_SHEET] == "written by autofill"  # never read as questions
    assert (path.parent / "history").is_dir()  # the file as it was before the session is kept


def test_a_save_over_a_changed_row_is_refused_with_both_versions(server):
    key = next(iter(server.session.questions))
    loaded = server.version(key)
    assert server.decide(key, "Edit", reviewer="Ana", base=loaded, answer="Ana's answer").status_code == 200
    r = server.decide(key, "Approve", reviewer="Ben", base=loaded, answer="Ben's answer")
    assert r.status_code == 409
    data = r.json()
    assert data["conflict"] and data["theirs"]["answer"] == "Ana's answer"
    assert server.session.state(key)["answer"] == "Ana's answer"
    # Keeping his version after seeing both: saved over the version he was shown.
    assert server.decide(key, "Approve", reviewer="Ben", base=data["version"], answer="Ben's answer").status_code == 200


def test_approved_rows_are_locked_until_reopened_and_the_last_decision_can_be_undone(server):
    key = next(iter(server.session.questions))
    original = server.session.state(key)
    server.decide(key, "Approve", answer="Approved text")
    r = server.decide(key, "Edit", answer="sneaky change")
    assert r.status_code == 400 and "locked" in r.json()["message"]
    r = server.client.post("/api/undo", json={"key": key, "base": server.version(key), "reviewer": "Ana"},
                           headers=server.headers)
    assert r.status_code == 200 and r.json()["state"] == original
    server.decide(key, "Approve", answer="Approved text")
    assert server.decide(key, "Reopen").json()["state"]["review"] == ""
    assert server.decide(key, "Edit", answer="changed after reopening").status_code == 200


def test_a_workbook_open_in_excel_waits_and_apply_writes_it(server, filled):
    path = server.session.path
    key = next(iter(server.session.questions))
    lock = path.parent / f"~${path.name}"
    lock.write_text("owner")
    before = path.read_bytes()
    r = server.decide(key, "Approve", answer="Decided while Excel had it open")
    with pytest.raises(Exception, match="close"):
        server.session.flush()
    assert path.read_bytes() == before and server.session.store.pending_count() == 1
    assert r.json()["message"].startswith("Saved; not yet in the workbook: close") and r.json()["pending"] == 1
    server.state.close()  # stops with the workbook still open: nothing lost, nothing written
    assert path.read_bytes() == before and sidecar_path(path).is_file()

    cli = ["--workspace", str(filled[0]), "review", str(path), "--apply", "--json"]
    refused = cli_process.run(cli, timeout=120)
    assert refused.returncode == 2 and "close" in refused.stderr and refused.stderr.count("\n") == 1
    lock.unlink()
    done = cli_process.run(cli, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["applied"][0]["decisions_written"] == 1
    q, _, _ = _cells(path, key)
    assert (q.existing_answer, q.review) == ("Decided while Excel had it open", "Approved")


def test_decisions_wait_while_an_autofill_run_writes_the_workbook(server):
    from autofill.outputlock import OutputLock

    path = server.session.path
    key = next(iter(server.session.questions))
    before = path.read_bytes()
    with OutputLock(path):  # what `autofill run` holds on its output for the whole run
        server.decide(key, "Approve", answer="Decided during a run")
        with pytest.raises(Exception, match="being written by another autofill run"):
            server.session.flush()
        assert path.read_bytes() == before and server.session.store.pending_count() == 1
    assert server.session.flush() == 1  # the run is done: the decision goes in
    q, _, _ = _cells(path, key)
    assert (q.existing_answer, q.review) == ("Decided during a run", "Approved")


def test_html_in_pdf_text_and_answers_is_shown_as_text(tmp_path, workspace):
    docs = tmp_path / "docs"
    docs.mkdir()
    make_report_pdf(docs / PDF_NAME)
    path = make_output_workbook(tmp_path / "filled.xlsx")
    srv = Server(Settings(workspace=workspace), path)
    try:
        key = next(k for k, q in srv.session.questions.items() if HOSTILE_TEXT in q.answer)
        # The answer cell and the Evidence passage both hold the hostile text; the comment gets more.
        srv.decide(key, "Edit", reviewer_comment="<img src=x onerror=alert(1)>")
        html = srv.client.get("/").text
        assert "<script>alert(" not in html and "<b>bold</b>" not in html and "<img src=x" not in html
        assert "&lt;script&gt;alert(" in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    finally:
        srv.close()


def test_the_review_pack_carries_the_review_log(server):
    from autofill.review.report import write_review_report

    key = next(iter(server.session.questions))
    server.decide(key, "Approve", answer="Yes")
    server.session.flush()
    html = write_review_report(server.session.settings, server.session.path, pack=True)
    packed = openpyxl.load_workbook(html.parent / server.session.path.name)
    assert REVIEW_LOG_SHEET in packed.sheetnames
    page = html.read_text()
    assert 'id="review-log"' in page and ">Ana<" in page and ">Approve<" in page


def test_rows_are_filtered_and_counted(server):
    keys = list(server.session.questions)
    server.decide(keys[0], "Approve", answer="Yes")
    page = server.client.get("/", params={"review": "approved"}).text
    counted = page.replace('<span id="reviewed">', "").replace("</span>", "")
    assert page.count("<article") == 1 and f"1 of {len(keys)} reviewed" in counted
    assert server.client.get("/", params={"review": "none"}).text.count("<article") == len(keys) - 1


def test_rows_show_and_filter_by_framework_datapoint(server):
    page = server.client.get("/").text
    assert 'id="f-datapoint"' in page and "Board oversight of climate matters" in page
    assert "GRI 305-1" not in page and "ESRS GOV-1" in page  # each row's datapoints with their requirements
    one = server.client.get("/", params={"datapoint": "Renewable energy consumption and share"}).text
    assert one.count("<article") == 1 and "renewable electricity" in one
    assert server.client.get("/", params={"datapoint": "none"}).text.count("<article") == 0


def test_an_approved_row_goes_into_the_answer_library(server):
    from autofill.library.store import open_library

    key = next(iter(server.session.questions))
    server.decide(key, "Approve", answer="Yes. Net zero Scope 1 and 2 by 2050.")
    r = server.client.post("/api/library", json={"key": key}, headers=server.headers)
    assert r.status_code == 200, r.text
    assert "answer library" in r.json()["message"]
    lib = open_library(server.session.settings, COMPANY, create=False)
    try:
        assert [e.answer for e in lib.entries()] == ["Yes. Net zero Scope 1 and 2 by 2050."]
    finally:
        lib.close()
    other = list(server.session.questions)[1]
    refused = server.client.post("/api/library", json={"key": other}, headers=server.headers)
    assert refused.status_code == 400 and "approved" in refused.json()["message"]


def test_a_change_saved_in_excel_is_read_again(server):
    path = server.session.path
    key = next(iter(server.session.questions))
    q, layout, _ = _cells(path, key)
    wb = openpyxl.load_workbook(path)
    sheet = layout.sheets[0]
    wb[sheet.name][f"{sheet.letter('answer')}{q.row}"] = "Typed in Excel meanwhile"
    wb.save(path)
    assert "Typed in Excel meanwhile" in server.client.get("/").text
    assert server.session.state(key)["answer"] == "Typed in Excel meanwhile"


def test_a_portfolio_folder_serves_each_filled_workbook(filled, tmp_path):
    from autofill.review_app.commands import _workbooks

    root, data, name = filled
    (tmp_path / name).write_bytes(data)
    (tmp_path / f"other_{name}").write_bytes(data)
    openpyxl.Workbook().save(tmp_path / "portfolio.xlsx")  # not a filled questionnaire: left out
    found = _workbooks(tmp_path)
    assert sorted(p.name for p in found) == sorted([name, f"other_{name}"])
    found = sorted(found, key=lambda p: p.name != f"other_{name}")  # wb=0: other_..., wb=1: the first
    sessions = [ReviewSession(Settings(workspace=root), p) for p in found]
    state = AppState(settings=Settings(workspace=root), sessions=sessions, token="t" * 24, port=PORT)
    client = TestClient(build_app(state), base_url=BASE)
    try:
        page = client.get("/", params={"token": state.token, "wb": "1"}).text
        assert f"<h1>Review: {name}</h1>" in page and page.count("<option value=\"1\" selected") == 1
    finally:
        state.close()


def test_another_host_warns_that_the_token_is_the_only_lock(tmp_path, workspace):
    from tests.review_app_helpers import ReviewServer

    path = make_output_workbook(tmp_path / "filled.xlsx")
    server = ReviewServer(workspace, path, args=("--host", "0.0.0.0"))
    assert server.url.startswith("http://0.0.0.0:") and "token=" in server.url
    assert server.stop() == 0
    assert "the token in it is the only lock" in server.stderr
    local = ReviewServer(workspace, path)
    assert local.url.startswith("http://127.0.0.1:")
    assert local.stop() == 0 and "only lock" not in local.stderr


def test_the_next_run_treats_browser_decisions_as_decisions_typed_in_excel(server, filled):
    root = filled[0]
    questionnaire, emb = RUN[root]
    path = server.session.path
    keys = list(server.session.questions)
    server.decide(keys[0], "Approve", answer="Yes, by 2050 (reviewed).")
    server.decide(keys[1], "Needs changes", reviewer_comment="Quote the committee's name")
    server.decide(keys[2], "Edit", answer="46% (typed by the reviewer)")
    server.session.flush()
    report = run_questionnaire(Settings(workspace=root), COMPANY, questionnaire, output=path,
                               providers=Providers(embedder=emb))
    assert report.output == path
    rows = {q.key: q for q in read_questions(Settings(workspace=root), path)[1]}
    assert (rows[keys[0]].existing_answer, rows[keys[0]].review) == ("Yes, by 2050 (reviewed).", "Approved")
    # No model in this run: the row waits for one, its Review and comment kept (issue 23).
    assert rows[keys[1]].status.startswith("Waiting for a model: Needs changes in review")
    assert rows[keys[1]].review == "Needs changes"
    assert rows[keys[1]].reviewer_comment == "Quote the committee's name"
    assert rows[keys[2]].existing_answer == "46% (typed by the reviewer)"
    assert rows[keys[2]].status.startswith("Edited by hand (Answer)")
    assert REVIEW_LOG_SHEET in openpyxl.load_workbook(path).sheetnames  # the run keeps the log
