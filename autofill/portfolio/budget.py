"""What every row of a portfolio run shares: the model slots and the money.

`LimitedChat` puts every model call of every company through one BoundedSemaphore of
llm.concurrency slots: 16 slots are 16 calls in flight across the whole portfolio, not per company.
The slot is held for the call only, not for a row's retrieval or the wait for its company's store,
so while one row searches another row's call already uses the slot.

`RowGate` wraps a row's work (answer_row) for `run_questionnaire(..., gate=...)` and asks the
`Budget` whether the row may start (optionally it can also hold a slot for the whole row). A row
the budget refuses returns None without a model call: it stays pending, the run writes what
finished, keeps its checkpoint, and the next run answers the rest."""

from __future__ import annotations

import threading
from typing import Any, Callable, Sequence

from autofill.records import RowResult


def row_cost(result: RowResult, estimate_usd: float = 0.0) -> float:
    """What a finished row spent. A row with calls nobody priced (the server named another model than
    the one estimated) is charged at least its estimate: an unknown cost never counts as free against
    the cap. (`batch --max-cost` refuses to start when the estimate itself has no price.)"""
    spent = sum(u.cost_usd for u in result.usage.values())
    if any(u.unpriced_calls for u in result.usage.values()):
        return max(spent, estimate_usd)
    return spent


class Budget:
    """A spending cap in USD (None: no cap). A row is started only while what was spent plus the
    estimate of every row in flight plus its own estimate stays within the cap; once a row is
    refused no later row starts either, so the run stops cleanly instead of nibbling at the rest."""

    def __init__(self, cap_usd: float | None) -> None:
        self.cap = cap_usd
        self._lock = threading.Lock()
        self.spent = 0.0
        self.in_flight = 0.0
        self.refused = 0
        self.exhausted = False

    def reserve(self, estimate_usd: float) -> bool:
        with self._lock:
            if self.exhausted:
                self.refused += 1
                return False
            if self.cap is not None and self.spent + self.in_flight + estimate_usd > self.cap:
                self.exhausted = True
                self.refused += 1
                return False
            self.in_flight += estimate_usd
            return True

    def settle(self, estimate_usd: float, actual_usd: float) -> None:
        with self._lock:
            self.in_flight = max(0.0, self.in_flight - estimate_usd)
            self.spent += actual_usd


class RowGate:
    """One company's view of the shared slots and budget; `row_estimate_usd` is its cost per row."""

    def __init__(self, limiter: threading.BoundedSemaphore | None, budget: Budget | None,
                 row_estimate_usd: float = 0.0, stop: threading.Event | None = None) -> None:
        self.limiter = limiter
        self.budget = budget
        self.row_estimate_usd = row_estimate_usd
        self.stop = stop  # set when the whole portfolio stops (Ctrl-C): queued rows stay pending

    def wrap(self, work: Callable[[Any, Any], RowResult]) -> Callable[[Any, Any], RowResult | None]:
        def gated(ctx: Any, row: Any) -> RowResult | None:
            if self.limiter is not None:
                self.limiter.acquire()
            try:
                if self.stop is not None and self.stop.is_set():
                    return None
                if self.budget is not None and not self.budget.reserve(self.row_estimate_usd):
                    return None
                result = None
                try:
                    result = work(ctx, row)
                    return result
                finally:
                    if self.budget is not None:
                        self.budget.settle(self.row_estimate_usd,
                                           row_cost(result, self.row_estimate_usd) if result is not None else 0.0)
            finally:
                if self.limiter is not None:
                    self.limiter.release()

        return gated


class LimitedChat:
    """A chat model whose calls wait for one of the shared slots."""

    def __init__(self, chat: Any, limiter: threading.BoundedSemaphore) -> None:
        self._inner = chat
        self._limiter = limiter
        self.model = chat.model

    def complete(self, messages: Sequence[Any], **kwargs: Any) -> Any:
        with self._limiter:
            return self._inner.complete(messages, **kwargs)


class SerialEmbedder:
    """One embedder shared by the companies of a portfolio (a local model loads once, not once per
    company), used by one thread at a time: a torch model or an SDK client is not worth sharing
    across threads unguarded, and query embedding is fast next to the model calls."""

    def __init__(self, embedder: Any) -> None:
        self._inner = embedder
        self._lock = threading.Lock()
        self.name = embedder.name

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        with self._lock:
            return self._inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        with self._lock:
            return self._inner.embed_query(text)

    def load(self) -> None:
        load = getattr(self._inner, "load", None)
        if callable(load):
            with self._lock:
                load()
