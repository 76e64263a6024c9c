"""Providers built from settings, and API keys that never reach files, messages, logs or dumps."""

from __future__ import annotations

import logging

import pytest

from autofill.errors import EndpointError
from autofill.providers.base import ChatMessage
from autofill.providers.cache import CachedChat
from autofill.providers.cohere_provider import CohereChat, CohereEmbedder, CohereReranker
from autofill.providers.factory import make_chat, make_embedder, make_providers, make_reranker
from autofill.providers.openai_provider import OpenAIChat, OpenAIEmbedder
from autofill.settings import load_settings
from tests.llm_server import LLMServer

pytestmark = pytest.mark.filterwarnings("ignore:The `__fields__` attribute is deprecated")

OPENAI_KEY = "sk-proj-SECRET-0a1b2c3d4e5f"
COHERE_KEY = "co-SECRET-9z8y7x6w5v"


def settings_for(workspace, environ, **overrides):
    return load_settings(workspace, environ=environ, overrides=overrides or None)


def test_no_llm_configured_means_no_chat(workspace):
    s = settings_for(workspace, {})
    assert make_chat(s) is None and make_reranker(s) is None


def test_openai_chat_from_environment_is_cached_by_default(workspace, llm_server):
    s = settings_for(workspace, {"OPENAI_BASE_URL": llm_server.base_url})
    chat = make_chat(s)
    assert isinstance(chat, CachedChat) and isinstance(chat.chat, OpenAIChat)
    assert chat.model == "gpt-4o-mini" and chat.provider == "openai"
    assert chat.cache_dir == s.cache_dir
    assert chat.complete([ChatMessage("user", "hi")]).text == "OK"
    assert llm_server.count() == 1


def test_cache_off_and_model_override(workspace):
    s = settings_for(workspace, {"OPENAI_API_KEY": OPENAI_KEY, "AUTOFILL_LLM__CACHE": "false",
                                 "AUTOFILL_LLM__MODEL": "gpt-4.1-mini"})
    chat = make_chat(s)
    assert isinstance(chat, OpenAIChat) and chat.model == "gpt-4.1-mini"
    assert make_chat(s, model="gpt-4.1-nano").model == "gpt-4.1-nano"


def test_cohere_chat_and_reranker(workspace, cohere_server):
    s = settings_for(workspace, {"COHERE_API_KEY": COHERE_KEY, "COHERE_BASE_URL": cohere_server.base_url},
                     retrieval={"reranker": "cohere"})
    chat = make_chat(s)
    assert isinstance(chat, CachedChat) and isinstance(chat.chat, CohereChat)
    assert chat.model == "command-r-plus"
    reranker = make_reranker(s)
    assert isinstance(reranker, CohereReranker) and reranker.model == "rerank-v3.5"
    assert [r.index for r in reranker.rerank("net zero", ["x", "net zero by 2050"], 1)] == [1]


def test_embedders_by_recorded_name(workspace):
    s = settings_for(workspace, {"OPENAI_API_KEY": OPENAI_KEY, "COHERE_API_KEY": COHERE_KEY},
                     embedding={"batch_size": 7})
    openai_embedder = make_embedder(s, "openai:text-embedding-3-large")
    assert isinstance(openai_embedder, OpenAIEmbedder)
    assert openai_embedder.name == "openai:text-embedding-3-large" and openai_embedder.batch_size == 7
    cohere_embedder = make_embedder(s, "cohere:embed-multilingual-v3.0")
    assert isinstance(cohere_embedder, CohereEmbedder) and cohere_embedder.name == "cohere:embed-multilingual-v3.0"
    s.embedding.provider = "openai"
    assert make_embedder(s).name == "openai:text-embedding-3-small"


def test_each_embedder_keeps_its_own_batch_size_unless_one_is_set(workspace):
    from autofill.providers.local import ONNX_BATCH, LocalEmbedder

    s = settings_for(workspace, {"OPENAI_API_KEY": OPENAI_KEY})
    assert s.embedding.batch_size == 0
    local = make_embedder(s, "local:all-MiniLM-L6-v2")
    assert isinstance(local, LocalEmbedder) and local.batch_size == ONNX_BATCH == 1
    assert make_embedder(s, "openai:text-embedding-3-small").batch_size == 64  # one text per request would crawl
    s.embedding.batch_size = 16
    assert make_embedder(s, "local:all-MiniLM-L6-v2").batch_size == 16


def test_make_providers_with_openai_embedder(workspace, llm_server):
    s = settings_for(workspace, {"OPENAI_BASE_URL": llm_server.base_url}, embedding={"provider": "openai"})
    providers = make_providers(s)
    assert isinstance(providers.embedder, OpenAIEmbedder)
    assert providers.judge is providers.chat and providers.reranker is None
    assert len(providers.embedder.embed_query("q")) == 64


def test_keys_never_reach_cache_files_errors_logs_or_dumps(workspace, caplog):
    caplog.set_level(logging.DEBUG)
    with LLMServer(require_key=OPENAI_KEY) as server:
        s = settings_for(workspace, {"OPENAI_API_KEY": OPENAI_KEY, "OPENAI_BASE_URL": server.base_url,
                                     "COHERE_API_KEY": COHERE_KEY, "AUTOFILL_LLM__RETRY_BASE_DELAY_S": "0.01"})
        chat = make_chat(s)
        assert chat.complete([ChatMessage("user", "What are the Scope 2 emissions?")]).text == "OK"
        server.fail_next(1, status=500, message=f"upstream echoed {OPENAI_KEY}")
        assert chat.complete([ChatMessage("user", "second")]).text == "OK"  # retried; message logged

        # A wrong key: the server echoes the key it got, our error must not.
        s_wrong = settings_for(workspace, {"OPENAI_API_KEY": OPENAI_KEY + "-old", "OPENAI_BASE_URL": server.base_url,
                                           "AUTOFILL_LLM__CACHE": "0"})
        with pytest.raises(EndpointError) as err:  # a refused key stops the run: see reachability.py
            make_chat(s_wrong).complete([ChatMessage("user", "x")])
        assert "HTTP 401" in str(err.value)
        assert "authorization" in server.requests[0].auth_headers  # the key was really sent

    secrets = (OPENAI_KEY, COHERE_KEY)
    cache_files = [p for p in s.cache_dir.rglob("*") if p.is_file()]
    assert cache_files
    for path in cache_files:
        text = path.read_text()
        assert not any(k in text for k in secrets)
    texts = [str(err.value), repr(err.value), repr(s), repr(s.llm), str(s.public_dict()), caplog.text]
    assert "upstream echoed ***" in caplog.text  # proves the scrubbed message was logged at all
    for text in texts:
        assert not any(k in text for k in secrets), text
    assert s.public_dict()["llm"]["api_key"] == "***"
