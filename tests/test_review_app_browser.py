"""`autofill review` driven in a real headless Chromium (Debian's, through Playwright for Python) against
a workbook filled offline by a real run from a test-generated PDF report, the server started as users
start it (the CLI, in its own process). A reviewer edits an Answer and approves: the page says Saved and,
once the server stops, the workbook holds both. Also: the token lock, two browsers in conflict, a kill -9
right after a save (nothing lost: `--apply` writes it), HTML and script in PDF text and answers shown as
text, keyboard use, re-answering a Needs-changes row through a loopback OpenAI-compatible model, and slow
saves (the real server's reply held back in the browser) with typing in between: never overwritten."""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest

from autofill.settings import Settings
from autofill.workbook.layout import read_questions
from tests import cli_process
from tests.answer_helpers import FACTS, MARKERS
from tests.llm_server import LLMServer, by_marker, message_text
from tests.review_app_helpers import CHROMIUM_ARGS, ReviewServer, chromium_path, fill_offline, server_env
from tests.review_fixtures import HOSTILE_TEXT, PDF_NAME, make_output_workbook, make_report_pdf

pytestmark = pytest.mark.slow
sync_api = pytest.importorskip("playwright.sync_api", reason="pip install 'autofill[test]' (playwright)")
expect = sync_api.expect
# A save on a loaded machine (the suite beside other work) takes seconds, the first most (it opens the
# store to check the answer): waiting for "Saved" longer than Playwright's 5 s is no slower when it comes.
expect.set_options(timeout=30_000)


@pytest.fixture(scope="module")
def browser():
    path = chromium_path()
    if path is None:
        pytest.skip("Chromium is not installed: run scripts/install_test_deps.sh")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def filled(tmp_path_factory):
    root = tmp_path_factory.mktemp("ws")
    return root, fill_offline(root, FACTS[:3])


@pytest.fixture
def workbook(filled, tmp_path):
    """A fresh copy of the filled workbook for each test (its PDF found through the store's record)."""
    root, out = filled
    copy = tmp_path / out.name
    copy.write_bytes(out.read_bytes())
    return root, copy


def _open(browser, url: str, name: str | None = "Ana"):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    if name:
        context.add_init_script(f"localStorage.setItem('autofillReviewer', {name!r})")
    page = context.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(url)
    return context, page, dialogs


def _row(path, question: str):
    _, rows = read_questions(Settings(workspace=path.parent), path)
    return next(q for q in rows if q.question == question)


def _article(page, question: str):
    return page.locator("article", has=page.get_by_role("heading", name=question))


def test_edit_and_approve_in_the_browser_lands_in_the_workbook(browser, workbook):
    root, path = workbook
    question = FACTS[0].question
    with ReviewServer(root, path) as server:
        # No token, wrong token: refused.
        for url in (server.base + "/", server.base + "/?token=wrong"):
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(url, timeout=10)
            assert refused.value.code in (401, 403)
        context, page, dialogs = _open(browser, server.url, name=None)
        # The reviewer's name is asked once per browser.
        page.get_by_label("Your name").fill("Ana Reviewer")
        page.get_by_role("button", name="Save name").click()
        article = _article(page, question)
        expect(article.get_by_label("Answer")).to_have_value("")  # an evidence-only draft: no answer yet
        expect(article.locator("mark").first).to_be_visible()  # the supporting sentence is highlighted
        image = article.locator("img.pageimg").first
        image.scroll_into_view_if_needed()
        expect(image).to_have_js_property("complete", True)
        assert image.evaluate("i => i.naturalWidth") > 300  # the cited page rendered
        # A drop-down question: the Answer cell takes a value of its list, the explanation goes to Reasoning.
        article.get_by_label("Answer").fill("Yes")
        article.get_by_label("Reasoning").fill("Net zero Scope 1 and 2 by 2050, checked on p. 2.")
        article.get_by_role("button", name="Approve").click()
        expect(article.get_by_role("status")).to_have_text("Saved")
        expect(article.get_by_label("Answer")).not_to_be_editable()  # approved: locked until reopened
        expect(page.locator("#progress")).to_contain_text("1 of 3 reviewed")
        context.close()
        assert server.stop() == 0, server.stderr
    row = _row(path, question)
    assert (row.existing_answer, row.review) == ("Yes", "Approved")
    assert not dialogs


def test_two_reviewers_conflict_and_see_both_versions(browser, workbook):
    root, path = workbook
    question = FACTS[1].question
    with ReviewServer(root, path) as server:
        ctx_a, page_a, _ = _open(browser, server.url, "Ana")
        ctx_b, page_b, _ = _open(browser, server.url, "Ben")
        a, b = _article(page_a, question), _article(page_b, question)
        a.get_by_label("Answer").fill("Ana: the Board Sustainability Committee")
        a.get_by_role("button", name="Needs changes").click()
        expect(a.get_by_role("status")).to_have_text("Saved")
        b.get_by_label("Answer").fill("Ben: the Audit Committee")
        b.get_by_role("button", name="Approve").click()
        expect(b.get_by_role("status")).to_contain_text("Not saved")
        conflict = b.locator(".conflict")
        expect(conflict.locator('[data-version="theirs"]')).to_contain_text("Ana: the Board Sustainability Committee")
        expect(conflict.locator('[data-version="yours"]')).to_contain_text("Ben: the Audit Committee")
        conflict.get_by_role("button", name="Keep mine").click()
        expect(b.get_by_role("status")).to_have_text("Saved")
        # Keyboard: j moves to the next row, e focuses its Answer, a approves (an empty answer never is).
        page_a.reload()
        page_a.keyboard.press("j")
        page_a.keyboard.press("e")
        focused = page_a.evaluate("document.activeElement.closest('article').dataset.key")
        page_a.keyboard.type("Yes")
        page_a.keyboard.press("Escape")
        page_a.keyboard.press("a")
        keyed = page_a.locator(f'article[data-key="{focused}"]')
        expect(keyed.get_by_role("status")).to_have_text("Saved")
        ctx_a.close()
        ctx_b.close()
        assert server.stop() == 0, server.stderr
    row = _row(path, question)
    assert (row.existing_answer, row.review) == ("Ben: the Audit Committee", "Approved")
    from autofill.review_app.apply import read_log

    who = {(x["Reviewer"], x["Action"]) for x in read_log(path)}
    assert {("Ana", "Needs changes"), ("Ben", "Approve")} <= who


def test_kill_9_right_after_a_save_loses_nothing(browser, workbook):
    root, path = workbook
    question = FACTS[2].question
    lock = path.parent / f"~${path.name}"
    lock.write_text("Excel")  # the workbook is open in Excel: the decision waits in the sidecar
    with ReviewServer(root, path) as server:
        context, page, _ = _open(browser, server.url)
        article = _article(page, question)
        article.get_by_label("Answer").fill("46% renewable electricity in FY2024")
        article.get_by_role("button", name="Approve").click()
        expect(article.get_by_role("status")).to_contain_text("Saved; not yet in the workbook")
        expect(page.locator("#pending")).to_contain_text("close")
        server.proc.kill()  # kill -9: no shutdown handler runs
        server.stop()
        context.close()
    assert _row(path, question).review == ""  # nothing written while Excel had it open
    lock.unlink()
    done = cli_process.run(["--workspace", str(root), "review", str(path), "--apply"], timeout=120, env=server_env())
    # The edit (saved when the Answer lost focus) and the approval.
    assert done.returncode == 0 and "2 decisions written" in done.stdout, done.stderr
    row = _row(path, question)
    assert (row.existing_answer, row.review) == ("46% renewable electricity in FY2024", "Approved")


def test_typing_in_a_tab_that_is_closed_is_not_lost(browser, workbook):
    root, path = workbook
    question = FACTS[1].question
    with ReviewServer(root, path) as server:
        context, page, _ = _open(browser, server.url)
        _article(page, question).get_by_label("Reviewer comment").fill("Typed, then the tab was closed")
        # No blur, no button: the page sends it as it goes (or, failing that, the draft kept in the
        # browser is put back and saved when the page is opened again).
        page.close(run_before_unload=True)
        for _ in range(40):
            again = context.new_page()
            try:
                again.goto(server.url)
            except sync_api.Error as exc:  # say what became of the server (seen: connection refused)
                code = server.proc.poll()
                server.stop(timeout=10)
                raise AssertionError(f"{exc}; server exit code {code}; its stderr: {server.stderr[-3000:]}") from exc
            box = _article(again, question).get_by_label("Reviewer comment")
            if box.input_value() == "Typed, then the tab was closed":
                break
            again.close()
        expect(box).to_have_value("Typed, then the tab was closed")
        context.close()
        assert server.stop() == 0, server.stderr
    assert _row(path, question).reviewer_comment == "Typed, then the tab was closed"


def test_html_and_script_in_pdf_text_and_answers_are_shown_as_text(browser, tmp_path, workspace):
    docs = tmp_path / "docs"
    docs.mkdir()
    make_report_pdf(docs / PDF_NAME)
    path = make_output_workbook(tmp_path / "filled.xlsx")
    with ReviewServer(workspace, path) as server:
        context, page, dialogs = _open(browser, server.url)
        article = page.locator("article", has_text="How often does the board review climate risk?")
        expect(article.get_by_label("Answer")).to_have_value(f"\"{HOSTILE_TEXT}\" ({PDF_NAME} p. 3)")
        expect(article.locator(".passage.cited")).to_contain_text("<script>alert('pwned')</script>")
        article.get_by_label("Reviewer comment").fill("<img src=x onerror=alert(1)> <b>not bold</b>")
        article.get_by_role("button", name="Needs changes").click()
        expect(article.get_by_role("status")).to_have_text("Saved")
        page.reload()
        expect(article.get_by_label("Reviewer comment")).to_have_value("<img src=x onerror=alert(1)> <b>not bold</b>")
        assert page.locator("article b, article script, article img:not(.pageimg)").count() == 0
        assert not dialogs
        context.close()


def test_reanswer_a_needs_changes_row_through_a_loopback_model(browser, workbook):
    root, path = workbook
    fact = FACTS[1]
    comment = "Name the committee and say how often it meets"
    # A price for the loopback's model (a custom endpoint has no list price): the cost is in dollars.
    config = path.parent / "prices.toml"
    config.write_text('[cost]\nprices = { "review-test-model" = [1.0, 4.0] }\n')
    with LLMServer(responder=by_marker(MARKERS)) as llm:
        env = server_env(OPENAI_API_KEY="sk-test", OPENAI_BASE_URL=llm.base_url,
                         AUTOFILL_LLM__MODEL="review-test-model")
        with ReviewServer(root, path, env=env, global_args=("--config", str(config))) as server:
            context, page, _ = _open(browser, server.url)
            article = _article(page, fact.question)
            article.get_by_label("Reviewer comment").fill(comment)
            article.get_by_role("button", name="Needs changes").click()
            expect(article.get_by_role("status")).to_have_text("Saved")
            button = article.get_by_role("button", name="Re-answer")
            button.click()
            expect(article.get_by_role("status")).to_contain_text("Estimated cost $")
            article.get_by_role("button", name="Re-answer for about").click()
            expect(article.get_by_role("status")).to_contain_text("Re-answered", timeout=60000)
            expect(article.get_by_role("status")).to_contain_text("; cost $")  # after, and before:
            expect(article.get_by_role("status")).to_contain_text("estimated $")
            expect(article.get_by_label("Answer")).to_have_value(fact.answer)
            expect(article.locator('[data-role="status"]')).to_contain_text("Re-answered after review")
            expect(article.locator('[data-role="tier"]')).not_to_have_text("—")
            context.close()
            assert server.stop() == 0, server.stderr
        answers = llm.chat_requests(containing="single JSON object")
        assert answers and comment in message_text(answers[-1].json)
    row = _row(path, fact.question)
    assert row.existing_answer == fact.answer
    assert row.status.startswith("Re-answered after review (Needs changes)")
    assert row.review == "" and row.reviewer_comment == comment  # a new answer needs a new review


def test_offline_the_reanswer_button_says_a_model_is_needed(browser, workbook):
    root, path = workbook
    with ReviewServer(root, path) as server:
        context, page, _ = _open(browser, server.url)
        article = _article(page, FACTS[0].question)
        article.get_by_role("button", name="Needs changes").click()
        expect(article.get_by_role("status")).to_have_text("Saved")
        button = article.get_by_role("button", name="Re-answer (needs a model)")
        expect(button).to_be_visible()
        expect(button).to_be_disabled()
        context.close()


def test_a_slow_save_never_overwrites_what_is_typed_after_it(browser, workbook):
    """An Answer is edited; its save's reply is held back (a slow server: the real server has saved it,
    the reply reaches the page later) while the reviewer types new Sources. The reply must not put the
    old Sources back mid-typing: the box keeps what is typed, and the next save carries all of it."""
    root, path = workbook
    question = FACTS[2].question
    SAVE_S = 60  # a loaded machine: the first save checks the answer (opens the store)
    answer, sources = "46% of electricity was renewable in FY2024.", "Report 2023.pdf p. 7"
    with ReviewServer(root, path) as server:
        context, page, _ = _open(browser, server.url)
        held = []

        def slow(route):
            held.append((route, route.fetch()))  # the server saves now; its reply waits

        page.route("**/api/decide", slow)
        article = _article(page, question)
        box = article.get_by_label("Sources")
        before = box.input_value()
        assert before and before != sources
        article.get_by_label("Answer").fill(answer)
        box.click()  # the Answer loses focus: its save goes out
        page.keyboard.press("Control+A")
        page.keyboard.type(sources[:10])
        for _ in range(200):
            if held:
                break
            page.wait_for_timeout(25)
        assert len(held) == 1, "the Answer's save never went out"
        page.keyboard.type(sources[10:15])
        route, reply = held.pop()
        route.fulfill(response=reply)
        page.unroute("**/api/decide")
        expect(article.get_by_role("status")).to_have_text("Saved", timeout=SAVE_S * 1000)
        expect(box).to_have_value(sources[:15])  # the reply did not put the old Sources back
        page.keyboard.type(sources[15:])
        expect(box).to_have_value(sources)
        page.keyboard.press("Tab")  # leaving the box saves it
        expect(article.get_by_role("status")).to_have_text("Saved", timeout=SAVE_S * 1000)
        page.reload()
        expect(_article(page, question).get_by_label("Sources")).to_have_value(sources)
        expect(_article(page, question).get_by_label("Answer")).to_have_value(answer)
        context.close()
        assert server.stop() == 0, server.stderr
    row = _row(path, question)
    assert (row.existing_answer, row.existing_sources) == (answer, sources)
    from autofill.review_app.apply import read_log

    assert [x["Action"] for x in read_log(path)] == ["Edit", "Edit"]


def test_typing_while_an_approval_saves_is_kept_and_the_page_says_it_is_not_saved(browser, workbook):
    """The approval's reply locks the row: what was typed while it saved stays in its box, and the page
    says it is not saved (Reopen to save it) rather than "Saved"."""
    root, path = workbook
    question = FACTS[1].question
    with ReviewServer(root, path) as server:
        context, page, _ = _open(browser, server.url)
        article = _article(page, question)
        article.get_by_label("Answer").fill("The Board Sustainability Committee.")
        article.get_by_label("Reasoning").click()  # the Answer's edit is saved as it loses focus
        expect(article.get_by_role("status")).to_have_text("Saved")
        held = []
        page.route("**/api/decide", lambda route: held.append((route, route.fetch())))
        article.get_by_role("button", name="Approve").click()
        comment = article.get_by_label("Reviewer comment")
        comment.click()
        page.keyboard.type("Checked against")
        for _ in range(400):
            if held:
                break
            page.wait_for_timeout(25)
        assert held, "the approval never went out"
        page.keyboard.type(" p. 3")
        route, reply = held.pop()
        route.fulfill(response=reply)
        page.unroute("**/api/decide")
        expect(article.get_by_role("status")).to_contain_text("not saved: Reopen to save it")
        expect(comment).to_have_value("Checked against p. 3")
        context.close()
        assert server.stop() == 0, server.stderr
    row = _row(path, question)
    assert (row.existing_answer, row.review, row.reviewer_comment) == ("The Board Sustainability Committee.",
                                                                       "Approved", "")
