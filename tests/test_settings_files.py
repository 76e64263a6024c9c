"""Retired settings (autofill/settings_files.py RETIRED, issue 44) through the real CLI in fresh processes:
an old autofill.toml, `--config` file, AUTOFILL_RETRIEVAL__X variable or `run --context-order` option
that still sets one gets one warning line when it sets the old default (the behaviour that stands), and
one line and exit 2 naming the file (or variable, or option), the key and what to do when it asks for the
retired behaviour."""

from __future__ import annotations

import json

import pytest

from autofill.settings_files import RETIRED
from tests.review_app_helpers import server_env
from tests.rows_helpers import cli

# key -> (its old default, as TOML; a retired value, as TOML)
OLD = {"fusion_weights": ('"fixed"', '"adaptive"'), "lexical_query": ('"clean"', '"full"'),
       "context_order": ('"ranked"', '"peripheral"'), "page_chunks": ("1", "0"), "max_per_page": ("0", "2"),
       "rerank_step": ("15", "10")}


def _workspace(tmp_path, toml: str = ""):
    ws = tmp_path / "ws"
    ws.mkdir()
    if toml:
        (ws / "autofill.toml").write_text(toml, encoding="utf-8")
    return ws


def test_every_retired_setting_is_covered_here():
    assert {f"retrieval.{key}" for key in OLD} == set(RETIRED)


def test_an_old_settings_file_setting_the_old_defaults_gets_one_warning_each(tmp_path):
    ws = _workspace(tmp_path, "[retrieval]\n" + "".join(f"{key} = {kept}\n" for key, (kept, _) in OLD.items()))
    out = cli(ws, server_env(), "config", "--json")
    assert out.returncode == 0, out.stderr
    lines = out.stderr.splitlines()
    assert len(lines) == len(OLD), out.stderr
    for key, line in zip(OLD, lines):
        assert f"retrieval.{key} is retired (" in line and line.endswith(f"remove it from {ws / 'autofill.toml'}"), line
    shown = {s["key"] for s in json.loads(out.stdout)["settings"]}
    assert not shown & {f"retrieval.{key}" for key in OLD}  # nothing left to show or to declare


@pytest.mark.parametrize("key", OLD)
def test_an_old_settings_file_asking_for_a_retired_choice_is_one_line_and_exit_2(tmp_path, key):
    ws = _workspace(tmp_path, f"[retrieval]\n{key} = {OLD[key][1]}\n")
    out = cli(ws, server_env(), "config")
    assert out.returncode == 2 and out.stdout == "" and out.stderr.count("\n") == 1, out.stderr
    assert f"{ws / 'autofill.toml'}: retrieval.{key} = " in out.stderr and " is retired: " in out.stderr
    assert out.stderr.rstrip().endswith(f"remove it from {ws / 'autofill.toml'}")


def test_a_config_file_and_an_environment_variable_are_named_as_they_were_set(tmp_path):
    ws = _workspace(tmp_path)
    old = tmp_path / "old.toml"
    old.write_text('[retrieval]\nlexical_query = "full"\n', encoding="utf-8")
    out = cli(ws, server_env(), "--config", str(old), "config")
    assert out.returncode == 2 and out.stderr.count("\n") == 1
    assert f"{old}: retrieval.lexical_query = 'full' is retired" in out.stderr
    out = cli(ws, server_env(AUTOFILL_RETRIEVAL__PAGE_CHUNKS="1"), "config")
    assert out.returncode == 0 and out.stderr.count("\n") == 1, out.stderr
    assert "AUTOFILL_RETRIEVAL__PAGE_CHUNKS is retired (" in out.stderr
    assert out.stderr.rstrip().endswith("unset AUTOFILL_RETRIEVAL__PAGE_CHUNKS")
    out = cli(ws, server_env(AUTOFILL_RETRIEVAL__FUSION_WEIGHTS="adaptive"), "config")
    assert out.returncode == 2 and out.stderr.count("\n") == 1
    assert "environment: AUTOFILL_RETRIEVAL__FUSION_WEIGHTS = 'adaptive' is retired" in out.stderr


def test_run_context_order_is_retired(tmp_path):
    ws = _workspace(tmp_path)
    args = ("run", "--company", "Nobody", "--questionnaire", str(tmp_path / "q.xlsx"))
    out = cli(ws, server_env(AUTOFILL_LLM__PROVIDER="none"), *args, "--context-order", "peripheral")
    assert out.returncode == 2 and out.stdout == "" and out.stderr.count("\n") == 1, out.stderr
    assert "--context-order = 'peripheral' is retired" in out.stderr and "leave --context-order out" in out.stderr
    out = cli(ws, server_env(AUTOFILL_LLM__PROVIDER="none"), *args, "--context-order", "ranked")
    warning = out.stderr.splitlines()[0]
    assert "--context-order is retired (" in warning and warning.endswith("leave --context-order out"), out.stderr
    assert "--context-order" not in "\n".join(out.stderr.splitlines()[1:])  # the run went on past it
    assert "--context-order" not in cli(ws, server_env(), "run", "--help").stdout
