
import json

import pytest

from autofill.errors import InputError
from autofill.settings import Secret, Settings, load_settings
from tests import cli_process


def test_defaults_offline_resolve_to_hybrid_without_rerank(tmp_path):
    s = load_settings(tmp_path, environ={})
    assert s.llm_provider == "none"
    assert s.retrieval_mode == "hybrid"
    assert s.reranker == "none"
    assert s.vectordb_dir == tmp_path.resolve() / "vectordb"


def test_openai_base_url_turns_on_llm_defaults(tmp_path):
    s = load_settings(tmp_path, environ={"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"})
    assert s.llm_provider == "openai"
    assert s.retrieval_mode == "hyde"
    assert s.reranker == "llm"


def test_cohere_key_alone_selects_cohere(tmp_path):
    s = load_settings(tmp_path, environ={"COHERE_API_KEY": "co-123"})
    assert s.llm_provider == "cohere"


def test_precedence_workspace_file_then_config_then_env_then_cli(tmp_path):
    (tmp_path / "autofill.toml").write_text('[retrieval]\nfinal_k = 4\ncandidates = 20\n[llm]\nmodel = "a"\n')
    cfg = tmp_path / "b.toml"
    cfg.write_text('[retrieval]\nfinal_k = 5\n[llm]\nmodel = "b"\n')
    env = {"AUTOFILL_LLM__MODEL": "c", "AUTOFILL_LLM__CONCURRENCY": "7"}
    s = load_settings(tmp_path, [cfg], {"llm": {"model": "d", "concurrency": None}}, environ=env)
    assert s.retrieval.candidates == 20  # workspace file
    assert s.retrieval.final_k == 5  # config file beats workspace file
    assert s.llm.concurrency == 7  # env, CLI gave None
    assert s.llm.model == "d"  # CLI beats env


@pytest.mark.parametrize("toml, message", [
    ("[retrieval]\nmode = 'magic'\n", "unknown retrieval mode"),
    ("[nosuch]\nx = 1\n", "unknown settings section"),
    ("[llm]\nnosuch = 1\n", "unknown setting llm.nosuch"),
    ("[llm]\nconcurrency = 'many'\n", "llm.concurrency must be a whole number, not 'many'"),
    ("not toml at all [", "not valid TOML"),
])
def test_bad_settings_give_one_clear_line(tmp_path, toml, message):
    cfg = tmp_path / "bad.toml"
    cfg.write_text(toml)
    with pytest.raises(InputError, match=message):
        load_settings(tmp_path, [cfg], environ={})


def test_missing_config_file(tmp_path):
    with pytest.raises(InputError, match="settings file not found"):
        load_settings(tmp_path, [tmp_path / "nope.toml"], environ={})


def test_secrets_never_show(tmp_path):
    s = load_settings(tmp_path, environ={"OPENAI_API_KEY": "sk-very-secret", "COHERE_API_KEY": "co-secret"})
    assert isinstance(s.llm.api_key, Secret)
    assert s.llm.api_key == "sk-very-secret"
    dumped = repr(s) + str(s.public_dict())
    assert "sk-very-secret" not in dumped
    assert "co-secret" not in dumped


def test_embedding_provider_defaults_to_the_stores_and_rejects_unknown_ones(tmp_path):
    s = load_settings(tmp_path, environ={})
    assert s.embedding.provider == ""  # empty: the store's embedder, local for a new store
    assert load_settings(tmp_path, environ={"AUTOFILL_EMBEDDING__PROVIDER": "openai"}).embedding.provider == "openai"
    with pytest.raises(InputError, match="unknown embedding provider 'magic'"):
        load_settings(tmp_path, environ={"AUTOFILL_EMBEDDING__PROVIDER": "magic"})


# ------------------------------------------------------------------------------ workspace discovery


def test_workspace_is_found_upwards_like_git(tmp_path):
    from autofill.settings import discover_workspace

    ws = tmp_path / "team"
    (ws / "vectordb").mkdir(parents=True)
    deep = ws / "clients" / "acme" / "2024"
    deep.mkdir(parents=True)
    assert discover_workspace(environ={}, start=deep) == ws.resolve()
    # autofill.toml marks a workspace too, and the nearest one wins
    (ws / "clients" / "autofill.toml").write_text("[llm]\nmodel = 'near'\n")
    assert discover_workspace(environ={}, start=deep) == (ws / "clients").resolve()
    s = load_settings(environ={}, start=deep)
    assert s.workspace == (ws / "clients").resolve() and s.llm.model == "near"
    # none above: the starting folder (a new workspace is made where you are)
    lone = tmp_path / "lone"
    lone.mkdir()
    assert discover_workspace(environ={}, start=lone) == lone.resolve()
    # a file named vectordb is not a workspace marker
    (lone / "vectordb").write_text("")
    assert discover_workspace(environ={}, start=lone) == lone.resolve()


def test_environment_and_option_override_discovery(tmp_path):
    from autofill.settings import discover_workspace

    found, env_ws, explicit = tmp_path / "found", tmp_path / "env", tmp_path / "explicit"
    (found / "vectordb").mkdir(parents=True)
    env = {"AUTOFILL_WORKSPACE": str(env_ws)}
    assert discover_workspace(environ=env, start=found) == env_ws.resolve()
    assert discover_workspace(explicit, environ=env, start=found) == explicit.resolve()
    assert load_settings(environ=env, start=found).workspace == env_ws.resolve()
    (tmp_path / "file").write_text("")
    with pytest.raises(InputError, match=r"file \(AUTOFILL_WORKSPACE\) is a file, not a folder"):
        discover_workspace(environ={"AUTOFILL_WORKSPACE": str(tmp_path / "file")}, start=found)


def test_cli_commands_find_the_workspace_from_a_subfolder(tmp_path, monkeypatch):
    """Run from a subfolder of the workspace, `companies` lists its stores instead of an empty list
    (and `run` no longer says the store does not exist and suggests re-ingesting)."""
    from click.testing import CliRunner

    from autofill.cli import cli
    from autofill.ingest.pipeline import ingest_paths
    from tests.fakes import FakeEmbedder
    from tests.pdf_factory import make_text_pdf

    ws = tmp_path / "ws"
    ws.mkdir()
    pdf = make_text_pdf(ws / "r.pdf", ["Net zero by 2050 across our operations and value chain."])
    ingest_paths(Settings(workspace=ws), "Acme", [pdf], embedder=FakeEmbedder())
    sub = ws / "questionnaires" / "2024"
    sub.mkdir(parents=True)
    monkeypatch.chdir(sub)
    monkeypatch.delenv("AUTOFILL_WORKSPACE", raising=False)
    out = CliRunner().invoke(cli, ["companies"])
    assert out.exit_code == 0 and out.stdout.startswith("Acme: 1 document"), out.output
    other = tmp_path / "elsewhere"
    other.mkdir()
    monkeypatch.chdir(other)
    out = CliRunner().invoke(cli, ["companies"])
    assert f"No evidence stores yet in {other.resolve() / 'vectordb'}" in out.stdout
    out = CliRunner(env={"AUTOFILL_WORKSPACE": str(ws)}).invoke(cli, ["companies"])
    assert out.stdout.startswith("Acme: 1 document")


def test_not_found_errors_name_the_folder_they_looked_in(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from autofill.cli import cli
    from tests.workbook_builders import build_questionnaire

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("AUTOFILL_WORKSPACE", raising=False)
    q = build_questionnaire(tmp_path / "q.xlsx")
    out = CliRunner().invoke(cli, ["run", "--company", "Acme", "--questionnaire", str(q)])
    assert out.exit_code == 2 and f"in {tmp_path.resolve() / 'vectordb'}" in out.stderr
    assert "--workspace" in out.stderr and out.stderr.count("\n") == 1
    out = CliRunner().invoke(cli, ["run", "--company", "Acme", "--questionnaire", "missing.xlsx"])
    assert out.exit_code == 2 and f"missing.xlsx (looked in {tmp_path.resolve()})" in out.stderr
    out = CliRunner().invoke(cli, ["--config", "nope.toml", "companies"])
    assert out.exit_code == 2 and f"nope.toml (looked in {tmp_path.resolve()})" in out.stderr


def _autofill(*args, env=None):

    from tests.review_app_helpers import server_env

    return cli_process.run(args, timeout=120, env=server_env(**(env or {})))


def test_a_renamed_setting_names_its_new_key_through_the_cli(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "autofill.toml").write_text('[retrieval]\ndense_query = "row"\n')
    out = _autofill("--workspace", str(ws), "config")
    assert out.returncode == 2 and out.stdout == "" and out.stderr.count("\n") == 1
    assert "retrieval.dense_query was renamed retrieval.query_parts" in out.stderr
    assert "write query_parts under [retrieval] instead" in out.stderr
    (ws / "autofill.toml").unlink()
    out = _autofill("--workspace", str(ws), "config", env={"AUTOFILL_RETRIEVAL__DENSE_QUERY": "row"})
    assert out.returncode == 2 and "set AUTOFILL_RETRIEVAL__QUERY_PARTS instead" in out.stderr
    (ws / "autofill.toml").write_text('[retrieval]\nfinal_kk = 5\n')
    out = _autofill("--workspace", str(ws), "config")
    assert out.returncode == 2 and "unknown setting retrieval.final_kk (did you mean retrieval.final_k?)" in out.stderr
    (ws / "autofill.toml").write_text('[retrieval]\nquery_parts = "row"\n')  # the new name works
    out = _autofill("--workspace", str(ws), "config", "--json")
    assert out.returncode == 0, out.stderr
    assert {"key": "retrieval.query_parts", "value": "row", "origin": "autofill.toml",
            "source": str(ws / "autofill.toml"), "changes_answers": True} in json.loads(out.stdout)["settings"]


@pytest.mark.parametrize("content, what", [
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00", "is a binary file, not TOML text"),
    ('[llm]\nmodel = "caf\u00e9"\n'.encode("cp1252"), "is not UTF-8 text (byte 0xe9 at position 18); save it as UTF-8"),
    ('[llm]\nmodel = "m"\n'.encode("utf-16"), "is UTF-16 text; save it as UTF-8"),
    (b"[llm\nmodel = 1\n", "is not valid TOML: Expected ']' at the end of a table declaration (at line 1, column 5)"),
])
def test_an_unreadable_settings_file_is_named_with_what_is_wrong(tmp_path, content, what):
    ws = tmp_path / "ws"
    ws.mkdir()
    bad = tmp_path / "team.toml"
    bad.write_bytes(content)
    out = _autofill("--workspace", str(ws), "--config", str(bad), "config")
    assert out.returncode == 2 and out.stdout == "" and out.stderr.count("\n") == 1, out.stderr
    assert f"settings file {bad} {what}" in out.stderr and "Traceback" not in out.stderr
    folder = _autofill("--workspace", str(ws), "--config", str(tmp_path), "config")
    assert folder.returncode == 2 and "is a directory" in folder.stderr and folder.stderr.count("\n") == 1


def test_a_settings_file_with_a_byte_order_mark_is_read():
    from autofill.settings_files import parse_toml

    assert parse_toml(b'\xef\xbb\xbf[llm]\nmodel = "m"\n', "x.toml") == {"llm": {"model": "m"}}
