"""`autofill run` with an OpenAI-compatible model: the real openai SDK against the loopback server.

Per row: a HyDE call, one listwise rerank call over all 30 candidates, then one answer
call with 6 labelled passages; the answer, reasoning and sources land in the right cells; transient
errors are retried; a malformed answer is kept and marked; an identical re-run is served from the
cache; an interrupted run resumes without repeating finished rows."""

from __future__ import annotations

import json
import re
from collections import defaultdict

import pytest

from autofill.records import LLM_STAGES
from autofill.answer.checkpoint import Checkpoint
from autofill.answer.pipeline import run_questionnaire
from autofill.providers.base import Providers
from autofill.providers.factory import make_chat
from autofill.settings import Settings
from tests.answer_helpers import COMPANY, FACTS, MARKERS, SAMPLE, fact_for, kind_of, make_questionnaire, \
    copied_workspace, passages_in, read_output
from tests.llm_server import Reply, by_marker, last_user_text


@pytest.fixture(scope="module")
def ingested(tmp_path_factory):
    """One ingested workspace for the module (ingest is the slow part); each test copies settings."""
    root = tmp_path_factory.mktemp("ws")
    settings, emb = copied_workspace(root)
    questionnaire = make_questionnaire(root / "questionnaire.xlsx")
    return root, emb, questionnaire


def settings_for(root, server, tmp_path, **llm) -> Settings:
    s = Settings(workspace=root)
    s.llm.provider = "openai"
    s.llm.base_url = server.base_url
    s.llm.api_key = "sk-test"
    s.llm.model = "gpt-4o-mini"
    s.llm.retry_base_delay_s = 0.01
    s.llm.max_retries = 2
    s.llm.concurrency = 2
    for k, v in llm.items():
        setattr(s.llm, k, v)
    return s


def providers(settings, emb, tmp_path):
    from autofill.providers.cache import CachedChat

    chat = make_chat(settings)
    if isinstance(chat, CachedChat):  # point the cache at this test's own folder
        chat = CachedChat(chat.chat, tmp_path / "llm-cache", provider="openai")
    return Providers(embedder=emb, chat=chat)


def by_question(server) -> dict[str, list]:
    out = defaultdict(list)
    for r in server.chat_requests():
        f = fact_for(last_user_text(r.json))
        out[f.question if f else "?"].append(r)
    return out


def test_each_row_runs_hyde_rerank_and_answer(ingested, llm_server, tmp_path):
    root, emb, questionnaire = ingested
    llm_server.responder = by_marker(MARKERS)
    s = settings_for(root, llm_server, tmp_path)
    report = run_questionnaire(s, COMPANY, questionnaire, out_dir=tmp_path / "out", providers=providers(s, emb, tmp_path))

    assert (report.rows, report.answered, report.failed, report.skipped) == (len(FACTS), len(FACTS), 0, 0)
    reqs = by_question(llm_server)
    assert set(reqs) == {f.question for f in FACTS}
    for f in FACTS:
        calls = reqs[f.question]
        assert [kind_of(r.json) for r in calls] == ["hyde", "rerank", "answer"], f.question
        ranked = passages_in(last_user_text(calls[1].json))
        assert len(ranked) == 30 and len({t for *_, t in ranked}) == 30  # 30 distinct candidates at once
        answer_prompt = last_user_text(calls[2].json)
        shown = passages_in(answer_prompt)
        assert [n for n, *_ in shown] == [1, 2, 3, 4, 5, 6]
        assert re.search(r"^\[1\] \S.* p\. \d+$", answer_prompt, re.MULTILINE)
        assert any(f.phrase in " ".join(t.split()) for *_, t in shown)  # the reranked fact made the cut
        assert "untrusted" in answer_prompt
        assert calls[2].json.get("response_format", {}).get("type") == "json_object"

    out = read_output(report.output)
    for f in FACTS:
        row = out["rows"][f.question]
        if f.dropdown:
            assert row["Answer"] == "Yes"  # the drop-down value; the rest of the answer goes to Reasoning
            assert f.answer.split(". ", 1)[1] in row["Reasoning"]
        else:
            assert row["Answer"] == f.answer
        assert "states it" in row["Reasoning"]
        assert row["Sources"] == f"{SAMPLE} p. {f.page}"
        assert row["Confidence"] == "high"
        assert row["Status"] == "Answered"
        ev = [e for e in out["evidence"] if e["Question"] == f.question]
        assert [e["Rank"] for e in ev] == [1, 2, 3, 4, 5, 6]
        cited = [e for e in ev if e["Cited"] == "yes"]
        assert len(cited) == 1 and cited[0]["Page"] == f.page and cited[0]["Rank"] == 1
    info = out["info"]
    assert info["company"] == COMPANY and info["llm model"] == "gpt-4o-mini" and info["embedder"] == emb.name
    assert info["retrieval mode"] == "hyde" and info["reranker"] == "llm"
    assert info["answer calls"] == len(FACTS) and info["rerank calls"] == len(FACTS)
    data = report.to_json()
    assert data["llm_calls"] == 3 * len(FACTS) == llm_server.count("chat")
    assert data["evidence_only"] is False
    assert data["prompt_tokens"] > 0 and data["completion_tokens"] > 0
    # gpt-4o-mini on a loopback server: OpenAI's list price does not apply there and nobody set one.
    assert data["cost_usd"] is None and "no price for gpt-4o-mini at 127.0.0.1:" in data["cost_unknown_reason"]
    assert info["total cost usd"] == "unknown" and info["answer cost usd"] == "unknown"
    assert "[cost.prices]" in info["cost unknown because"]
    assert report.usage["answer"].prompt_tokens > report.usage["hyde"].prompt_tokens
    assert "sk-test" not in report.output.read_bytes().decode("latin-1")

    # An identical re-run is served from the response cache: zero requests, zero calls counted.
    before = llm_server.count()
    again = run_questionnaire(s, COMPANY, questionnaire, out_dir=tmp_path / "out2", providers=providers(s, emb, tmp_path))
    assert llm_server.count() == before
    assert again.to_json()["llm_calls"] == 0 and again.totals().cached_calls == 3 * len(FACTS)
    assert read_output(again.output)["rows"] == out["rows"]


def test_transient_errors_are_retried(ingested, llm_server, tmp_path):
    root, emb, questionnaire = ingested
    llm_server.responder = by_marker(MARKERS)
    llm_server.fail_next(1, status=429, retry_after=0)
    llm_server.fail_next(1, status=500)
    s = settings_for(root, llm_server, tmp_path, concurrency=1)
    report = run_questionnaire(s, COMPANY, questionnaire, out_dir=tmp_path, providers=providers(s, emb, tmp_path))
    assert report.failed == 0 and report.answered == len(FACTS)
    statuses = [r.status for r in llm_server.chat_requests()]
    assert statuses[:3] == [429, 500, 200]
    assert llm_server.count("chat") == 3 * len(FACTS) + 2
    assert report.to_json()["llm_calls"] == 3 * len(FACTS)  # a retried call is one call


def test_malformed_answer_is_kept_and_marked(ingested, llm_server, tmp_path):
    root, emb, questionnaire = ingested
    broken = FACTS[1]
    raw = "The committee is probably the board one, see passage 2"

    def answer(req):
        f = fact_for(last_user_text(req))
        return raw if f is broken else MARKERS["single JSON object"](req)

    llm_server.responder = by_marker({**MARKERS, "single JSON object": answer})
    s = settings_for(root, llm_server, tmp_path)
    report = run_questionnaire(s, COMPANY, questionnaire, out_dir=tmp_path, providers=providers(s, emb, tmp_path))
    assert report.failed == 0
    row = read_output(report.output)["rows"][broken.question]
    assert row["Status"].startswith("Unparsed model output")
    assert row["Answer"] in (None, "")
    assert raw in row["Reasoning"]  # the model's text is never lost


def test_citation_outside_the_evidence_is_dropped_and_flagged(ingested, llm_server, tmp_path):
    root, emb, questionnaire = ingested
    import json

    def answer(req):
        return json.dumps({"reasoning": "r", "answer": "46%", "citations": [1, 9, f"{SAMPLE} p. 44"],
                           "confidence": "medium"})

    llm_server.responder = by_marker({**MARKERS, "single JSON object": answer})
    s = settings_for(root, llm_server, tmp_path)
    report = run_questionnaire(s, COMPANY, questionnaire, out_dir=tmp_path, providers=providers(s, emb, tmp_path))
    row = read_output(report.output)["rows"][FACTS[2].question]
    assert row["Status"].startswith("Answered; dropped 2 citations not in the evidence")
    assert row["Sources"].count("p.") == 1


class InterruptAfter:
    """A chat model that raises KeyboardInterrupt (Ctrl-C) once `n` answer calls have completed."""

    def __init__(self, inner, n: int):
        self.inner, self.n, self.answers = inner, n, 0
        self.model = inner.model

    def complete(self, messages, **kw):
        if "single JSON object" in messages[-1].content:
            if self.answers >= self.n:
                raise KeyboardInterrupt
            self.answers += 1
        return self.inner.complete(messages, **kw)


def test_interrupted_run_resumes_without_repeating_rows(ingested, llm_server, tmp_path):
    root, emb, questionnaire = ingested
    llm_server.responder = by_marker(MARKERS)
    s = settings_for(root, llm_server, tmp_path, concurrency=1, cache=False)
    chat = make_chat(s)
    with pytest.raises(KeyboardInterrupt):
        run_questionnaire(s, COMPANY, questionnaire, out_dir=tmp_path,
                          providers=Providers(embedder=emb, chat=InterruptAfter(chat, 2)))
    checkpoints = list((root / "reports_out" / ".checkpoints").glob("*.jsonl"))
    from autofill.store.chroma_store import open_store

    assert len(checkpoints) == 1
    assert len(Checkpoint(checkpoints[0], passages=open_store(s, COMPANY).get_passages).load()) == 2
    # Compact: passage ids and scores, not their text (which comes back from the store on resume).
    records = [json.loads(line) for line in checkpoints[0].read_text(encoding="utf-8").splitlines()]
    assert all(set(p) == {"id", "score", "rank"} for r in records for p in r["result"]["passages"])
    assert all(len(r["result"]["passages"]) == 6 for r in records)
    first = by_question(llm_server)
    answered_first = {q for q, calls in first.items() if any(kind_of(r.json) == "answer" for r in calls)}
    # the third row was stopped before its answer call; the fourth may have started meanwhile
    assert len(answered_first) == 2 and len(first) in (3, 4)
    llm_server.reset()

    report = run_questionnaire(s, COMPANY, questionnaire, out_dir=tmp_path, providers=Providers(embedder=emb, chat=chat))
    assert report.answered == len(FACTS) and report.failed == 0
    second = by_question(llm_server)
    assert len(second) == len(FACTS) - 2 and not set(second) & answered_first  # finished rows not repeated
    assert all(len(calls) == 3 for calls in second.values())
    assert report.to_json()["llm_calls"] == 3 * (len(FACTS) - 2)
    rows = read_output(report.output)["rows"]
    assert all(rows[f.question]["Sources"] == f"{SAMPLE} p. {f.page}" for f in FACTS)
    assert not checkpoints[0].exists()  # complete: the checkpoint is gone

    # --fresh (resume=False) answers everything again
    llm_server.reset()
    run_questionnaire(s, COMPANY, questionnaire, out_dir=tmp_path, resume=False,
                      providers=Providers(embedder=emb, chat=chat))
    assert llm_server.count("chat") == 3 * len(FACTS)


def test_a_row_that_keeps_failing_is_marked_and_the_run_goes_on(ingested, llm_server, tmp_path):
    root, emb, questionnaire = ingested
    victim = FACTS[2]

    def answer(req):
        if fact_for(last_user_text(req)) is victim:
            return Reply.error(500, "the model server crashed")
        return MARKERS["single JSON object"](req)

    llm_server.responder = by_marker({**MARKERS, "single JSON object": answer})
    s = settings_for(root, llm_server, tmp_path, max_retries=1, cache=False)
    chat = make_chat(s)
    report = run_questionnaire(s, COMPANY, questionnaire, out_dir=tmp_path, providers=Providers(embedder=emb, chat=chat))
    assert (report.answered, report.failed) == (len(FACTS) - 1, 1)
    row = read_output(report.output)["rows"][victim.question]
    assert row["Status"].startswith("Failed:") and "500" in row["Status"]
    assert not row["Answer"]

    # The server recovers: a re-run answers only the failed row.
    llm_server.reset()
    llm_server.responder = by_marker(MARKERS)
    again = run_questionnaire(s, COMPANY, questionnaire, out_dir=tmp_path, providers=Providers(embedder=emb, chat=chat))
    assert again.failed == 0 and set(by_question(llm_server)) == {victim.question}
    assert read_output(again.output)["rows"][victim.question]["Sources"] == f"{SAMPLE} p. {victim.page}"


def test_a_cited_prompt_passage_is_recorded_by_its_rank(ingested, llm_server, tmp_path):
    """The prompt shows the passages best first (the retired context_order's "ranked"): a citation of
    prompt passage [2] is recorded against rank 2 in the Evidence sheet and its page is the Sources."""
    import json

    root, emb, questionnaire = ingested
    llm_server.responder = by_marker({**MARKERS, "single JSON object": lambda req: json.dumps(
        {"reasoning": "r", "answer": "x", "citations": [2], "confidence": "low"})})
    s = settings_for(root, llm_server, tmp_path)
    report = run_questionnaire(s, COMPANY, questionnaire, out_dir=tmp_path, providers=providers(s, emb, tmp_path))
    out = read_output(report.output)
    for f in FACTS:
        ev = [e for e in out["evidence"] if e["Question"] == f.question]
        assert [e["Rank"] for e in ev if e["Cited"] == "yes"] == [2]
        assert out["rows"][f.question]["Sources"] == f"{ev[1]['File']} p. {ev[1]['Page']}"


def test_counts_are_honest_and_unparsed_rows_exit_1(ingested, llm_server, tmp_path):
    """answered / unparsed / failed apart; an answer without a valid citation is flagged and counted;
    a run with an unparsed row exits 1 through the CLI."""
    import json

    root, emb, questionnaire = ingested
    empty, uncited, broken = FACTS[0], FACTS[1], FACTS[2]

    def answer(req):
        f = fact_for(last_user_text(req))
        if f is empty:
            return ""  # an empty reply is not an answer
        if f is uncited:
            return json.dumps({"thought": "I recall it.", "answer": "The audit committee", "sources": [9]})
        return MARKERS["single JSON object"](req)

    def hyde(req):
        f = fact_for(last_user_text(req))
        return Reply.error(500, "boom") if f is broken else MARKERS["Write a short passage"](req)

    llm_server.responder = by_marker({**MARKERS, "single JSON object": answer, "Write a short passage": hyde})
    s = settings_for(root, llm_server, tmp_path, max_retries=0, cache=False)
    from tests.fakes import RecordingReporter

    rep = RecordingReporter()
    report = run_questionnaire(s, COMPANY, questionnaire, out_dir=tmp_path, reporter=rep,
                               providers=providers(s, emb, tmp_path))
    assert (report.answered, report.unparsed, report.failed, report.drafted, report.skipped) == (3, 1, 1, 0, 0)
    assert report.uncited == 1 and not report.ok
    data = report.to_json()
    assert (data["answered"], data["unparsed"], data["failed"], data["uncited"]) == (3, 1, 1, 1)
    out = read_output(report.output)
    assert out["rows"][uncited.question]["Status"].startswith(
        "Answered; dropped 1 citation not in the evidence; no valid citation")
    assert out["rows"][uncited.question]["Reasoning"] == "I recall it."
    assert out["rows"][empty.question]["Status"].startswith("Unparsed model output")
    assert out["rows"][broken.question]["Status"].startswith("Failed: ProviderError")
    info = out["info"]
    assert (info["rows answered"], info["rows unparsed"], info["rows failed"], info["rows drafted (evidence only)"],
            info["answers without a valid citation"]) == (3, 1, 1, 0, 1)
    from autofill.summaries import run_summary

    text = run_summary(report, COMPANY)
    assert f"{COMPANY}: 5 question rows, 3 answered, 1 unparsed, 1 failed, 0 skipped" in text
    assert "1 answers cite no passage of the evidence" in text
    assert f"unparsed Questionnaire!" in text and "the model's reply could not be read" in text
    assert rep.bars and rep.bars[0][:4] == ("Answering", 5, "rows", 5)


def test_cli_run_with_an_unparsed_row_exits_1(tmp_path, llm_server, cohere_server, monkeypatch):
    import json
    from pathlib import Path

    from click.testing import CliRunner

    from autofill.cli import cli
    from tests.pdf_factory import make_sample_company_pdf

    monkeypatch.setenv("COHERE_BASE_URL", cohere_server.base_url)
    monkeypatch.setenv("COHERE_API_KEY", "co-test")
    monkeypatch.setenv("OPENAI_BASE_URL", llm_server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    ws = tmp_path / "ws"
    runner = CliRunner()
    pdf = make_sample_company_pdf(tmp_path / SAMPLE)
    assert runner.invoke(cli, ["--workspace", str(ws), "ingest", "--company", COMPANY, str(pdf), "--embedder",
                               "cohere", "--json"]).exit_code == 0
    questionnaire = make_questionnaire(tmp_path / "q.xlsx")

    def answer(req):
        f = fact_for(last_user_text(req))
        return "Sorry, I cannot help." if f is FACTS[4] else MARKERS["single JSON object"](req)

    llm_server.responder = by_marker({**MARKERS, "single JSON object": answer})
    result = runner.invoke(cli, ["--workspace", str(ws), "run", "--company", COMPANY, "--questionnaire",
                                 str(questionnaire), "--llm", "openai", "--no-cache", "--json"])
    assert result.exit_code == 1, result.stderr
    data = json.loads(result.stdout.strip().splitlines()[-1])
    assert (data["answered"], data["unparsed"], data["failed"]) == (len(FACTS) - 1, 1, 0)
    assert Path(data["output"]).is_file()
    # Usage by stage, as on the Run info sheet: one HyDE, rerank and answer call per row, no verify.
    stages = data["stages"]
    assert list(stages) == list(LLM_STAGES)
    assert {s: u["calls"] for s, u in stages.items()} == {"hyde": len(FACTS), "multiquery": 0, "rerank": len(FACTS), "answer": len(FACTS), "verify": 0}
    assert sum(u["prompt_tokens"] for u in stages.values()) == data["prompt_tokens"] > 0
    assert sum(u["completion_tokens"] for u in stages.values()) == data["completion_tokens"] > 0
    assert stages["answer"]["prompt_tokens"] > stages["hyde"]["prompt_tokens"]
