"""The pure parts of `autofill config` (autofill/config_view.py) and the origins settings.load_settings
records: each layer (default, autofill.toml, --config, environment, flag) names itself on the values it
set, later layers win, keys are masked and URLs lose their credentials."""

from __future__ import annotations

from autofill.config_view import (resolved_choices, setting_lines, show_value,
                                  workspace_line)
from autofill.settings import Secret, load_settings

KEY = "sk-proj-Abcdefghijklmnopqrstuvwxyz0123456789-TAIL"


def lines_by_key(settings):
    return {line.key: line for line in setting_lines(settings)}


def test_each_layer_records_where_its_values_came_from(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "autofill.toml").write_text('[retrieval]\nfinal_k = 8\ncandidates = 40\n[cost.prices]\n"my-llama" = [0, 0]\n')
    team = tmp_path / "team.toml"
    team.write_text("[llm]\nconcurrency = 8\n[retrieval]\ncandidates = 50\n")
    env = {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": "http://127.0.0.1:8080/v1", "AUTOFILL_LLM__MODEL": "llama3.1:8b",
           "AUTOFILL_RETRIEVAL__CANDIDATES": "60"}
    s = load_settings(ws, [team], overrides={"retrieval": {"candidates": 70, "mode": None}, "llm": {"model": "x"}},
                      environ=env, flags={"retrieval.candidates": "--candidates"})
    by = lines_by_key(s)
    assert (by["retrieval.final_k"].origin, by["retrieval.final_k"].source) == ("autofill.toml", str(ws / "autofill.toml"))
    assert by["retrieval.final_k"].label == f"file:{ws / 'autofill.toml'}" and by["retrieval.final_k"].value == "8"
    assert (by["llm.concurrency"].label, by["llm.concurrency"].value) == (f"--config:{team}", "8")
    assert by["llm.base_url"].label == "env:OPENAI_BASE_URL"
    assert by["llm.api_key"].label == "env:OPENAI_API_KEY" and by["llm.api_key"].value == "****TAIL"
    # Every layer set candidates: the last one (the flag) wins and is named.
    assert (by["retrieval.candidates"].label, by["retrieval.candidates"].value) == ("flag:--candidates", "70")
    # An option without a name in `flags` is still a flag; None (option not given) sets nothing.
    assert by["llm.model"].label == "flag:command line" and by["retrieval.mode"].label == "default"
    assert by["cost.prices.my-llama"].label == f"file:{ws / 'autofill.toml'}"
    assert by["llm.temperature"].origin == "default" and by["llm.temperature"].value == "0.0"
    assert KEY not in repr(setting_lines(s)) and KEY[-8:] not in repr(setting_lines(s))


def test_masking():
    assert show_value("llm.api_key", Secret(KEY)) == "****TAIL"
    assert show_value("llm.cohere_api_key", "co-0123456789abcdefXYZW") == "****XYZW"
    assert show_value("llm.base_url", "https://user:pa55@proxy.example.com:8443/v1?api-key=abc") == \
        "https://***@proxy.example.com:8443/v1?api-key=***"
    assert show_value("store.chroma_url", "http://u:p@chroma:8000") == "http://***@chroma:8000"
    assert show_value("retrieval.multi_query", False) == "false" and show_value("cost.prices.x", [0.1, 0.2]) == "[0.1, 0.2]"


def test_workspace_origin(tmp_path):
    ws = tmp_path / "ws"
    (ws / "vectordb").mkdir(parents=True)
    s = load_settings(ws, environ={})
    assert workspace_line(s, explicit=ws, environ={}).label == "flag:--workspace"
    assert workspace_line(s, None, environ={"AUTOFILL_WORKSPACE": str(ws)}).label == "env:AUTOFILL_WORKSPACE"
    assert workspace_line(s, None, environ={}).label == "found:vectordb"


def choices(settings):
    return {name: (value, why) for name, value, why in resolved_choices(settings)}


def test_resolved_choices_without_a_model(tmp_path):
    c = choices(load_settings(tmp_path, environ={}))
    assert c["model"][0] == "no model: evidence-only drafts" and c["endpoint"][0] == "-"
    assert c["retrieval"][0] == "hybrid" and c["reranker"][0] == "none"
    assert c["price"] == ("nothing to pay", "no model: rows are evidence-only drafts")


def test_resolved_choices_on_a_loopback_endpoint(tmp_path):
    env = {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": "http://user:pw@127.0.0.1:8080/v1"}
    c = choices(load_settings(tmp_path, environ=env))
    assert c["model"][0] == "gpt-4o-mini (openai) at 127.0.0.1:8080" and "default model" in c["model"][1]
    assert c["endpoint"] == ("127.0.0.1:8080", "not the provider's own endpoint: its list prices do not apply")
    assert c["retrieval"][0] == "hyde" and c["reranker"][0] == "llm"
    assert c["price"][0] == "unknown" and '[cost.prices] "gpt-4o-mini"' in c["price"][1]
    assert "user" not in repr(c) and "pw@" not in repr(c)
    # Priced by the user, and the official endpoint's list price.
    (tmp_path / "autofill.toml").write_text('[cost.prices]\n"gpt-4o-mini" = [0.2, 0.8]\n')
    c = choices(load_settings(tmp_path, environ=env))
    assert c["price"] == ("$0.2 in, $0.8 out per million tokens",
                          f"cost.prices.gpt-4o-mini from file:{tmp_path / 'autofill.toml'}")
    c = choices(load_settings(tmp_path / "other", environ={"OPENAI_API_KEY": KEY}))
    assert c["endpoint"][0] == "api.openai.com" and "list prices" not in c["endpoint"][1]
    assert c["price"] == ("$0.15 in, $0.6 out per million tokens", "the provider's list price")


def test_a_given_setting_names_where_it_came_from(tmp_path):
    s = load_settings(tmp_path, environ={"AUTOFILL_RETRIEVAL__MODE": "hyde+hybrid", "AUTOFILL_LLM__MODEL": "m-1",
                                         "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"},
                      overrides={"retrieval": {"reranker": "none"}}, flags={"retrieval.reranker": "--reranker"})
    c = choices(s)
    assert c["retrieval"] == ("hyde+hybrid", "retrieval.mode from env:AUTOFILL_RETRIEVAL__MODE")
    assert c["reranker"] == ("none", "retrieval.reranker from flag:--reranker")
    assert c["model"][1].endswith("llm.model from env:AUTOFILL_LLM__MODEL")
    s = load_settings(tmp_path, environ={"AUTOFILL_RETRIEVAL__MODE": "hyde+hybrid"})
    mode, why = choices(s)["retrieval"]  # asked for, but it needs a model: the plan says so, and where it was set
    assert mode == "hybrid" and "needs a model" in why and why.endswith("from env:AUTOFILL_RETRIEVAL__MODE")
