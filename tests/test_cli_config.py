"""`autofill config` in fresh processes, set up as a user sets autofill up: keys and a base URL in the
environment, a setting in the workspace's autofill.toml, a team --config file, a flag. Every setting
shows where it came from (default, file, --config, env, flag) and the key never appears."""

from __future__ import annotations

import json

from tests.test_cli_cost import autofill

KEY = "sk-proj-0123456789abcdefghijklmnopqrstuvwxyzSECRET-9f3Q"


def setup(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "autofill.toml").write_text("[retrieval]\nfinal_k = 8\n")
    team = tmp_path / "team.toml"
    team.write_text('[llm]\nconcurrency = 8\n[cost.prices]\n"llama3.1:8b" = [0.05, 0.10]\n')
    env = {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": "http://127.0.0.1:8089/v1", "AUTOFILL_RETRIEVAL__CANDIDATES": "40"}
    return ws, team, env


def test_config_shows_each_origin_and_masks_the_key(tmp_path):
    ws, team, env = setup(tmp_path)
    proc = autofill(ws, env, "--config", team, "config", "--model", "llama3.1:8b", "--json")
    assert proc.returncode == 0, proc.stderr
    assert KEY not in proc.stdout + proc.stderr and "SECRET" not in proc.stdout
    data = json.loads(proc.stdout)
    by = {s["key"]: s for s in data["settings"]}
    assert (by["retrieval.final_k"]["origin"], by["retrieval.final_k"]["source"]) == ("autofill.toml", str(ws / "autofill.toml"))
    assert by["retrieval.final_k"]["value"] == "8"
    assert (by["llm.concurrency"]["origin"], by["llm.concurrency"]["source"], by["llm.concurrency"]["value"]) == \
        ("--config", str(team), "8")
    assert by["cost.prices.llama3.1:8b"]["origin"] == "--config"
    assert (by["llm.api_key"]["origin"], by["llm.api_key"]["source"], by["llm.api_key"]["value"]) == \
        ("environment", "OPENAI_API_KEY", "****9f3Q")
    assert by["llm.base_url"]["source"] == "OPENAI_BASE_URL" and by["retrieval.candidates"]["value"] == "40"
    assert (by["llm.model"]["origin"], by["llm.model"]["source"]) == ("flag", "--model")
    assert by["llm.temperature"]["origin"] == "default" and by["workspace"]["value"] == str(ws)
    r = data["resolved"]
    assert r["model"]["value"] == "llama3.1:8b (openai) at 127.0.0.1:8089"
    assert r["model"]["why"].endswith("llm.model from flag:--model")
    assert r["endpoint"]["value"] == "127.0.0.1:8089" and r["retrieval"]["value"] == "hyde"
    assert r["reranker"]["value"] == "llm" and r["price"]["value"].startswith("$0.05 in, $0.1 out")

    text = autofill(ws, env, "--config", team, "config")
    assert text.returncode == 0, text.stderr
    assert KEY not in text.stdout + text.stderr
    lines = text.stdout.splitlines()
    assert any(line.startswith(f"file:{ws / 'autofill.toml'}") and line.endswith("retrieval.final_k=8") for line in lines)
    assert any(line.startswith(f"--config:{team}") and line.endswith("llm.concurrency=8") for line in lines)
    assert any(line.startswith("env:OPENAI_API_KEY") and line.endswith("llm.api_key=****9f3Q") for line in lines)
    assert any(line.startswith("default") and line.endswith("llm.temperature=0.0") for line in lines)
    # No flag: the model is the provider's default, and gpt-4o-mini on a loopback server has no price.
    effect = text.stdout.split("In effect:", 1)[1]
    assert "gpt-4o-mini (openai) at 127.0.0.1:8089" in effect and "default model" in effect
    assert 'unknown  (no price for gpt-4o-mini at 127.0.0.1:8089' in effect


def test_a_bad_setting_is_one_line_exit_2(tmp_path):
    ws, team, env = setup(tmp_path)
    (ws / "autofill.toml").write_text("[retrieval]\nfinal_kk = 8\n")
    proc = autofill(ws, env, "config")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip().count("\n") == 0 and "unknown setting retrieval.final_kk" in proc.stderr
