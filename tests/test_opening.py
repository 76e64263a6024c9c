"""answer/opening.py: run, ask, batch (through run) and the review app's re-answer open their run in one
place. A path that assembled its own store, clients, plan, reranker, meter or checks would drift again
(ask skipped the query cache and never warned that a choice needs a model; re-answer priced at list
prices with the default model), so: the source of every path is read for a copy of the assembly, and
`ask` and `run`, each in a fresh process, are shown to warn alike and to read query vectors through the
workspace's query cache. The recorded plan a re-answer uses is tested here as a pure function of the
Run info; the re-answer itself through the review app in tests/test_reanswer.py."""

from __future__ import annotations

import ast
import json
import sqlite3
from pathlib import Path

import pytest

from autofill.answer.opening import recorded_settings
from autofill.settings import Settings, load_settings

ROOT = Path(__file__).resolve().parents[1]
PATHS = ["autofill/answer/pipeline.py", "autofill/answer/ask.py", "autofill/review_app/reanswer.py",
         "autofill/portfolio/runner.py", "autofill/portfolio/ray_engine.py"]
# What opening.open_run alone assembles for a run's rows: a path importing one of these has its own copy.
ASSEMBLY = {"autofill.store.reading": "open_for_reading", "autofill.providers.factory": "make_providers",
            "autofill.providers.query_cache": "with_query_cache", "autofill.answer.rerank": "make_reranker",
            "autofill.answer.trust": "make_trust", "autofill.providers.cost": "UsageMeter",
            "autofill.answer.pages": "PageLocator", "autofill.plan": "needs_model_warnings",
            "autofill.providers.cache": "refresh_cache"}


def _assembly(source: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module in ASSEMBLY:
            found += [f"{node.module}.{a.name}" for a in node.names if a.name == ASSEMBLY[node.module]]
        elif isinstance(node, ast.Call):
            name = getattr(node.func, "id", getattr(node.func, "attr", ""))
            if name == "RowContext" or (name == "resolve_plan" and any(k.arg == "chat" for k in node.keywords)):
                found.append(f"{name}(...)")
    return found


@pytest.mark.parametrize("path", PATHS)
def test_no_path_assembles_its_own_run(path):
    source = (ROOT / path).read_text(encoding="utf-8")
    found = _assembly(source)
    # The re-answer's estimate (before any call) reads the store's documents to price the row, as the
    # run's own estimate (portfolio/plan.estimate_run) does: that is no run.
    if path.endswith("reanswer.py"):
        found.remove("autofill.store.reading.open_for_reading")
    assert not found, f"{path} assembles part of a run itself: {found}; use answer/opening.open_run"
    if path != "autofill/portfolio/ray_engine.py":  # the Ray engine runs companies through runner._run_company
        assert "open_run(" in source or "run_questionnaire(" in source


def test_the_check_sees_an_assembled_run():
    assert _assembly((ROOT / "autofill/answer/opening.py").read_text(encoding="utf-8"))  # it would fail a path


def test_ask_and_run_warn_alike_and_ask_reads_the_query_cache(tmp_path):
    from tests.answer_helpers import COMPANY, FACTS, make_questionnaire
    from tests.race_helpers import cli, ingested_workspace

    ws = ingested_workspace(tmp_path)
    workspace = tmp_path / "ws"
    # Asked for in the settings file, impossible without a model: both commands say so on stderr.
    (workspace / "autofill.toml").write_text('[retrieval]\nmode = "hyde"\nreranker = "llm"\n')
    vectors = workspace / "vectordb" / ".query-cache" / "embeddings.sqlite"
    assert not vectors.exists()  # an ingest stores chunks, never query vectors
    env = {"AUTOFILL_LLM__PROVIDER": "none"}
    asked = cli([*ws, "ask", "--company", COMPANY, FACTS[2].question, "--json"], env)
    assert asked.returncode == 0, asked.stderr[-2000:]
    assert json.loads(asked.stdout)["evidence_only"]
    with sqlite3.connect(vectors) as db:  # the question's vectors went through the workspace's query cache
        assert db.execute("SELECT count(*) FROM vectors").fetchone()[0] >= 1
    ran = cli([*ws, "run", "--company", COMPANY, "--questionnaire",
               str(make_questionnaire(tmp_path / "q.xlsx", FACTS[:1])), "--out", str(tmp_path / "out"), "--json"], env)
    assert ran.returncode == 0, ran.stderr[-2000:]

    def warned(stderr: str) -> list[str]:
        return [ln for ln in stderr.splitlines() if "needs an LLM" in ln]

    assert len(warned(asked.stderr)) == 2 and warned(asked.stderr) == warned(ran.stderr), (asked.stderr, ran.stderr)


RUN_INFO = {"company": "Northwind Metals", "llm provider": "openai", "llm model": "qwen-local",
            "llm base url": "http://10.1.2.3:8000/v1", "llm endpoint": "10.1.2.3:8000", "retrieval mode": "hybrid",
            "reranker": "none", "multi-query": "on", "content index": "off", "llm price (usd per 1m tokens in / out)": "unknown"}


def _settings(tmp_path, environ=None, **llm) -> Settings:
    return load_settings(tmp_path, environ=environ or {}, overrides={"llm": llm} if llm else None,
                         flags={"llm.model": "--model", "llm.provider": "--llm"})


def test_the_recorded_plan_replaces_the_settings_but_never_carries_a_key_elsewhere(tmp_path):
    (tmp_path / "autofill.toml").write_text('[cost]\nprices = { "qwen-local" = [1.0, 2.0] }\n')
    s = recorded_settings(_settings(tmp_path, {"OPENAI_API_KEY": "sk-mine"}), RUN_INFO)
    assert (s.llm_provider, s.llm.model, s.llm.base_url) == ("openai", "qwen-local", "http://10.1.2.3:8000/v1")
    assert (s.retrieval.mode, s.retrieval.reranker, s.retrieval.multi_query) == ("hybrid", "none", True)
    assert s.retrieval.content_index is False  # on by default: the run's recorded "off" holds
    assert s.retrieval.translate_queries is True  # not recorded (a workbook from before it): the settings'
    off = recorded_settings(_settings(tmp_path), {**RUN_INFO, "query translation": "off", "query centring": "off"})
    assert off.retrieval.translate_queries is False and off.retrieval.centre_queries is False
    assert s.retrieval.centre_queries is True  # not recorded: the settings'
    assert not s.llm.api_key  # the key was for the endpoint the settings name, not the workbook's
    assert "qwen-local" not in s.cost.prices  # the run said its cost was unknown: so does the re-answer
    # The same endpoint as the settings': the key goes with it; a recorded price applies anywhere.
    same = recorded_settings(_settings(tmp_path, {"OPENAI_API_KEY": "sk-mine",
                                                  "OPENAI_BASE_URL": "http://10.1.2.3:8000/v1/"}),
                             {**RUN_INFO, "llm price (usd per 1m tokens in / out)": "0.5 / 1.5"})
    assert same.llm.api_key == "sk-mine" and same.cost.prices["qwen-local"] == [0.5, 1.5]


def test_the_recorded_second_stage_orders_a_reanswer_as_the_run_did(tmp_path):
    s = recorded_settings(_settings(tmp_path), {**RUN_INFO, "second stage": "none"})
    assert s.retrieval.second_stage == "none"
    s = recorded_settings(_settings(tmp_path), {**RUN_INFO, "second stage": "colbert+cross-encoder (first 20)"})
    assert (s.retrieval.second_stage, s.retrieval.second_stage_depth) == ("colbert+cross-encoder", 20)
    s = recorded_settings(_settings(tmp_path), {**RUN_INFO, "second stage": "a-later-one (first 5)"})
    assert (s.retrieval.second_stage, s.retrieval.second_stage_depth) == ("none", 10)  # the settings' own


def test_the_command_line_overrides_the_recorded_plan(tmp_path):
    s = recorded_settings(_settings(tmp_path, model="other-model"), RUN_INFO)
    assert (s.llm.model, s.llm.base_url) == ("other-model", "http://10.1.2.3:8000/v1")  # at the run's endpoint
    none = recorded_settings(_settings(tmp_path, provider="none"), RUN_INFO)
    assert not none.llm_configured
    # A run without a model recorded nothing to answer with: the settings stand.
    base = _settings(tmp_path, {"OPENAI_API_KEY": "sk-mine"})
    assert recorded_settings(base, {**RUN_INFO, "llm model": "none"}) is base


def test_an_endpoint_whose_url_carried_credentials_is_not_guessed(tmp_path):
    from autofill.errors import InputError

    with pytest.raises(InputError, match="OPENAI_BASE_URL"):
        recorded_settings(_settings(tmp_path), {**RUN_INFO, "llm base url": "https://***@proxy.example/v1"})
