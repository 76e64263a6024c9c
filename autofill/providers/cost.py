"""Prices and usage accounting.

Prices are USD per million tokens, `settings.cost.prices[model] = [input, output]`. A dated or
suffixed model name ("gpt-4o-mini-2024-07-18") takes the price of the longest listed prefix that
ends at a separator; unknown models cost 0 and `price_for` returns None so reports can say so.
"""

from __future__ import annotations

import threading
from typing import Mapping, Sequence

from autofill.providers.base import ChatResult
from autofill.records import StageUsage
from autofill.settings import CostSettings

_SEPARATORS = "-_.:@/ "


def price_for(cost_settings: CostSettings, model: str) -> tuple[float, float] | None:
    """(input, output) USD per million tokens for `model`, or None when no listed price applies."""
    prices: Mapping[str, Sequence[float]] = cost_settings.prices or {}
    name = (model or "").strip().lower()
    if not name:
        return None
    table = {str(k).lower(): v for k, v in prices.items()}
    best: str | None = name if name in table else None
    if best is None:
        for listed in table:
            if name.startswith(listed) and name[len(listed)] in _SEPARATORS:
                if best is None or len(listed) > len(best):
                    best = listed
    if best is None:
        return None
    entry = list(table[best]) + [0.0, 0.0]
    return float(entry[0]), float(entry[1])


def cost_usd(cost_settings: CostSettings, model: str, prompt_tokens: int, completion_tokens: int) -> float:
    price = price_for(cost_settings, model)
    if price is None:
        return 0.0
    return (prompt_tokens * price[0] + completion_tokens * price[1]) / 1_000_000


def usage_of(result: ChatResult, cost_settings: CostSettings) -> StageUsage:
    """One chat call as StageUsage. A cache hit made no API call: it counts as a cached call with no
    tokens and no cost, so an identical re-run reports zero calls and zero spend."""
    if result.cached:
        return StageUsage(cached_calls=1)
    return StageUsage(
        calls=1,
        prompt_tokens=result.prompt_tokens,
        completion_tokens=result.completion_tokens,
        cost_usd=cost_usd(cost_settings, result.model, result.prompt_tokens, result.completion_tokens),
    )


class UsageMeter:
    """Thread-safe totals by stage ("hyde", "rerank", "answer", ...) shared by concurrent rows."""

    def __init__(self, cost_settings: CostSettings) -> None:
        self._cost = cost_settings
        self._lock = threading.Lock()
        self._by_stage: dict[str, StageUsage] = {}
        self.unpriced_models: set[str] = set()

    def record(self, stage: str, result: ChatResult) -> StageUsage:
        """Add one call and return its own usage (for the row's per-stage figures)."""
        usage = usage_of(result, self._cost)
        with self._lock:
            self._by_stage.setdefault(stage, StageUsage()).add(usage)
            if not result.cached and price_for(self._cost, result.model) is None:
                self.unpriced_models.add(result.model)
        return usage

    def add(self, stage: str, usage: StageUsage) -> None:
        with self._lock:
            self._by_stage.setdefault(stage, StageUsage()).add(usage)

    def snapshot(self) -> dict[str, StageUsage]:
        """A copy of the totals by stage."""
        with self._lock:
            out = {}
            for stage, u in self._by_stage.items():
                copy = StageUsage()
                copy.add(u)
                out[stage] = copy
            return out

    def total(self) -> StageUsage:
        total = StageUsage()
        for u in self.snapshot().values():
            total.add(u)
        return total
