"""review_app/reanswer.py: a re-answer in `autofill review` uses the plan the workbook's run recorded.

A workbook is filled by the real CLI (`run --model review-m`) against a loopback OpenAI-compatible
server that needs no key (a self-hosted endpoint); the review app, started with no model configured
(or with an OpenAI key meant for api.openai.com), re-answers a Needs-changes row through its HTTP API
with review-m at that endpoint, says so on the page, and prices it as the run priced it: "unknown" when
the run had no price, in dollars when the run had one (from a --config file the review is not given).
The key meant for another endpoint is never sent to the workbook's (the server refuses any key but
the no-key value the openai provider sends to a self-hosted server). `review --model` (the real CLI in its
own process) overrides the model."""

from __future__ import annotations

import json
import shutil
import urllib.request

import openpyxl
import pytest
from starlette.testclient import TestClient

from autofill.providers.openai_provider import NO_KEY
from autofill.review_app.app import AppState, build_app
from autofill.review_app.security import csrf_token
from autofill.review_app.session import ReviewSession
from autofill.settings import load_settings
from autofill.workbook.layout import read_questions
from tests.answer_helpers import COMPANY, FACTS, MARKERS, make_questionnaire
from tests.llm_server import LLMServer, by_marker, message_text
from tests.race_helpers import cli, ingested_workspace
from tests.review_app_helpers import ReviewServer, server_env

PORT = 8766
BASE = f"http://127.0.0.1:{PORT}"
COMMENT = "Name the committee and say how often it meets"
FACT = FACTS[1]


@pytest.fixture(scope="module")
def llm():
    with LLMServer(require_key=NO_KEY) as server:  # a self-hosted endpoint: any real key is refused
        server.responder = by_marker(MARKERS)
        yield server


@pytest.fixture(scope="module")
def filled(tmp_path_factory, llm):
    """{priced: workbook}: the same questionnaire run with `--model review-m` at the loopback endpoint,
    once without a price for it and once with one from a --config file."""
    root = tmp_path_factory.mktemp("reanswer")
    ws = ingested_workspace(root)
    questionnaire = make_questionnaire(root / "q.xlsx", FACTS[:3])
    prices = root / "prices.toml"
    prices.write_text('[cost]\nprices = { "review-m" = [1.0, 4.0] }\n')
    out = {}
    for priced in (False, True):
        config = ["--config", str(prices)] if priced else []
        done = cli([*ws, *config, "run", "--company", COMPANY, "--questionnaire", str(questionnaire), "--llm", "openai",
                    "--model", "review-m", "--out", str(root / f"out{int(priced)}"), "--yes", "--json"],
                   {"OPENAI_BASE_URL": llm.base_url})
        assert done.returncode == 0, done.stderr[-3000:]
        report = json.loads(done.stdout.splitlines()[-1])
        assert (report["cost_usd"] is None) is not priced, report  # as the run priced it
        out[priced] = report["output"]
    return root / "ws", out


def _copy(filled, tmp_path, priced: bool):
    workspace, outputs = filled
    path = tmp_path / f"filled{int(priced)}.xlsx"
    shutil.copy(outputs[priced], path)
    _, rows = read_questions(load_settings(workspace, environ={}), path)
    return workspace, path, next(q.key for q in rows if q.question == FACT.question)


class App:
    """The review app in-process (Starlette's TestClient), as tests/test_review_app.py drives it."""

    def __init__(self, settings, path):
        self.state = AppState(settings=settings, sessions=[ReviewSession(settings, path, write_delay=0)],
                              token="tok-" + "y" * 20, port=PORT)
        self.client = TestClient(build_app(self.state), base_url=BASE)
        self.client.cookies.set(f"autofill_review_{PORT}", self.state.token)
        self.headers = {"X-CSRF-Token": csrf_token(self.state.token), "Origin": BASE}

    def version(self, key):
        return self.client.get("/api/row", params={"key": key}).json()["version"]

    def post(self, route, key, **body):
        body = {"key": key, "base": self.version(key), "reviewer": "Ana", **body}
        return self.client.post(route, json=body, headers=self.headers)


@pytest.mark.parametrize("priced", [False, True], ids=["run-had-no-price", "run-had-a-price"])
def test_a_reanswer_uses_the_model_endpoint_and_price_the_run_recorded(filled, llm, tmp_path, priced):
    workspace, path, key = _copy(filled, tmp_path, priced)
    host, comment = f"127.0.0.1:{llm.port}", f"{COMMENT} ({'priced' if priced else 'not priced'})"  # no cache hit
    # No model in the review's settings but an OpenAI key for api.openai.com: the workbook's plan decides,
    # and that key must not go to the workbook's endpoint (the loopback refuses it: the re-answer would fail).
    app = App(load_settings(workspace, environ={"OPENAI_API_KEY": "sk-for-api-openai-com"}), path)
    try:
        page = app.client.get("/").text
        assert f"Re-answers: review-m (openai) at {host}" in page
        assert app.post("/api/decide", key, action="Needs changes", values={"reviewer_comment": comment}).json()["ok"]
        est = app.client.get("/api/estimate", params={"key": key}).json()
        assert est["using"] == f"review-m (openai) at {host}" and est["model"] == "review-m"
        assert est["priced"] is priced and (est["estimate_usd"] is None) is not priced
        seen = len(llm.chat_requests())
        done = app.post("/api/reanswer", key).json()
        assert done["ok"], done
        calls = llm.chat_requests()[seen:]
        assert calls and {r.json["model"] for r in calls} == {"review-m"}  # that model, at that endpoint
        assert comment in message_text(calls[-1].json)
        assert done["using"] == f"review-m (openai) at {host}" and f"answered by review-m (openai) at {host}" \
            in done["message"]
        if priced:  # as the run priced it: its price, though the review was not given its --config file
            assert done["cost_usd"] > 0 and "cost $" in done["message"]
        else:  # the run said unknown: so does the re-answer (never OpenAI's list price, never $0)
            assert done["cost_usd"] is None and "cost unknown" in done["message"]
    finally:
        app.state.close()


def test_review_model_overrides_the_recorded_model(filled, llm, tmp_path):
    workspace, path, key = _copy(filled, tmp_path, False)
    host = f"127.0.0.1:{llm.port}"
    with ReviewServer(workspace, path, env=server_env(), args=("--model", "review-x")) as server:
        token = server.url.split("token=", 1)[1]
        headers = {"X-Review-Token": token, "X-CSRF-Token": csrf_token(token), "Content-Type": "application/json"}

        def get(route: str) -> str:
            with urllib.request.urlopen(urllib.request.Request(server.base + route, headers=headers), timeout=60) as r:
                return r.read().decode()

        def post(route: str, **body) -> dict:
            version = json.loads(get(f"/api/row?key={key}"))["version"]
            data = json.dumps({"key": key, "base": version, "reviewer": "Ana", **body}).encode()
            request = urllib.request.Request(server.base + route, data=data, headers=headers, method="POST")
            with urllib.request.urlopen(request, timeout=300) as r:
                return json.loads(r.read())

        assert f"Re-answers: review-x (openai) at {host}" in get("/")
        assert post("/api/decide", action="Needs changes", values={"reviewer_comment": COMMENT})["ok"]
        seen = len(llm.chat_requests())
        done = post("/api/reanswer")
        assert done["ok"] and done["model"] == "review-x", done
        assert {r.json["model"] for r in llm.chat_requests()[seen:]} == {"review-x"}
        assert server.stop() == 0, server.stderr


def test_a_reanswer_of_a_german_row_searches_the_english_words_too(filled, llm, tmp_path, monkeypatch):
    """The query translation (translation/translator.py) and centring (search/centring.py) on the review page's
    path: a German row of a run against the English sample report, re-answered, is searched with its
    English words as the run's was, and centred on the whole questionnaire's rows as the run centred it."""
    import numpy as np

    from autofill.search.centring import CentredSearch
    from autofill.answer.opening import open_run
    from autofill.translation.translator import QueryTranslator
    from tests.dictd_factory import write_dictd

    workspace, _ = filled
    folder = write_dictd(tmp_path / "dictd", "freedict-deu-eng", [
        ("Unternehmen", "company <n>"), ("Ziel", "target <n>"), ("Emissionen", "emissions")]).parent
    config = tmp_path / "dictd.toml"
    config.write_text(f"[retrieval]\ndictionaries = {json.dumps(str(folder))}\n")
    question = "Hat das Unternehmen ein Netto-Null-Ziel für die Scope-1- und Scope-2-Emissionen festgelegt?"
    others = ["Wie hoch waren die Scope-1-Emissionen im letzten Jahr?",
              "Welcher Ausschuss des Aufsichtsrats beaufsichtigt den Klimawandel?",
              "Nutzt das Unternehmen einen internen CO2-Preis?",
              "Welcher Anteil des Stroms stammt aus erneuerbaren Quellen?"]
    book = openpyxl.Workbook()  # German throughout (the builder's explanations are English)
    book.active.append(["Nr.", "Abschnitt", "Frage", "Antwortform", "Antwort", "Kommentare"])
    for i, q in enumerate([question, *others], start=1):
        book.active.append([i, "Klima", q, "Ja/Nein und kurze Erläuterung", None, None])
    german = tmp_path / "de.xlsx"
    book.save(german)
    done = cli(["--workspace", str(workspace), "--config", str(config), "run", "--company", COMPANY,
                "--questionnaire", str(german), "--llm", "openai", "--model", "review-m", "--out",
                str(tmp_path / "out"), "--yes", "--json"], {"OPENAI_BASE_URL": llm.base_url})
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.splitlines()[-1])
    assert report["plan"]["query_translation"] is True and report["plan"]["query_centring"] is True, report["plan"]
    path = report["output"]
    settings = load_settings(workspace, environ={}, overrides={"retrieval": {"dictionaries": str(folder)}})
    _, rows = read_questions(settings, path)
    key = next(q.key for q in rows if q.question == question)
    as_run = open_run(settings, COMPANY)
    as_run.centre_on(read_questions(settings, german)[1])  # what the run centred on: its questionnaire's rows

    translated, centred = [], {}
    for_rows, search_text = QueryTranslator.for_rows, CentredSearch.search_text
    monkeypatch.setattr(QueryTranslator, "for_rows", lambda self, rows: translated.extend(for_rows(self, rows))
                        or translated[len(translated) - len(rows):])

    def recording(self, text, embedder, n):
        centred[text] = self.centre.mean_for(text)
        return search_text(self, text, embedder, n)

    monkeypatch.setattr(CentredSearch, "search_text", recording)
    app = App(settings, path)
    try:
        assert app.post("/api/decide", key, action="Needs changes",
                        values={"reviewer_comment": "Say the year"}).json()["ok"]
        assert app.post("/api/reanswer", key).json()["ok"]
    finally:
        app.state.close()
    assert translated and "company" in translated[-1] and "target" in translated[-1], (translated, centred)
    means = {text: mean for text, mean in centred.items() if mean is not None}
    assert means and translated[-1] in means, centred.keys()  # the row and its English words were centred
    for text, mean in means.items():
        assert np.allclose(mean, as_run.centre.mean_for(text), atol=1e-6), text


def test_a_reanswer_uses_every_setting_the_run_recorded(filled, llm, tmp_path):
    """Issue 44's probe: the run recorded 50 candidates (and 3 passages to answer from, a reporting year),
    the re-answer used 30 (and 6, and none). Every setting that changes answers is read back from the Run
    info's declared run (autofill/run_identity.py), not only the plan's readable rows."""
    from autofill.review_app.reanswer import run_settings
    from tests.answer_helpers import passages_in
    from tests.llm_server import last_user_text

    workspace, _outputs = filled
    questionnaire = make_questionnaire(tmp_path / "q.xlsx", FACTS[:3])
    done = cli(["--workspace", str(workspace), "run", "--company", COMPANY, "--questionnaire", str(questionnaire),
                "--llm", "openai", "--model", "review-m", "--out", str(tmp_path / "out"), "--yes", "--json"],
               {"OPENAI_BASE_URL": llm.base_url, "AUTOFILL_RETRIEVAL__CANDIDATES": "50",
                "AUTOFILL_RETRIEVAL__FINAL_K": "3", "AUTOFILL_RUN__REPORTING_YEAR": "2023"})
    assert done.returncode == 0, done.stderr[-3000:]
    path = json.loads(done.stdout.splitlines()[-1])["output"]
    _, rows = read_questions(load_settings(workspace, environ={}), path)
    key = next(q.key for q in rows if q.question == FACT.question)
    app = App(load_settings(workspace, environ={}), path)
    try:
        planned = run_settings(app.state.settings, app.state.sessions[0])
        assert (planned.retrieval.candidates, planned.retrieval.final_k, planned.run.reporting_year) == (50, 3, 2023)
        assert app.post("/api/decide", key, action="Needs changes",
                        values={"reviewer_comment": f"{COMMENT} (recorded settings)"}).json()["ok"]
        seen = len(llm.chat_requests())
        assert app.post("/api/reanswer", key).json()["ok"]
        answer = [r for r in llm.chat_requests()[seen:] if "single JSON object" in last_user_text(r.json)]
        assert answer and len(passages_in(last_user_text(answer[-1].json))) == 3  # the run's final k, not 6
    finally:
        app.state.close()


def test_a_reanswer_of_a_workbook_whose_run_info_lists_retired_settings(filled, llm, tmp_path):
    """A workbook written before issue 44 retired fusion_weights, lexical_query, context_order, page_chunks,
    max_per_page and rerank_step lists them in its Run info (readable rows and `run settings`): the review
    page re-answers it without error, with the settings of a workbook written today."""
    from autofill.review_app.reanswer import run_settings
    from autofill.run_identity import SETTINGS_ROW
    from tests.test_run_identity import old_run_info

    workspace, path, key = _copy(filled, tmp_path, False)
    today = App(load_settings(workspace, environ={}), path)
    try:
        planned = run_settings(today.state.settings, today.state.sessions[0])
    finally:
        today.state.close()
    book = openpyxl.load_workbook(path)
    sheet = book["Run info"]
    cells = {row[0].value: row[1] for row in sheet.iter_rows(min_row=2) if row[0].value}
    old = old_run_info({name: cells[name].value for name in cells if name == SETTINGS_ROW})
    for name, value in old.items():
        if name in cells:
            cells[name].value = value
        else:
            sheet.append([name, value])
    book.save(path)
    app = App(load_settings(workspace, environ={}), path)
    try:
        assert run_settings(app.state.settings, app.state.sessions[0]) == planned
        assert app.post("/api/decide", key, action="Needs changes",
                        values={"reviewer_comment": f"{COMMENT} (an old workbook)"}).json()["ok"]
        done = app.post("/api/reanswer", key).json()
        assert done["ok"], done
    finally:
        app.state.close()
