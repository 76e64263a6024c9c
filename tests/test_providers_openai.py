"""OpenAI provider: the real openai SDK against the loopback OpenAI-compatible server."""

from __future__ import annotations

import pytest

from autofill.errors import InputError, ProviderError
from autofill.providers.base import ChatMessage, ChatModel, Embedder
from autofill.providers.openai_provider import NO_KEY, OpenAIChat, OpenAIEmbedder, is_azure, make_client
from autofill.settings import LLMSettings, Secret
from tests.llm_server import LLMServer, Reply, hash_vector, last_user_text

KEY = "sk-test-9f8e7d6c5b4a"
MSGS = [ChatMessage("system", "You are terse."), ChatMessage("user", "What is 2+2?")]


def llm_for(server: LLMServer, **kw) -> LLMSettings:
    values = dict(base_url=server.base_url, api_key=Secret(KEY), retry_base_delay_s=0.01, timeout_s=5.0)
    values.update(kw)
    return LLMSettings(**values)


def test_chat_sends_messages_and_returns_usage(llm_server):
    llm_server.queue(Reply(text="4", prompt_tokens=123, completion_tokens=7))
    chat = OpenAIChat(llm_for(llm_server), model="gpt-4o-mini")
    assert isinstance(chat, ChatModel)
    result = chat.complete(MSGS, temperature=0.2, max_tokens=50)
    assert (result.text, result.prompt_tokens, result.completion_tokens, result.cached) == ("4", 123, 7, False)
    assert result.model == "gpt-4o-mini"
    (req,) = llm_server.chat_requests()
    assert req.path == "/v1/chat/completions"
    assert req.json["messages"] == [{"role": "system", "content": "You are terse."},
                                    {"role": "user", "content": "What is 2+2?"}]
    assert req.json["temperature"] == 0.2 and req.json["max_tokens"] == 50
    assert "response_format" not in req.json
    assert req.json["model"] == "gpt-4o-mini"


def test_base_url_without_v1_also_works(llm_server):
    llm_server.responder = lambda req: "echo " + last_user_text(req)
    chat = OpenAIChat(llm_for(llm_server, base_url=llm_server.url), model="m")
    assert chat.complete(MSGS).text == "echo What is 2+2?"
    assert llm_server.requests[0].path == "/chat/completions"


def test_json_mode_sets_response_format(llm_server):
    chat = OpenAIChat(llm_for(llm_server), model="m")
    chat.complete(MSGS, json_mode=True)
    assert llm_server.chat_requests()[0].json["response_format"] == {"type": "json_object"}


def test_json_mode_falls_back_when_server_rejects_it(llm_server):
    def responder(req):
        if "response_format" in req:
            return Reply.error(400, "response_format is not supported")
        return '{"answer": "yes"}'

    llm_server.responder = responder
    chat = OpenAIChat(llm_for(llm_server), model="local-llama")
    assert chat.complete(MSGS, json_mode=True).text == '{"answer": "yes"}'
    assert [r.status for r in llm_server.requests] == [400, 200]
    # Remembered: the next JSON call goes straight without response_format.
    chat.complete(MSGS, json_mode=True)
    assert [("response_format" in r.json) for r in llm_server.requests] == [True, False, False]


def test_other_bad_requests_fail_without_disabling_json_mode(llm_server):
    llm_server.responder = lambda req: Reply.error(400, "context length exceeded")
    chat = OpenAIChat(llm_for(llm_server), model="m")
    with pytest.raises(ProviderError, match="HTTP 400: context length exceeded"):
        chat.complete(MSGS, json_mode=True)
    assert llm_server.count("chat") == 2  # with and without response_format, no retries
    assert chat._json_mode_ok


def test_reasoning_model_parameters_are_adapted_and_remembered(llm_server):
    def responder(req):
        if "max_tokens" in req:
            return Reply.error(400, "Unsupported parameter: 'max_tokens' is not supported with this model. "
                                    "Use 'max_completion_tokens' instead.")
        if "temperature" in req and req["temperature"] != 1:
            return Reply.error(400, "Unsupported value: 'temperature' does not support 0.0 with this model.")
        return "fine"

    llm_server.responder = responder
    chat = OpenAIChat(llm_for(llm_server), model="o4-mini")
    assert chat.complete(MSGS, max_tokens=77).text == "fine"
    assert [r.status for r in llm_server.requests] == [400, 400, 200]
    last = llm_server.requests[-1].json
    assert last["max_completion_tokens"] == 77 and "temperature" not in last and "max_tokens" not in last
    chat.complete(MSGS, json_mode=True)
    assert llm_server.requests[-1].status == 200 and len(llm_server.requests) == 4  # straight through now
    assert llm_server.requests[-1].json["response_format"] == {"type": "json_object"}


def test_no_key_needed_for_self_hosted_servers(llm_server):
    settings = llm_for(llm_server, api_key=Secret(""))
    chat = OpenAIChat(settings, model="llama3.1:8b")
    assert chat._sdk is None  # the SDK client waits for the first call (a cached re-run never makes one)
    assert chat.complete(MSGS).text == "OK"
    assert chat._client.api_key == NO_KEY


def test_missing_key_and_url_is_an_input_error():
    with pytest.raises(InputError, match="OPENAI_API_KEY"):
        OpenAIChat(LLMSettings(), model="gpt-4o-mini")


def test_embeddings_batches_and_order(llm_server):
    embedder = OpenAIEmbedder(llm_for(llm_server), model="text-embedding-3-small", batch_size=2)
    assert isinstance(embedder, Embedder)
    assert embedder.name == "openai:text-embedding-3-small"
    texts = ["alpha", "beta", "gamma", "", "epsilon"]
    vectors = embedder.embed_documents(texts)
    assert len(vectors) == 5 and all(len(v) == 64 for v in vectors)
    assert vectors[0] == pytest.approx(hash_vector("alpha"))
    assert vectors[3] == pytest.approx(hash_vector(" "))  # blank text kept in place
    assert [len(r.json["input"]) for r in llm_server.embedding_requests()] == [2, 2, 1]
    assert embedder.embed_query("beta") == pytest.approx(vectors[1])
    assert embedder.usage.calls == 4 and embedder.usage.tokens > 0
    assert embedder.embed_documents([]) == []


def test_azure_endpoint_is_detected_and_routed_to_deployments(llm_server):
    assert is_azure("https://myres.openai.azure.com/")
    assert not is_azure("http://127.0.0.1:8000/v1")
    assert not is_azure("https://myres.openai.azure.com/openai/v1/")  # the v1 API takes the plain client
    azure_settings = LLMSettings(base_url="https://myres.openai.azure.com/openai", api_key=Secret(KEY))
    import openai

    assert isinstance(make_client(azure_settings), openai.AzureOpenAI)  # construction only, no request
    # The same client against the loopback server: deployment path, api-version, api-key header.
    chat = OpenAIChat(llm_for(llm_server, base_url=llm_server.url, azure_api_version="2024-10-21"),
                      model="my-deployment", azure=True)
    llm_server.queue(Reply(text="azure says hi", prompt_tokens=5, completion_tokens=2))
    result = chat.complete(MSGS)
    assert result.text == "azure says hi" and result.prompt_tokens == 5
    (req,) = llm_server.requests
    assert req.path == "/openai/deployments/my-deployment/chat/completions"
    assert "api-version=2024-10-21" in req.query
    assert "api-key" in req.auth_headers


def test_key_is_sent_but_never_recorded(llm_server):
    OpenAIChat(llm_for(llm_server), model="m").complete(MSGS)
    (req,) = llm_server.requests
    assert "authorization" in req.auth_headers
    assert KEY not in repr(req)


def test_a_reply_of_the_wrong_shape_is_retried_and_counted_as_a_call(llm_server):
    """HTTP 200 whose JSON is no chat completion (no choices): the server's fault, retried like a body cut
    short, and counted (providers/retry.unread_replies) though it has no usage."""
    from autofill.providers.retry import unread_replies

    llm_server.queue(Reply(body={"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": []}))
    with unread_replies() as unread:
        result = OpenAIChat(llm_for(llm_server), model="m").complete(MSGS)
    assert result.text and llm_server.count() == 2 and unread == [1]
    llm_server.reset()
    llm_server.responder = lambda req: Reply(body={"object": "chat.completion", "choices": [{"index": 0}]})
    with unread_replies() as unread, pytest.raises(ProviderError, match="no message in the reply"):
        OpenAIChat(llm_for(llm_server, max_retries=1), model="m").complete(MSGS)
    assert llm_server.count() == 2 and unread == [2]
