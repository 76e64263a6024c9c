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
