"""The run plan (autofill/plan.py) resolved from settings and the choice tables (autofill/choices.py):
what `auto` becomes and why, fallbacks without a model, the endpoint host without a key, and that a
new reranker or retrieval mode is one table row (plus its module)."""

from __future__ import annotations

import pytest

from autofill import choices
from autofill.answer.rerank import NoReranker, make_reranker, rerank
from autofill.search.retrieval import retrieve
from autofill.errors import InputError
from autofill.plan import NO_MODEL, needs_model_warnings, resolve_plan
from autofill.records import Passage, QuestionRow
from autofill.settings import Settings, load_settings
from tests import cli_process


def settings_with(tmp_path, environ=None, **sections) -> Settings:
    return load_settings(tmp_path, environ=environ or {}, overrides=sections)


def test_auto_without_a_model_drafts_from_hybrid_retrieval(tmp_path):
    plan = resolve_plan(settings_with(tmp_path))
    assert (plan.provider, plan.model, plan.endpoint) == ("none", "", "")
    assert (plan.mode.name, plan.reranker.name, plan.embedder) == ("hybrid", "none", "local:bge-small-en-v1.5")
    assert plan.first_line() == f"Using {NO_MODEL}; retrieval hybrid, reranker none"  # no second stage (issue 44)
    assert "no model" in plan.reason("retrieval") and "auto" in plan.reason("reranker")


def test_auto_with_a_key_names_model_endpoint_and_why_without_the_key(tmp_path):
    plan = resolve_plan(settings_with(tmp_path, {"OPENAI_API_KEY": "sk-secret-123"}))
    assert (plan.provider, plan.model, plan.endpoint) == ("openai", "gpt-4o-mini", "api.openai.com")
    assert (plan.mode.name, plan.reranker.name) == ("hyde", "llm")
    assert "OPENAI_API_KEY is set" in plan.reason("model") and "default model" in plan.reason("model")
    line = plan.first_line()
    assert line == "Using model gpt-4o-mini (openai) at api.openai.com; retrieval hyde, reranker llm"
    everything = repr(plan) + str(plan.describe()) + str(plan.to_json()) + line
    assert "sk-secret" not in everything


def test_a_loopback_url_is_the_endpoint_host_with_its_port_and_no_path(tmp_path):
    env = {"OPENAI_BASE_URL": "http://127.0.0.1:8123/v1", "OPENAI_API_KEY": "sk-x"}
    plan = resolve_plan(settings_with(tmp_path, env, llm={"model": "qwen2.5"}, retrieval={"multi_query": True}))
    assert plan.endpoint == "127.0.0.1:8123" and plan.model == "qwen2.5" and plan.multi_query
    assert plan.first_line().endswith("at 127.0.0.1:8123; retrieval hyde, multi-query, reranker llm")
    names = [name for name, _value, _why in plan.describe()]
    assert names == ["model", "endpoint", "retrieval", "second stage", "reranker", "embedder", "multi-query",
                     "content index", "multilingual index", "query translation", "query centring"]


def test_the_cohere_key_alone_picks_cohere_and_its_url_alone_does_not(tmp_path):
    assert resolve_plan(settings_with(tmp_path, {"COHERE_BASE_URL": "http://127.0.0.1:9/"})).provider == "none"
    plan = resolve_plan(settings_with(tmp_path, {"COHERE_API_KEY": "co-x"}))
    assert (plan.provider, plan.model, plan.endpoint) == ("cohere", "command-r-plus", "api.cohere.com")


@pytest.mark.parametrize("asked,used", [("hyde", "dense"), ("hyde+hybrid", "hybrid"), ("dense", "dense")])
def test_hyde_without_a_model_falls_back_and_says_so(tmp_path, asked, used):
    s = settings_with(tmp_path, retrieval={"mode": asked, "reranker": "llm"})
    plan = resolve_plan(s)
    assert plan.mode.name == used and plan.reranker.name == "none"
    warnings = needs_model_warnings(s, plan)
    assert ("needs a model" in plan.reason("retrieval")) == (asked != used)
    assert any("reranker 'llm' needs an LLM" in w for w in warnings)
    assert any(f"retrieval {asked!r}" in w for w in warnings) == (asked != used)


def test_an_injected_client_wins_over_the_settings(tmp_path):
    s = settings_with(tmp_path, {"OPENAI_API_KEY": "sk-x"})
    assert resolve_plan(s, chat=None).mode.name == "dense"  # auto -> hyde (key set), no client -> dense

    class Chat:
        model = "scripted-model"

    plan = resolve_plan(s, chat=Chat(), embedder="openai:text-embedding-3-small")
    assert plan.model == "scripted-model" and plan.embedder == "openai:text-embedding-3-small"
    assert plan.reason("embedder") == "the store's embedder"


def test_the_cohere_reranker_shows_its_model_and_needs_its_key(tmp_path):
    s = settings_with(tmp_path, retrieval={"reranker": "cohere"})
    plan = resolve_plan(s)
    assert plan.reranker_label == "cohere (rerank-v3.5)" and plan.reranker.reorders
    with pytest.raises(InputError, match=r"reranker 'cohere' needs a Cohere API key \(COHERE_API_KEY\)"):
        make_reranker(s, plan.reranker, None, None)


def test_vocabularies_come_from_the_tables(tmp_path):
    with pytest.raises(InputError, match=r"unknown retrieval mode 'sparse' \(dense, hybrid, hyde, hyde\+hybrid\)"):
        settings_with(tmp_path, retrieval={"mode": "sparse"})
    with pytest.raises(InputError, match=r"\(llm, cohere, cross-encoder, none\)"):
        settings_with(tmp_path, retrieval={"reranker": "colbert"})
    s = settings_with(tmp_path, {"COHERE_API_KEY": "co-1", "COHERE_BASE_URL": "http://127.0.0.1:1"})
    assert (s.llm.cohere_api_key, s.llm.cohere_base_url) == ("co-1", "http://127.0.0.1:1")
    # The list prices come from the provider table (providers/cost.py applies them at each provider's own
    # endpoint); cost.prices holds only the user's own prices.
    listed = choices.default_prices()
    assert listed["gpt-4o-mini"] == [0.15, 0.60] and listed["command-r"] == [0.15, 0.60]
    assert s.cost.prices == {}


# --------------------------------------------------------------------------- one row each


class ReverseReranker:
    """A reranker added by one row: reverses the candidates."""

    name, model, uses_chat, counts_calls, reorders = "reverse", "", False, False, True

    def rank(self, row, passages, k, call=None):
        return list(reversed(passages))


def build_reverse(settings, choice, chat, client):
    return ReverseReranker()


def _passages(n: int) -> list[Passage]:
    return [Passage(chunk_id=f"c{i}", file_name="r.pdf", page_start=i, page_end=i, section="", text=f"t{i}", rank=i)
            for i in range(1, n + 1)]


def test_a_new_reranker_is_one_row(tmp_path, monkeypatch):
    row = choices.RerankerChoice("reverse", "tests.test_plan:build_reverse", help="reverse order")
    monkeypatch.setitem(choices.RERANKERS, "reverse", row)
    s = settings_with(tmp_path, retrieval={"reranker": "reverse", "final_k": 2})  # validation reads the table
    plan = resolve_plan(s)
    assert plan.reranker is row
    reranker = make_reranker(s, plan.reranker)
    top = rerank(s, reranker, QuestionRow("S", 1, "q"), _passages(4))
    assert [p.chunk_id for p in top] == ["c4", "c3"] and [p.rank for p in top] == [1, 2]
    assert isinstance(make_reranker(s, choices.RERANKERS["none"]), NoReranker)


class ListStore:
    """A store that records which searches ran (dense by vector, BM25 by text)."""

    def __init__(self):
        self.searches: list[str] = []

    def query(self, embedding, n):
        self.searches.append("dense")
        return _passages(3)

    def bm25_search(self, query, n):
        self.searches.append("bm25")
        return list(reversed(_passages(3)))


class Embedder:
    def embed_query(self, text):
        return [1.0, 0.0]


def test_a_new_retrieval_mode_is_one_row_read_by_its_flags(tmp_path, monkeypatch):
    row = choices.RETRIEVAL_MODES["hybrid"]._replace(name="keyword-heavy", help="x")
    monkeypatch.setitem(choices.RETRIEVAL_MODES, "keyword-heavy", row)
    s = settings_with(tmp_path, retrieval={"mode": "keyword-heavy"})
    assert resolve_plan(s).mode is row
    store = ListStore()
    retrieve(s, store, Embedder(), QuestionRow("S", 1, "What were Scope 1 emissions?"), row)
    assert store.searches == ["dense", "bm25"]  # uses_keyword: BM25 joins the dense list


def test_query_translation_rides_on_the_multilingual_index(tmp_path):
    """Translations are chosen among by the multilingual model, so without its index there are none."""
    plan = resolve_plan(settings_with(tmp_path))
    assert plan.query_translation and plan.to_json()["query_translation"] is True
    plan = resolve_plan(settings_with(tmp_path, retrieval={"multilingual_index": False}))
    assert not plan.query_translation and plan.reason("query translation") == "needs the multilingual index"
    plan = resolve_plan(settings_with(tmp_path, retrieval={"translate_queries": False}))
    assert not plan.query_translation and plan.reason("query translation") == ""


def test_query_centring_rides_on_the_multilingual_index_and_can_be_turned_off(tmp_path):
    plan = resolve_plan(settings_with(tmp_path))
    assert plan.query_centring and plan.to_json()["query_centring"] is True
    assert ("query centring", "on", "") in plan.describe()
    plan = resolve_plan(settings_with(tmp_path, retrieval={"multilingual_index": False}))
    assert not plan.query_centring and plan.reason("query centring") == "needs the multilingual index"
    plan = resolve_plan(settings_with(tmp_path, retrieval={"centre_queries": False}))
    assert not plan.query_centring and plan.reason("query centring") == ""


# ---------------------------------------------------------------------------- the second stage's default (issue 44)

# An offline run in a fresh process, with the modules it imported written out: what a user's run loads.
_RUN_AND_LIST_MODULES = """
import json, sys
from autofill.cli import main
sys.argv = ["autofill", *sys.argv[1:-1]]
try:
    main()
except SystemExit as exc:
    code = exc.code
open(__import__("os").environ["MODULES_OUT"], "w").write(
    json.dumps({"code": code, "modules": sorted(m for m in sys.modules if m.startswith("autofill."))}))
"""


def _ingested(ws) -> None:
    """Acme's reports ingested into `ws` in this process (as `autofill ingest` does: the ingest's modules
    are not what is checked) and the questionnaire beside them."""
    from autofill.ingest.pipeline import ingest_paths
    from tests.rows_helpers import company_reports, questionnaire

    company_reports(ws / "docs", "Acme", 41, 1200)
    questionnaire(ws / "q.xlsx")
    report = ingest_paths(Settings(workspace=ws), "Acme", [ws / "docs"])
    assert report.count("failed") == 0 and report.count("new") == 1, report.files


def _offline_run_modules(ws, llm_server, **env_extra) -> set[str]:
    """The autofill modules an offline `run` of the ingested `ws` imports, in a fresh interpreter."""
    import json
    import subprocess
    import sys

    from tests.rows_helpers import env_for

    out = ws / "modules.json"
    env = {**env_for(llm_server, offline=True), "MODULES_OUT": str(out), **env_extra}
    args = ["run", "--company", "Acme", "--questionnaire", "q.xlsx", "--fresh"]
    proc = subprocess.run([sys.executable, "-c", _RUN_AND_LIST_MODULES, "--workspace", str(ws), *args, "end"],
                          env=env, cwd=ws, capture_output=True, text=True, timeout=300)
    result = json.loads(out.read_text())
    assert result["code"] in (0, None), proc.stderr
    return set(result["modules"])


SECOND_STAGE_MODELS = {"autofill.providers.colbert", "autofill.providers.cross_encoder"}


def test_the_offline_default_loads_no_second_stage_model(tmp_path, llm_server):
    """Issue 44: the second stage's two models cost an offline run 2.9 times its time and memory for a gain
    the held-out reports did not keep; the default run leaves them unloaded (benchmarks/run_rows.py).
    Both runs are cold processes on the same ingest (the second on a copy of the workspace)."""
    import shutil

    assert resolve_plan(settings_with(tmp_path)).second_stage.name == "none"
    _ingested(tmp_path / "default")
    shutil.copytree(tmp_path / "default", tmp_path / "chosen")
    assert not _offline_run_modules(tmp_path / "default", llm_server) & SECOND_STAGE_MODELS
    chosen = _offline_run_modules(tmp_path / "chosen", llm_server,
                                  AUTOFILL_RETRIEVAL__SECOND_STAGE="colbert-question+cross-encoder")
    assert chosen >= SECOND_STAGE_MODELS  # still there for whoever chooses it


def test_an_old_settings_file_naming_a_retired_second_stage_gets_one_line(tmp_path):
    import os
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    (tmp_path / "autofill.toml").write_text('[retrieval]\nsecond_stage = "pages"\n', encoding="utf-8")
    proc = cli_process.run(["--workspace", str(tmp_path), "config"], env={**os.environ, "PYTHONPATH": str(root)},
                           timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert "retrieval.second_stage 'pages'" in proc.stderr and "retired" in proc.stderr
    assert "autofill.toml" in proc.stderr and "none" in proc.stderr
