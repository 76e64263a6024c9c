"""`autofill run` without an LLM: hybrid retrieval and an evidence-only draft that quotes the best
sentences with their pages. Status says so; the quotes go to Reasoning and every Answer cell stays
empty; the counts call them drafts, never answers."""

from __future__ import annotations

import pytest

from autofill.answer.evidence_only import PREFIX, STATUS
from autofill.answer.pipeline import run_questionnaire
from autofill.errors import InputError
from autofill.providers.base import Providers
from autofill.settings import Settings
from tests.answer_helpers import COMPANY, FACTS, SAMPLE, Fact, make_questionnaire, copied_workspace, read_output

OFFLINE_FACTS = FACTS + [
    Fact("Have the emission reduction targets been validated by the Science Based Targets initiative (SBTi)?",
         "Yes/No and a short explanation", True, "have not been validated by the Science Based Targets", 5, ""),
    Fact("What was the total water withdrawal in FY2024 (GL)?", "Number with unit", False,
         "Total water withdrawal was 12.4 GL", 5, ""),
    Fact("What is the medium-term emission reduction target and its baseline?", "Short text", False,
         "35% reduction in Scope 1 and Scope 2 emissions by FY2030", 2, ""),
]


@pytest.fixture(scope="module")
def ingested(tmp_path_factory):
    root = tmp_path_factory.mktemp("ws")
    _, emb = copied_workspace(root)
    return root, emb, make_questionnaire(root / "questionnaire.xlsx", OFFLINE_FACTS)


def test_offline_run_quotes_evidence_with_the_right_page(ingested, tmp_path):
    root, emb, questionnaire = ingested
    s = Settings(workspace=root)
    assert not s.llm_configured
    before = questionnaire.read_bytes()
    report = run_questionnaire(s, COMPANY, questionnaire, out_dir=tmp_path, providers=Providers(embedder=emb))
    assert questionnaire.read_bytes() == before  # the input is never modified
    assert (report.answered, report.drafted, report.failed) == (0, len(OFFLINE_FACTS), 0)
    assert report.to_json()["llm_calls"] == 0 and report.ok
    out = read_output(report.output)
    for f in OFFLINE_FACTS:
        row = out["rows"][f.question]
        assert row["Status"].startswith(STATUS)
        assert row["Sources"].split("; ")[0] == f"{SAMPLE} p. {f.page}", (f.question, row["Sources"])
        quoted = row["Reasoning"]
        assert PREFIX.strip() in quoted and f"({SAMPLE} p. {f.page})" in quoted
        assert f.phrase.strip("| ").split()[0] in quoted
        assert row["Answer"] in (None, "")  # a quote is not an answer, in a drop-down or free text
        assert not row["Confidence"]
        ev = [e for e in out["evidence"] if e["Question"] == f.question]
        assert len(ev) == 6 and any(e["Cited"] == "yes" and e["Page"] == f.page for e in ev)
    assert out["info"]["llm provider"].startswith("none") and out["info"]["retrieval mode"] == "hybrid"
    assert out["info"]["reranker"] == "none"
    assert not list((root / "reports_out" / ".checkpoints").glob("*.jsonl"))


def test_dense_mode_offline(ingested, tmp_path):
    root, emb, questionnaire = ingested
    s = Settings(workspace=root)
    s.retrieval.mode = "dense"
    s.retrieval.final_k = 3
    report = run_questionnaire(s, COMPANY, questionnaire, out_dir=tmp_path, providers=Providers(embedder=emb))
    out = read_output(report.output)
    assert out["info"]["retrieval mode"] == "dense"
    assert all(len([e for e in out["evidence"] if e["Question"] == f.question]) == 3 for f in OFFLINE_FACTS)


def test_missing_store_and_questionnaire_are_input_errors(ingested, tmp_path):
    root, emb, questionnaire = ingested
    s = Settings(workspace=root)
    with pytest.raises(InputError, match="no evidence store"):
        run_questionnaire(s, "Nobody Ltd", questionnaire, providers=Providers(embedder=emb))
    with pytest.raises(InputError, match="not found"):
        run_questionnaire(s, COMPANY, tmp_path / "missing.xlsx", providers=Providers(embedder=emb))


def test_other_embedder_is_refused(ingested, tmp_path):
    from tests.fakes import FakeEmbedder

    root, _, questionnaire = ingested
    with pytest.raises(InputError, match="built with embedder"):
        run_questionnaire(Settings(workspace=root), COMPANY, questionnaire,
                          providers=Providers(embedder=FakeEmbedder(name="fake:other")))


@pytest.mark.slow
def test_cli_ingest_and_run_json_with_the_real_embedder(tmp_path):
    """End to end through the CLI with the local MiniLM embedder: ingest the bundled sample, then
    `run --json` prints the one-line summary and the filled copy cites the right pages."""
    import json
    from pathlib import Path

    from click.testing import CliRunner

    from autofill.cli import cli

    sample = Path(__file__).resolve().parents[1] / "samples" / SAMPLE
    ws = tmp_path / "ws"
    questionnaire = make_questionnaire(tmp_path / "sample_questionnaire.xlsx", OFFLINE_FACTS)
    runner = CliRunner()
    ingest = runner.invoke(cli, ["--workspace", str(ws), "ingest", "--company", COMPANY, str(sample), "--json"])
    assert ingest.exit_code == 0, ingest.output
    result = runner.invoke(cli, ["--workspace", str(ws), "run", "--company", COMPANY, "--questionnaire",
                                 str(questionnaire), "--year", "2024", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout.strip().splitlines()[-1])
    assert set(data) == {"output", "rows", "answered", "drafted", "unparsed", "failed", "skipped", "reused",
                         "uncited", "edited_by_hand", "approved", "waiting_for_model", "not_written", "llm_calls",
                         "prompt_tokens", "completion_tokens", "cost_usd",
                         "cost_unknown_reason", "stages", "seconds", "evidence_only", "report", "history", "tiers",
                         "plan"}
    assert data["plan"]["model"] == "" and data["plan"]["retrieval"] == "hybrid" and data["plan"]["reranker"] == "none"
    assert data["stages"]["answer"] == {"calls": 0, "cached_calls": 0, "prompt_tokens": 0, "completion_tokens": 0,
                                        "cost_usd": 0.0}  # evidence-only: no model stage ran
    # evidence-only drafts are never Ready: a reviewer writes the answer
    assert data["tiers"] == {"ready": 0, "check": 0, "needs_work": len(OFFLINE_FACTS), "approved": 0}
    assert data["evidence_only"] is True and Path(data["report"]).is_file()
    assert data["rows"] == data["drafted"] == len(OFFLINE_FACTS) and data["answered"] == 0
    assert data["failed"] == data["unparsed"] == 0 and data["llm_calls"] == 0 and data["history"] is None
    assert data["reused"] == 0  # no answer library yet
    out = read_output(Path(data["output"]))
    assert Path(data["output"]).parent == ws / "reports_out"
    hits = sum(out["rows"][f.question]["Sources"].split("; ")[0] == f"{SAMPLE} p. {f.page}" for f in OFFLINE_FACTS)
    assert hits >= len(OFFLINE_FACTS) - 1, {f.question: out["rows"][f.question]["Sources"] for f in OFFLINE_FACTS}
    assert all(out["rows"][f.question]["Status"].startswith(STATUS) for f in OFFLINE_FACTS)
    assert out["info"]["reporting year"] == 2024
    assert all(out["rows"][f.question]["Tier"] == "Needs work" for f in OFFLINE_FACTS)
    assert all("evidence-only draft" in out["rows"][f.question]["Checks"] for f in OFFLINE_FACTS)


def test_live_mode_on_linux_is_a_clear_input_error(ingested, tmp_path):
    import sys

    root, emb, questionnaire = ingested
    if sys.platform in ("win32", "darwin"):
        pytest.skip("Excel may be present")
    with pytest.raises(InputError, match="--live needs Microsoft Excel"):
        run_questionnaire(Settings(workspace=root), COMPANY, questionnaire, out_dir=tmp_path, live=True,
                          providers=Providers(embedder=emb))
    assert not list(tmp_path.glob("*.xlsx"))


def test_offline_summary_never_calls_drafts_answers(ingested, tmp_path):
    from autofill.summaries import run_summary
    from tests.fakes import RecordingReporter

    root, emb, questionnaire = ingested
    rep = RecordingReporter()
    report = run_questionnaire(Settings(workspace=root), COMPANY, questionnaire, out_dir=tmp_path, reporter=rep,
                               providers=Providers(embedder=emb))
    text = run_summary(report, COMPANY)
    assert f"0 answered, {len(OFFLINE_FACTS)} drafted from evidence only (no model answered)" in text
    assert rep.bars == [("Answering", len(OFFLINE_FACTS), "rows", len(OFFLINE_FACTS), True)]
