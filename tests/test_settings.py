
import pytest

from autofill.errors import InputError
from autofill.settings import Secret, load_settings


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
    ("[llm]\nconcurrency = 'many'\n", "expected an integer"),
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
