"""A reviewer's decision is checked like a model's answer, in a real headless Chromium (Debian's, through
Playwright for Python) against `autofill review` started as users start it, over a workbook filled by a
real run from a test-generated PDF report:

- an answer edited to a figure that is on none of its cited pages shows the failed check (and the tier
  it gives) as soon as it is saved, before any approval;
- approving it (the keyboard's `a`) asks for a confirmation that names the check; confirmed, the row is
  Approved with the check still listed, and the confirmation is in the Review log;
- the next `autofill run` (the real CLI, its own process) keeps Tier `Approved` with the failed check in
  Checks, and the answer library takes the answer with the reviewer's override;
- a value that is not in a question's drop-down list is refused without a confirmation (the workbook never
  receives it), and the page offers the list."""

from __future__ import annotations

import json

import openpyxl
import pytest

from autofill.library.store import open_library
from autofill.review_app.apply import read_log
from autofill.settings import Settings
from tests import cli_process
from tests.answer_helpers import COMPANY, FACTS
from tests.review_app_helpers import ReviewServer, fill_offline, server_env
from tests.test_review_app_browser import browser  # noqa: F401 - Debian's Chromium, as the other browser tests

pytestmark = pytest.mark.slow
sync_api = pytest.importorskip("playwright.sync_api", reason="pip install 'autofill[test]' (playwright)")
expect = sync_api.expect

FIGURE = "987,654 tCO2e of renewable electricity in FY2024"
FAILED = "987,654 tCO2e not in cited passages"
DROPDOWN, FIGURE_ROW = FACTS[0], FACTS[2]  # FACTS[0]: a Yes / No / Partially / Not disclosed drop-down


def _cells(path, question: str) -> dict[str, object]:
    ws = openpyxl.load_workbook(path)["Questionnaire"]
    header = next(r for r in ws.iter_rows(max_row=10) if any(c.value == "Question" for c in r))
    col = {c.value: c.column for c in header if c.value}
    row = next(r for r in range(header[0].row + 1, ws.max_row + 1) if ws.cell(r, col["Question"]).value == question)
    return {name: ws.cell(row, c).value for name, c in col.items()}


def _article(page, question: str):
    return page.locator("article", has=page.get_by_role("heading", name=question))


def test_a_reviewers_answer_is_checked_and_an_approval_over_a_failed_check_is_confirmed(browser, tmp_path):
    root = tmp_path
    out = fill_offline(root, FACTS[:3])
    with ReviewServer(root, out) as server:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        context.add_init_script("localStorage.setItem('autofillReviewer', 'Ana')")
        page = context.new_page()
        dialogs: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto(server.url)

        # Edited to a figure on none of the cited pages: the failed check shows once it is saved.
        row = _article(page, FIGURE_ROW.question)
        answer = row.get_by_label("Answer", exact=True)
        answer.fill(FIGURE)
        answer.press("Escape")  # leaves the box: saved as an edit, checked at once
        expect(row.get_by_role("status")).to_have_text("Saved")
        expect(row.locator('[data-role="checks"]')).to_contain_text(FAILED)
        expect(row.locator('[data-role="tier"]')).to_have_text("Needs work")

        # `a` approves the current row: held back until the reviewer confirms the check by name.
        page.keyboard.press("a")
        confirm = row.get_by_role("alertdialog")
        expect(confirm).to_contain_text("Approve although these checks failed?")
        expect(confirm).to_contain_text(FAILED)
        expect(row.locator('[data-role="review"]')).to_have_text("Not reviewed")
        confirm.get_by_role("button", name="Approve anyway").click()
        expect(row.get_by_role("status")).to_have_text("Saved")
        expect(row.locator('[data-role="review"]')).to_have_text("Approved")
        expect(row.locator('[data-role="tier"]')).to_have_text("Approved")
        expect(row.locator('[data-role="checks"]')).to_contain_text(FAILED)  # approval hides no failure

        # A value off the drop-down list is not saved unconfirmed; the page offers the list instead.
        dropdown = _article(page, DROPDOWN.question)
        box = dropdown.get_by_label("Answer", exact=True)
        box.fill("Maybe")
        box.press("Escape")
        refused = dropdown.get_by_role("alertdialog")
        expect(refused).to_contain_text("Save a value that is not in the drop-down list?")
        expect(refused).to_contain_text(
            "'Maybe' is not one of the drop-down values (Yes, No, Partially, Not disclosed)")
        refused.get_by_role("button", name="Cancel").click()
        expect(dropdown.get_by_role("status")).to_have_text("Not saved")
        expect(box).to_have_value("")  # back to what is saved
        choices = dropdown.get_by_label("Drop-down values")
        assert choices.locator("option").all_inner_texts() == ["Choose…", "Yes", "No", "Partially", "Not disclosed"]
        choices.select_option("Yes")
        expect(dropdown.get_by_role("status")).to_have_text("Saved")
        expect(box).to_have_value("Yes")
        context.close()
        assert server.stop() == 0, server.stderr
    assert not dialogs

    figure = _cells(out, FIGURE_ROW.question)
    assert (figure["Answer"], figure["Review"], figure["Tier"]) == (FIGURE, "Approved", "Approved")
    assert FAILED in figure["Checks"]
    assert _cells(out, DROPDOWN.question)["Answer"] == "Yes"  # "Maybe" never reached the cell
    approvals = [x for x in read_log(out) if x["Action"] == "Approve"]
    assert approvals and all(x["Reviewer"] == "Ana" for x in approvals)
    assert f"Approved over failed checks, confirmed by the reviewer:\n- {FAILED}" in approvals[0]["Note"]

    # The next run (the CLI, no model: evidence-only) keeps the approval and lists the failed check.
    done = cli_process.run(["--workspace", str(root), "run", "--company", COMPANY,
                            "--questionnaire", str(root / "questionnaire.xlsx"), "--json"], timeout=600, env=server_env())
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1])["output"] == str(out)
    figure = _cells(out, FIGURE_ROW.question)
    assert (figure["Answer"], figure["Review"], figure["Tier"]) == (FIGURE, "Approved", "Approved")
    assert FAILED in figure["Checks"] and figure["Status"].startswith("Approved in review")
    with open_library(Settings(workspace=root), COMPANY, create=False) as lib:
        entry = lib.get(FIGURE_ROW.question)
    assert entry is not None and entry.answer == FIGURE
    assert FAILED in entry.checks and FAILED in entry.override and entry.refused == ""
