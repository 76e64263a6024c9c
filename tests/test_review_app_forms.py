"""`autofill review` on a filled form (issue 45), as users run it: a small named-range form
(tests/forms_answer_helpers.build_form, with an x14 cross-sheet drop-down added) filled by `autofill run`
offline and with the loopback model, then `autofill review FORM --no-browser --json` in its own process,
spoken to over real HTTP: the datapoints are the page's rows (label, section, named range and cell, value
with unit, Status, checks, cited pages), values are checked as their type (400 naming the datapoint,
nothing recorded), and an approval or edit writes the value into the input cell at the package level
(x14 drop-down kept) with a Review log line, the decision in the sidecar first."""

from __future__ import annotations

import re
import sqlite3
import zipfile
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import httpx
import openpyxl
import pytest

from autofill.review_app.apply import read_log
from autofill.review_app.security import csrf_token
from autofill.review.sidecar import sidecar_path
from tests.form_builders import add_x14_validation
from tests.forms_answer_helpers import ENV, build_form, build_report, responder
from tests.review_app_helpers import CHROMIUM_ARGS, ReviewServer, chromium_path, server_env
from tests.rows_helpers import cli, env_for, last_json

COMPANY = "Acme Fabrication"
SCOPE1, SCOPE2, KINDS, PLAN = f"{ENV}!D5", f"{ENV}!D6", f"{ENV}!D10", f"{ENV}!D9"


def _fill(tmp_path, llm_server, offline: bool):
    llm_server.responder = responder()
    build_report(tmp_path / "reports")
    form, _ = build_form(tmp_path / "form.xlsx")
    add_x14_validation(form, ENV, "D12")
    env = env_for(llm_server)
    assert cli(tmp_path, env, "ingest", "--company", COMPANY, "reports").returncode == 0
    done = cli(tmp_path, env_for(llm_server, offline=offline), "run", "--company", COMPANY, "--questionnaire",
               "form.xlsx", "--year", "2024", "--json", "--out", "out")
    assert done.returncode == 0, done.stderr
    return last_json(done)


class Client:
    """The page's calls over real HTTP: the token from the printed URL, the CSRF header, our Origin."""

    def __init__(self, server: ReviewServer):
        self.token = parse_qs(urlparse(server.url).query)["token"][0]
        self.http = httpx.Client(base_url=server.base, timeout=30, follow_redirects=True)
        self.headers = {"X-Review-Token": self.token, "X-CSRF-Token": csrf_token(self.token), "Origin": server.base}

    def page(self) -> str:
        r = self.http.get("/", params={"token": self.token})
        assert r.status_code == 200, r.text
        return r.text

    def undo(self, key: str) -> httpx.Response:
        base = self.http.get("/api/row", params={"key": key}, headers=self.headers).json()["version"]
        return self.http.post("/api/undo", headers=self.headers, json={"key": key, "base": base, "reviewer": "Ana"})

    def decide(self, key: str, action: str, **values) -> httpx.Response:
        base = self.http.get("/api/row", params={"key": key}, headers=self.headers).json()["version"]
        return self.http.post("/api/decide", headers=self.headers, json={
            "key": key, "base": base, "reviewer": "Ana", "action": action, "values": values})


def _decisions(workbook) -> int:
    with sqlite3.connect(sidecar_path(workbook)) as db:
        return db.execute("SELECT count(*) FROM decisions").fetchone()[0]


def test_review_of_a_form_filled_with_the_model_shows_datapoints_and_writes_typed_values(tmp_path, llm_server):
    result = _fill(tmp_path, llm_server, offline=False)
    output = tmp_path / result["output"] if not result["output"].startswith("/") else result["output"]
    before = openpyxl.load_workbook(output)[ENV]
    assert before["D5"].value == 1250 and before["D6"].value is None  # Scope 2's invented figure waits

    # The review report lists each datapoint (named range, cell, label) with its cited pages.
    report = cli(tmp_path, env_for(llm_server), "report", str(output), "--json")
    assert report.returncode == 0, report.stderr
    html = Path(last_json(report)["report"]).read_text(encoding="utf-8")
    for text in ("GrossLocationBasedScope2GreenhouseGasEmissions", f"{ENV}!D6",
                 "Gross location-based Scope 2 GHG emissions (tCO2e)", "Acme report 2024.pdf"):
        assert text in html, text
    assert len(set(re.findall(r'<article class="question[^"]*" id="([^"]+)"', html))) == 8  # one per datapoint

    with ReviewServer(tmp_path, output, env=server_env()) as server:
        c = Client(server)
        page = c.page()
        # The datapoints as rows: label, section, named range and cell, value with unit, cited page, Status.
        for text in ("Gross Scope 1 GHG emissions (tCO2e)", "GrossScope1GreenhouseGasEmissions",
                     f"{ENV}!D5", "Acme report 2024.pdf p. 2", "waiting for approval",
                     "Type of number of employees", "Full-time equivalent (FTE)"):
            assert text in page, text
        assert 'type="number"' in page and 'value="1250"' in page
        assert "Value the run left waiting for approval: 640" in page

        raw = server.workbook.read_bytes()
        bad = c.decide(SCOPE2, "Approve", answer="about six hundred")
        assert bad.status_code == 400
        assert "Gross location-based Scope 2" in bad.json()["message"] and "not a number" in bad.json()["message"]
        wrong = c.decide(KINDS, "Edit", answer="Contractors")
        assert wrong.status_code == 400 and "Headcount" in wrong.json()["message"]
        total = c.decide(f"{ENV}!D11", "Edit", answer="2000")
        assert total.status_code == 400 and "formula" in total.json()["message"]
        assert _decisions(server.workbook) == 0 and server.workbook.read_bytes() == raw

        ok = c.decide(SCOPE2, "Approve", answer="0.7 kt CO2e")  # converted into the form's unit
        assert ok.status_code == 200, ok.text
        assert ok.json()["state"]["answer"] == "700" and ok.json()["state"]["review"] == "Approved"
        assert _decisions(server.workbook) == 1  # in the sidecar when the page is told "Saved"
        assert c.decide(KINDS, "Edit", answer="headcount", reviewer_comment="as counted").status_code == 200
        assert c.decide(PLAN, "Reject").status_code == 200
        assert server.stop() == 0, server.stderr

    wb = openpyxl.load_workbook(output)
    env = wb[ENV]
    assert env["D6"].value == 700 and env["D10"].value == "Headcount" and env["D5"].value == 1250
    assert env["D9"].value == "YES"  # rejected: the cell is left as the run wrote it
    assert "Evidence" in wb.sheetnames and "Run info" in wb.sheetnames
    log = read_log(output)
    lines = {(line["Row"], line["Field"]): line for line in log}
    assert lines[("D6", "Value")]["After"] == "700" and lines[("D6", "Review")]["After"] == "Approved"
    assert lines[("D10", "Reviewer comment")]["After"] == "as counted"
    assert "GrossLocationBasedScope2GreenhouseGasEmissions" in lines[("D6", "Value")]["Question"]
    with zipfile.ZipFile(output) as z:  # written at the package level: the x14 drop-down is still there
        assert any("x14:dataValidation" in z.read(n).decode() for n in z.namelist() if n.startswith("xl/worksheets/"))
    # The total's cached value follows the reviewed Scope 2 (patch_bytes brought it up to date).
    assert openpyxl.load_workbook(output, data_only=True)[ENV]["D11"].value == 1950

    # A second review reads the decisions back: Scope 2 approved (locked), the rejection and comment kept.
    with ReviewServer(tmp_path, output, env=server_env()) as server:
        c = Client(server)
        page = c.page()
        assert "as counted" in page
        locked = c.decide(SCOPE2, "Edit", answer="800")
        assert locked.status_code == 400 and "approved" in locked.json()["message"]
        assert c.decide(SCOPE1, "Edit", answer="1300").status_code == 200
        assert server.stop() == 0, server.stderr
    assert openpyxl.load_workbook(output)[ENV]["D5"].value == 1300
    assert len([line for line in read_log(output) if line["Field"] == "Value"]) == 2  # "headcount" is the cell's Headcount already


def test_review_of_a_form_filled_offline_approves_a_typed_value(tmp_path, llm_server):
    result = _fill(tmp_path, llm_server, offline=True)
    output = result["output"]
    assert openpyxl.load_workbook(output)[ENV]["D5"].value is None  # drafts: nothing written
    with ReviewServer(tmp_path, output, env=server_env()) as server:
        c = Client(server)
        page = c.page()
        assert "GrossScope1GreenhouseGasEmissions" in page and "draft" in page
        empty = c.decide(SCOPE1, "Approve")
        assert empty.status_code == 400 and "no value" in empty.json()["message"]
        assert c.decide(SCOPE1, "Approve", answer="1250").status_code == 200
        assert c.decide(PLAN, "Edit", answer="true").status_code == 200  # the drop-down's YES
        assert c.decide(f"{ENV}!D7", "Needs changes", reviewer_comment="check the GJ table").status_code == 200
        again = c.http.post("/api/reanswer", headers=c.headers, json={
            "key": f"{ENV}!D7", "base": c.http.get("/api/row", params={"key": f"{ENV}!D7"},
                                                    headers=c.headers).json()["version"], "reviewer": "Ana"})
        assert again.status_code == 400 and "autofill run" in again.json()["message"]
        assert server.stop() == 0, server.stderr
    env = openpyxl.load_workbook(output)[ENV]
    assert env["D5"].value == 1250 and env["D9"].value == "YES"


def test_undoing_the_approval_of_a_waiting_value_takes_it_out_of_the_form_again(tmp_path, llm_server):
    output = _fill(tmp_path, llm_server, offline=False)["output"]
    assert openpyxl.load_workbook(output)[ENV]["D6"].value is None  # Scope 2's 640 waits for approval
    with ReviewServer(tmp_path, output, env=server_env()) as server:
        c = Client(server)
        approved = c.decide(SCOPE2, "Approve")  # the waiting value as the run left it
        assert approved.status_code == 200 and approved.json()["state"]["answer"] == "640", approved.text
        # Approved and undone before the writer ran: the value never reaches the form.
        assert c.decide(SCOPE1, "Edit", answer="1300").status_code == 200
        undone = c.undo(SCOPE1)
        assert undone.status_code == 200 and undone.json()["state"]["answer"] == "1250", undone.text
        assert server.stop() == 0, server.stderr
    env = openpyxl.load_workbook(output)[ENV]
    assert env["D6"].value == 640 and env["D5"].value == 1250  # the approval written; the undone edit not
    approval = next(line["Decision"] for line in read_log(output) if line["Row"] == "D6" and line["Action"] == "Approve")

    # A later review takes the approval back: the cell holds again what it held before (nothing), the
    # page shows the value waiting again, and the Review log links the Undo to the approval.
    with ReviewServer(tmp_path, output, env=server_env()) as server:
        c = Client(server)
        undone = c.undo(SCOPE2)
        assert undone.status_code == 200, undone.text
        assert undone.json()["state"]["answer"] == "640" and undone.json()["state"]["review"] == ""
        assert server.stop() == 0, server.stderr
    assert openpyxl.load_workbook(output)[ENV]["D6"].value is None
    assert openpyxl.load_workbook(output, data_only=True)[ENV]["D11"].value == 1250  # the total follows
    undo_lines = [line for line in read_log(output) if line["Row"] == "D6" and line["Action"] == "Undo"]
    assert undo_lines and all(line["Undoes"] == approval for line in undo_lines), undo_lines
    with ReviewServer(tmp_path, output, env=server_env()) as server:
        page = Client(server).page()
        assert "Value the run left waiting for approval: 640" in page
        assert server.stop() == 0, server.stderr


@pytest.mark.slow
def test_review_of_a_form_in_the_browser_types_a_number_and_picks_a_drop_down_value(tmp_path, llm_server):
    sync_api = pytest.importorskip("playwright.sync_api", reason="pip install 'autofill[test]' (playwright)")
    path = chromium_path()
    if path is None:
        pytest.skip("Chromium is not installed: run scripts/install_test_deps.sh")
    sync_api.expect.set_options(timeout=30_000)
    output = _fill(tmp_path, llm_server, offline=True)["output"]
    with ReviewServer(tmp_path, output, env=server_env()) as server, sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        context.add_init_script("localStorage.setItem('autofillReviewer', 'Ana')")
        page = context.new_page()
        page.goto(server.url)
        scope1 = page.locator("article", has=page.get_by_role("heading", name="Gross Scope 1 GHG emissions (tCO2e)"))
        sync_api.expect(scope1.locator('[data-role="datapoint"]')).to_have_text(
            f"GrossScope1GreenhouseGasEmissions · {ENV}!D5")
        value = scope1.get_by_label("Value (tCO2e)")
        sync_api.expect(value).to_have_attribute("type", "number")
        value.fill("1250")
        scope1.get_by_role("button", name="Approve").click()
        sync_api.expect(scope1.locator('[data-role="saved"]')).to_have_text("Saved")
        sync_api.expect(value).not_to_be_editable()
        kinds = page.locator("article", has=page.get_by_role("heading", name="Type of number of employees"))
        kinds.get_by_label("Value").select_option("Headcount")
        sync_api.expect(kinds.locator('[data-role="saved"]')).to_have_text("Saved")
        context.close()
        browser.close()
        assert server.stop() == 0, server.stderr
    env = openpyxl.load_workbook(output)[ENV]
    assert env["D5"].value == 1250 and env["D10"].value == "Headcount"
