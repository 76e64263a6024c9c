"""The screenshots of `autofill review` in the README (docs/review_app*.png): a workspace with the
Northwind sample report, a questionnaire answered through a loopback OpenAI-compatible model (tests'
scripted responder), the review server started by the CLI, and headless Chromium (Playwright, Debian's
chromium). Run from the repository root: python scripts/review_screenshots.py"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    from playwright.sync_api import expect, sync_playwright

    from autofill.answer.pipeline import run_questionnaire
    from autofill.providers.base import Providers
    from autofill.providers.factory import make_chat
    from tests.answer_helpers import COMPANY, FACTS, MARKERS, make_questionnaire, make_workspace
    from tests.llm_server import LLMServer, by_marker
    from tests.review_app_helpers import CHROMIUM_ARGS, ReviewServer, chromium_path

    out_dir = ROOT / "docs"
    with tempfile.TemporaryDirectory() as tmp, LLMServer(responder=by_marker(MARKERS)) as llm:
        root = Path(tmp)
        settings, emb = make_workspace(root, filler=False)
        settings.llm.provider, settings.llm.base_url, settings.llm.api_key = "openai", llm.base_url, "sk-test"
        settings.llm.model = "gpt-4o-mini"
        questionnaire = make_questionnaire(root / "questionnaire.xlsx", FACTS)
        report = run_questionnaire(settings, COMPANY, questionnaire,
                                   providers=Providers(embedder=emb, chat=make_chat(settings)))
        server = ReviewServer(root, report.output)
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
                a = browser.new_context(viewport={"width": 1400, "height": 900}, device_scale_factor=1)
                a.add_init_script("localStorage.setItem('autofillReviewer', 'Ana')")
                page = a.new_page()
                page.goto(server.url)
                first = page.locator("article").first
                first.get_by_label("Reviewer comment").fill("Checked against the targets page.")
                first.get_by_role("button", name="Approve").click()
                expect(first.get_by_role("status")).to_have_text("Saved")
                second = page.locator("article").nth(1)
                second.get_by_label("Answer").click()
                page.wait_for_timeout(800)  # lazy page images
                page.evaluate("window.scrollTo(0, 0)")
                page.screenshot(path=str(out_dir / "review_app.png"))
                # A second reviewer saves over a row Ana changed: both versions are shown.
                b = browser.new_context(viewport={"width": 1400, "height": 900})
                b.add_init_script("localStorage.setItem('autofillReviewer', 'Ben')")
                page_b = b.new_page()
                page_b.goto(server.url)
                row_b = page_b.locator("article").nth(1)
                second.get_by_label("Answer").fill("The Board Sustainability Committee (four meetings a year).")
                second.get_by_role("button", name="Needs changes").click()
                expect(second.get_by_role("status")).to_have_text("Saved")
                row_b.get_by_label("Answer").fill("The Sustainability Committee of the Board.")
                row_b.get_by_role("button", name="Approve").click()
                expect(row_b.locator(".conflict")).to_be_visible()
                row_b.locator(".conflict").evaluate(
                    "c => window.scrollTo(0, c.getBoundingClientRect().top + window.scrollY - 330)")
                page_b.wait_for_timeout(500)
                page_b.screenshot(path=str(out_dir / "review_app_conflict.png"))
                browser.close()
        finally:
            server.stop()
    print("wrote", out_dir / "review_app.png", out_dir / "review_app_conflict.png")


if __name__ == "__main__":
    main()
