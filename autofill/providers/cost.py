"""Prices and usage accounting.

Prices are USD per million tokens, [input, output]. Two tables:
- `cost.prices` in the settings (autofill.toml, --config): your prices. They apply at any endpoint.
- The providers' list prices (`choices.PROVIDERS[...].prices`). They apply only at the provider's own
  endpoint (its `default_host`, api.openai.com or an Azure OpenAI resource; Cohere's API), never to a
  loopback, self-hosted or proxy server (OPENAI_BASE_URL / COHERE_BASE_URL elsewhere), whatever the
  model is called there.
A model with no price that applies has cost *unknown* (never $0): usage counts its calls in
`StageUsage.unpriced_calls`, and reports say "cost unknown" with the reason (`Pricing.unknown_reason`).
A dated or suffixed model name ("gpt-4o-mini-2024-07-18") takes the price of the longest listed
prefix that ends at a separator.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence
from urllib.parse import urlsplit

from autofill.choices import PROVIDERS, default_prices
from autofill.providers.base import ChatResult
from autofill.records import StageUsage
from autofill.settings import CostSettings, Settings

_SEPARATORS = "-_.:@/ "
# Azure OpenAI resources bill OpenAI's list prices (and the reply names the model behind a deployment).
AZURE_SUFFIXES = (".openai.azure.com", ".cognitiveservices.azure.com", ".services.ai.azure.com")
HOW_TO_PRICE = "set [cost.prices] \"{model}\" = [input, output] (USD per million tokens) in autofill.toml"


def listed_price(prices: Mapping[str, Sequence[float]], model: str) -> tuple[float, float] | None:
    """The [input, output] price `prices` lists for `model` (exactly, or its longest prefix ending at a
    separator), or None."""
    name = (model or "").strip().lower()
    if not name:
        return None
    table = {str(k).lower(): v for k, v in (prices or {}).items()}
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


def host_of(url: str) -> str:
    """"host[:port]" of a URL, without user, password, path or query (safe to print)."""
    parts = urlsplit(url if "//" in url else f"//{url}")
    host = parts.hostname or ""
    try:
        port = parts.port
    except ValueError:
        port = None
    shown = f"[{host}]" if ":" in host else host  # an IPv6 address keeps its brackets
    return f"{shown}:{port}" if host and port else shown


def chat_endpoint(settings: Settings) -> tuple[str, bool]:
    """(host the chat calls go to, whether it is the provider's own endpoint) for settings.llm_provider;
    ("", True) without a model."""
    entry = PROVIDERS.get(settings.llm_provider)
    if entry is None or not entry.chats:
        return "", True
    url = str(getattr(settings.llm, entry.url_field, "") or "") if entry.url_field else ""
    if not url:
        return entry.default_host, True
    host = host_of(url)
    name = (urlsplit(url if "//" in url else f"//{url}").hostname or "").lower()
    official = name == entry.default_host or (entry.name == "openai" and name.endswith(AZURE_SUFFIXES))
    return host, official


@dataclass(frozen=True)
class Pricing:
    """The prices that apply to one endpoint's calls: yours (`prices`, anywhere) and, at the provider's
    own endpoint, its list prices (`listed`; empty elsewhere). `endpoint`: its host, named when a price
    is missing; `official`: whether it is the provider's own."""

    prices: Mapping[str, Sequence[float]]
    listed: Mapping[str, Sequence[float]] = field(default_factory=default_prices)
    endpoint: str = ""
    official: bool = True

    def price(self, model: str) -> tuple[float, float] | None:
        found = listed_price(self.prices, model)
        return found if found is not None else listed_price(self.listed, model)

    def unknown_reason(self, models: Iterable[str]) -> str:
        """One line: which models have no price here and how to give them one; "" when all are priced."""
        names = sorted({m or "(a model the server did not name)" for m in models if self.price(m) is None})
        if not names:
            return ""
        elsewhere = not self.official and any(listed_price(default_prices(), m) is not None for m in names)
        where = f" at {self.endpoint}" if self.endpoint and not self.official else ""
        why = " (list prices apply only at the provider's own endpoint)" if elsewhere else ""
        return f"no price for {', '.join(names)}{where}{why}; {HOW_TO_PRICE.format(model=names[0])}"


def pricing_for(settings: Settings) -> Pricing:
    """The Pricing of the chat endpoint these settings use: the provider's list prices only at its own
    endpoint."""
    host, official = chat_endpoint(settings)
    entry = PROVIDERS.get(settings.llm_provider)
    listed = {m: list(p) for m, p in entry.prices} if official and entry is not None else {}
    return Pricing(dict(settings.cost.prices or {}), listed=listed, endpoint=host, official=official)


def as_pricing(cost: CostSettings | Pricing) -> Pricing:
    """A Pricing from either; bare CostSettings (no endpoint known) means the providers' own endpoints."""
    return cost if isinstance(cost, Pricing) else Pricing(dict(cost.prices or {}))


def price_for(cost: CostSettings | Pricing, model: str) -> tuple[float, float] | None:
    """(input, output) USD per million tokens for `model`, or None when no price applies."""
    return as_pricing(cost).price(model)


def cost_usd(cost: CostSettings | Pricing, model: str, prompt_tokens: int, completion_tokens: int) -> float:
    """The cost of these tokens; 0.0 when no price applies (check `price_for` before calling it known)."""
    price = price_for(cost, model)
    if price is None:
        return 0.0
    return (prompt_tokens * price[0] + completion_tokens * price[1]) / 1_000_000


def usage_of(result: ChatResult, cost: CostSettings | Pricing) -> StageUsage:
    """One chat call as StageUsage. A cache hit made no API call: it counts as a cached call with no
    tokens and no cost, so an identical re-run reports zero calls and zero spend. A call with no price
    is counted in `unpriced_calls` (its cost is unknown, not 0)."""
    if result.cached:
        return StageUsage(cached_calls=1)
    return StageUsage(
        calls=1,
        prompt_tokens=result.prompt_tokens,
        completion_tokens=result.completion_tokens,
        cost_usd=cost_usd(cost, result.model, result.prompt_tokens, result.completion_tokens),
        unpriced_calls=int(price_for(cost, result.model) is None),
    )


class UsageMeter:
    """Thread-safe totals by stage ("hyde", "rerank", "answer", ...) shared by concurrent rows."""

    def __init__(self, cost: CostSettings | Pricing) -> None:
        self._cost = as_pricing(cost)
        self._lock = threading.Lock()
        self._by_stage: dict[str, StageUsage] = {}
        self.unpriced_models: set[str] = set()
        self.unread_replies = 0  # malformed replies: calls the server answered whose tokens nobody knows

    def record(self, stage: str, result: ChatResult) -> StageUsage:
        """Add one call and return its own usage (for the row's per-stage figures)."""
        usage = usage_of(result, self._cost)
        with self._lock:
            self._by_stage.setdefault(stage, StageUsage()).add(usage)
            if usage.unpriced_calls:
                self.unpriced_models.add(result.model)
        return usage

    def unread(self, stage: str, replies: int) -> StageUsage:
        """Add `replies` malformed replies (providers/retry.unread_replies): calls, possibly billed, whose
        tokens are unknown, so their cost is too. Returns their usage (for the row's figures)."""
        usage = StageUsage(calls=replies, unpriced_calls=replies)
        with self._lock:
            self._by_stage.setdefault(stage, StageUsage()).add(usage)
            self.unread_replies += replies
        return usage

    def unknown_reason(self) -> str:
        """Why this meter's cost is unknown ("" when every call was priced)."""
        with self._lock:
            models, unread = set(self.unpriced_models), self.unread_replies
        reasons = [self._cost.unknown_reason(models)] if models else []
        if unread:
            reasons.append(f"{unread} repl{'y' if unread == 1 else 'ies'} from the server could not be read "
                           "(no token counts)")
        return "; ".join(reasons)

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
