"""Prices per million tokens, prefix matching, and thread-safe usage accounting by stage."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from autofill.providers.base import ChatResult
from autofill.providers.cost import UsageMeter, cost_usd, price_for, usage_of
from autofill.settings import CostSettings


def test_exact_prefix_and_unknown_models():
    cost = CostSettings()
    assert cost_usd(cost, "gpt-4o-mini", 1_000_000, 1_000_000) == pytest.approx(0.75)
    assert cost_usd(cost, "gpt-4o-mini-2024-07-18", 2_000_000, 0) == pytest.approx(0.30)  # not gpt-4o's price
    assert cost_usd(cost, "gpt-4o-2024-08-06", 0, 1_000_000) == pytest.approx(10.0)
    assert cost_usd(cost, "GPT-4.1-mini", 1000, 500) == pytest.approx((1000 * 0.40 + 500 * 1.60) / 1e6)
    assert cost_usd(cost, "command-r-plus-08-2024", 1_000_000, 0) == pytest.approx(2.50)
    assert price_for(cost, "command-r7b-12-2024") is None  # "command-r" + "7b" is another model
    assert cost_usd(cost, "llama3.1:8b", 10**6, 10**6) == 0.0
    assert cost_usd(cost, "", 10, 10) == 0.0


def test_custom_price_table():
    cost = CostSettings(prices={"my-model": [1.0, 2.0], "embed-only": [0.5]})
    assert cost_usd(cost, "my-model", 500_000, 250_000) == pytest.approx(1.0)
    assert cost_usd(cost, "embed-only", 2_000_000, 99) == pytest.approx(1.0)


def test_cached_results_cost_nothing():
    cost = CostSettings()
    fresh = usage_of(ChatResult("x", "gpt-4o-mini", 1000, 100), cost)
    assert (fresh.calls, fresh.cached_calls, fresh.prompt_tokens, fresh.completion_tokens) == (1, 0, 1000, 100)
    assert fresh.cost_usd == pytest.approx((1000 * 0.15 + 100 * 0.6) / 1e6)
    hit = usage_of(ChatResult("x", "gpt-4o-mini", 1000, 100, cached=True), cost)
    assert (hit.calls, hit.cached_calls, hit.prompt_tokens, hit.cost_usd) == (0, 1, 0, 0.0)


def test_meter_totals_by_stage_across_threads():
    meter = UsageMeter(CostSettings())
    stages = ["hyde", "rerank", "answer"]

    def one(i: int) -> None:
        meter.record(stages[i % 3], ChatResult("t", "gpt-4o-mini", 100, 10, cached=(i % 10 == 0)))

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(one, range(300)))
    snap = meter.snapshot()
    assert set(snap) == set(stages)
    total = meter.total()
    assert total.calls + total.cached_calls == 300 and total.cached_calls == 30
    assert total.prompt_tokens == 270 * 100 and total.completion_tokens == 270 * 10
    assert total.cost_usd == pytest.approx(270 * (100 * 0.15 + 10 * 0.6) / 1e6)
    snap["hyde"].calls = -1  # a snapshot is a copy
    assert meter.snapshot()["hyde"].calls >= 0
    assert meter.unpriced_models == set()
    meter.record("answer", ChatResult("t", "llama3.1:8b", 5, 5))
    assert meter.unpriced_models == {"llama3.1:8b"}


def settings_at(base_url: str = "", provider: str = "openai", **prices):
    from autofill.settings import Settings

    s = Settings()
    s.llm.provider = provider
    if provider == "cohere":
        s.llm.cohere_base_url = base_url
    else:
        s.llm.base_url = base_url
    s.cost.prices = {k.replace("_", "-"): v for k, v in prices.items()}
    return s


def test_list_prices_only_at_the_providers_own_endpoint():
    from autofill.providers.cost import chat_endpoint, pricing_for

    official = pricing_for(settings_at())
    assert official.price("gpt-4o-mini") == (0.15, 0.60) and official.endpoint == "api.openai.com"
    assert pricing_for(settings_at("https://api.openai.com/v1")).price("gpt-4o-mini") == (0.15, 0.60)
    assert pricing_for(settings_at("https://my-res.openai.azure.com")).price("gpt-4o-2024-08-06") == (2.50, 10.0)
    assert pricing_for(settings_at(provider="cohere")).price("command-r-plus") == (2.50, 10.0)
    assert pricing_for(settings_at(provider="cohere")).price("gpt-4o-mini") is None  # only its own list
    for url in ("http://127.0.0.1:8000/v1", "http://localhost:11434/v1", "https://openrouter.example.com/api/v1",
                "https://api.openai.com.evil.example/v1"):
        loop = pricing_for(settings_at(url))
        assert loop.price("gpt-4o-mini") is None and not loop.official and not loop.listed, url
    assert chat_endpoint(settings_at("http://u:secret@127.0.0.1:8000/v1?key=x")) == ("127.0.0.1:8000", False)
    assert pricing_for(settings_at("http://127.0.0.1:9/v1", provider="cohere")).price("command-r") is None
    assert chat_endpoint(settings_at(provider="none")) == ("", True)


def test_your_prices_apply_anywhere_and_win():
    from autofill.providers.cost import pricing_for

    loop = pricing_for(settings_at("http://127.0.0.1:8000/v1", gpt_4o_mini=[0.0, 0.0], my_llama=[0.1, 0.2]))
    assert loop.price("gpt-4o-mini") == (0.0, 0.0) and loop.price("my-llama-q4") == (0.1, 0.2)
    assert pricing_for(settings_at(gpt_4o_mini=[1.0, 2.0])).price("gpt-4o-mini") == (1.0, 2.0)


def test_unknown_reason_names_the_model_the_endpoint_and_the_fix():
    from autofill.providers.cost import pricing_for

    loop = pricing_for(settings_at("http://127.0.0.1:8000/v1"))
    why = loop.unknown_reason(["gpt-4o-mini"])
    assert why.startswith("no price for gpt-4o-mini at 127.0.0.1:8000 (list prices apply only at the provider's own")
    assert why.endswith('set [cost.prices] "gpt-4o-mini" = [input, output] (USD per million tokens) in autofill.toml')
    assert pricing_for(settings_at()).unknown_reason(["llama3.1:8b"]).startswith("no price for llama3.1:8b; set")
    assert pricing_for(settings_at()).unknown_reason(["gpt-4o-mini"]) == ""


def test_an_unpriced_call_is_unknown_not_free():
    from autofill.providers.cost import pricing_for
    from autofill.records import StageUsage

    loop = pricing_for(settings_at("http://127.0.0.1:8000/v1"))
    u = usage_of(ChatResult("x", "gpt-4o-mini", 1000, 100), loop)
    assert (u.calls, u.unpriced_calls, u.cost_usd) == (1, 1, 0.0) and not u.cost_known
    assert u.to_json()["cost_usd"] is None
    assert usage_of(ChatResult("x", "gpt-4o-mini", 1000, 100, cached=True), loop).cost_known  # no call, no cost
    total = StageUsage(calls=2, cost_usd=0.5)
    total.add(u)
    assert not total.cost_known and total.to_json()["cost_usd"] is None
    meter = UsageMeter(loop)
    meter.record("answer", ChatResult("x", "gpt-4o-mini", 10, 10))
    assert "127.0.0.1:8000" in meter.unknown_reason() and not meter.total().cost_known
    assert UsageMeter(CostSettings()).unknown_reason() == ""
