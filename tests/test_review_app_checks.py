"""review_app/checking.py through the review server in-process (Starlette's TestClient, a workbook
filled by a real offline run over the sample PDF, its real evidence store): a save is checked at once
and answers with the row's new Tier and Checks; an empty answer is never approved; an approval over
failed checks, and a value off the drop-down list, wait (428) until the reviewer confirms the checks
by name, and the confirmation is the decision's note in the sidecar and the Review log, with the
row's Tier and Checks written beside it; an undo is checked again."""

from __future__ import annotations

import openpyxl

from autofill.review_app.apply import read_log
from autofill.review_app.checking import EMPTY
from tests.answer_helpers import FACTS
from tests.test_review_app import Server, filled, server  # noqa: F401 - the module's fixtures

FAILED = "987,654 tCO2e not in cited passages"
OFF_LIST = "'Maybe' is not one of the drop-down values (Yes, No, Partially, Not disclosed)"


def _key(srv, question: str) -> str:
    return next(k for k, q in srv.session.questions.items() if q.question == question)


def _post(srv, key, action, confirm=None, **values):
    body = {"key": key, "base": srv.version(key), "reviewer": "Ana", "action": action, "values": values,
            "confirm": confirm or []}
    return srv.client.post("/api/decide", json=body, headers=srv.headers)


def test_a_save_is_checked_and_an_approval_over_a_failed_check_needs_its_confirmation(server):
    key = _key(server, FACTS[2].question)
    edited = _post(server, key, "Edit", answer="987,654 tCO2e of renewable electricity in FY2024")
    assert edited.status_code == 200, edited.text
    assert (edited.json()["tier"], edited.json()["checks"]) == ("Needs work", [FAILED])

    held = _post(server, key, "Approve")
    assert held.status_code == 428 and held.json()["confirm"] == [FAILED] and held.json()["approve"]
    assert server.session.state(key)["review"] == ""  # nothing saved
    wrong = _post(server, key, "Approve", confirm=["some other check"])
    assert wrong.status_code == 428
    done = _post(server, key, "Approve", confirm=[FAILED])
    assert done.status_code == 200 and (done.json()["tier"], done.json()["checks"]) == ("Approved", [FAILED])
    decision = server.session.store.all()[-1]
    assert decision.action == "Approve" and FAILED in decision.note and decision.after["checks"] == FAILED

    server.session.flush()
    [approve] = [x for x in read_log(server.session.path) if x["Action"] == "Approve"]
    assert approve["Note"] == f"Approved over failed checks, confirmed by the reviewer:\n- {FAILED}"
    ws = openpyxl.load_workbook(server.session.path)["Questionnaire"]
    header = {c.value: c.column for r in ws.iter_rows(max_row=10) for c in r if c.value in ("Tier", "Checks")}
    row = int(key.rpartition("!")[2])
    assert (ws.cell(row, header["Tier"]).value, ws.cell(row, header["Checks"]).value) == ("Approved", FAILED)
    # The page shows the same after a reload.
    page = server.client.get("/").text
    assert FAILED in page


def test_an_empty_answer_is_never_approved(server):
    key = _key(server, FACTS[1].question)
    refused = _post(server, key, "Approve", answer="   ")
    assert refused.status_code == 400 and refused.json()["message"] == EMPTY
    assert _post(server, key, "Approve", confirm=["no answer"]).status_code == 400


def test_an_off_list_value_waits_for_its_confirmation_and_the_list_spelling_is_kept(server):
    key = _key(server, FACTS[0].question)
    held = _post(server, key, "Edit", answer="Maybe")
    assert held.status_code == 428 and held.json()["confirm"] == [OFF_LIST] and not held.json()["approve"]
    assert server.session.state(key)["answer"] == ""  # the cell never receives it unconfirmed
    saved = _post(server, key, "Edit", answer="yes")
    assert saved.status_code == 200 and saved.json()["state"]["answer"] == "Yes"  # the list's spelling
    assert 'data-role="choices"' in server.client.get("/").text  # the page offers the list
    confirmed = _post(server, key, "Needs changes", confirm=[OFF_LIST], answer="Maybe")
    assert confirmed.status_code == 200
    assert server.session.store.all()[-1].note.startswith("Saved over failed checks, confirmed by the reviewer:")


def test_an_undo_is_checked_again(server):
    key = _key(server, FACTS[2].question)
    q = server.session.questions[key]
    _post(server, key, "Edit", answer="46% in FY2024")
    _post(server, key, "Edit", answer="987,654 tCO2e of renewable electricity in FY2024")

    def undo():
        return server.client.post("/api/undo", json={"key": key, "base": server.version(key), "reviewer": "Ana"},
                                  headers=server.headers).json()

    back = undo()  # to the first edit: its cells checked again
    assert back["state"]["answer"] == "46% in FY2024" and FAILED not in back["checks"]
    back = undo()  # to the workbook as it was: its own Tier and Checks
    assert (back["tier"], "; ".join(back["checks"])) == (q.tier, q.checks)


def test_without_an_evidence_store_the_workbooks_evidence_sheet_is_checked_against(tmp_path, workspace):
    from autofill.settings import Settings
    from tests.review_fixtures import make_output_workbook

    srv = Server(Settings(workspace=workspace), make_output_workbook(tmp_path / "filled.xlsx"))
    try:
        key = next(k for k, q in srv.session.questions.items() if q.sources and q.evidence and not q.review)
        r = _post(srv, key, "Edit", answer="987,654 tCO2e by 2050")
        assert r.status_code == 200 and FAILED in r.json()["checks"], r.json()
        cited = srv.session.checker.check(key, {**srv.session.state(key), "sources": "other.pdf p. 9"})
        assert "cited page not in the workbook's Evidence sheet: other.pdf p. 9" in cited.failed
    finally:
        srv.close()


def test_the_status_follows_an_answer_edited_in_review(tmp_path):
    """Through the real server process: a Yes/No row whose answer did not start with Yes or No says so in
    its Status; edited to "Yes" in review, its Status becomes what the next run writes for an edited row
    (no stale "answer does not start with ..."), back again on undo, and so in the workbook and the page."""
    import http.client
    import json

    from autofill.checks.tier import decide_tier
    from autofill.records import Answer, RowResult
    from autofill.settings import Settings
    from autofill.workbook.layout import read_questions
    from autofill.workbook.writeback import write_results
    from tests.review_app_helpers import ReviewServer
    from tests.test_review_app_limits import _address, _post as post, _version
    from tests.workbook_builders import build_questionnaire

    src = build_questionnaire(tmp_path / "q.xlsx", dropdown=False)
    layout, rows = read_questions(Settings(), src)
    results = []
    for q in rows:
        res = RowResult(q, Answer(answer="Probably so", reasoning="From the report.", confidence="high"), [])
        res.tier = decide_tier(res.checks)
        results.append(res)
    out = write_results(Settings(), src, layout, results, tmp_path / "filled.xlsx", {})
    stale = "Answered; answer does not start with one of Yes, No"
    edited = "Edited by hand (Answer): kept as the reviewer left it"
    key, other = rows[0].key, rows[1].key
    assert [q.status for q in read_questions(Settings(), out)[1][:2]] == [stale, stale]
    (tmp_path / "ws").mkdir()
    with ReviewServer(tmp_path / "ws", out) as srv:
        body = {"key": key, "base": _version(srv, key), "reviewer": "Ana", "action": "Edit", "values": {"answer": "Yes"}}
        status, saved = post(srv, "decide", json.dumps(body).encode())
        assert status == 200 and saved["status"] == edited, saved
        status, undone = post(srv, "undo", json.dumps({"key": key, "base": saved["version"], "reviewer": "Ana"}).encode())
        assert status == 200 and undone["status"] == stale, undone
        status, saved = post(srv, "decide", json.dumps({**body, "base": undone["version"]}).encode())
        assert status == 200 and saved["status"] == edited
        host, port, token = _address(srv)
        conn = http.client.HTTPConnection(host, port, timeout=60)
        conn.request("GET", "/", headers={"X-Review-Token": token})
        page = conn.getresponse().read().decode()
        assert page.count(f">{edited}<") == 1 and page.count(f">{stale}<") == 1  # the other Yes/No row
        assert srv.stop() == 0
    statuses = {q.key: q.status for q in read_questions(Settings(), out)[1]}
    assert statuses[key] == edited and statuses[other] == stale
