"""What every task of `autofill batch --engine ray` shares across the cluster (portfolio/ray_engine.py):
the budget (`ClusterBudget`: budget.Budget, so reserve-then-settle stays atomic) and the model-call slots
(`Slots`: llm.concurrency calls in flight), both held by one actor process (`SharedActor`: every actor is
a Ray worker process of its own, ~0.8 CPU-s to start), and the proxies a worker's rows use in their place
(`BudgetProxy`, `SlotsProxy`). With ray_engine.py, the only modules that import ray."""

from __future__ import annotations

from typing import Any

import ray

from autofill.portfolio.budget import Budget


class ClusterBudget(Budget):
    """budget.Budget with the rows in flight counted: every worker's rows reserve and settle here, in the
    shared actor (whose methods never interleave inside one: see SharedActor)."""

    def __init__(self, cap_usd: float | None) -> None:
        super().__init__(cap_usd)
        self.rows_in_flight = 0
        self.peak_rows_in_flight = 0

    def reserve(self, estimate_usd: float) -> bool:
        granted = super().reserve(estimate_usd)
        if granted:
            self.rows_in_flight += 1
            self.peak_rows_in_flight = max(self.peak_rows_in_flight, self.rows_in_flight)
        return granted

    def settle(self, estimate_usd: float, actual_usd: float) -> None:
        super().settle(estimate_usd, actual_usd)
        self.rows_in_flight = max(0, self.rows_in_flight - 1)

    def is_exhausted(self) -> bool:
        return self.exhausted

    def totals(self) -> dict[str, float]:
        return {"spent": self.spent, "in_flight": self.in_flight, "refused": self.refused,
                "peak_rows_in_flight": self.peak_rows_in_flight}


class Slots:
    """llm.concurrency model calls in flight across the cluster (an asyncio semaphore: waiting callers
    hold no thread of the actor)."""

    def __init__(self, slots: int) -> None:
        import asyncio

        self._sem = asyncio.Semaphore(slots)
        self.in_use = 0
        self.peak = 0

    async def acquire(self) -> None:
        await self._sem.acquire()
        self.in_use += 1
        self.peak = max(self.peak, self.in_use)

    async def release(self) -> None:
        self.in_use -= 1
        self._sem.release()

    async def stats(self) -> dict[str, int]:
        return {"in_use": self.in_use, "peak": self.peak}


class SharedActor:
    """The budget and the slots in one actor (one process for a run's both). An async actor: its methods
    are coroutines on one event loop, so a caller waiting for a slot holds no thread, and the budget's
    methods, which never await, run whole, one at a time: reserve-then-settle stays atomic."""

    def __init__(self, cap_usd: float | None, slots: int) -> None:
        self._budget = ClusterBudget(cap_usd)
        self._slots = Slots(slots)

    async def reserve(self, estimate_usd: float) -> bool:
        return self._budget.reserve(estimate_usd)

    async def settle(self, estimate_usd: float, actual_usd: float) -> None:
        self._budget.settle(estimate_usd, actual_usd)

    async def is_exhausted(self) -> bool:
        return self._budget.is_exhausted()

    async def totals(self) -> dict[str, float]:
        return self._budget.totals()

    async def acquire(self) -> None:
        await self._slots.acquire()

    async def release(self) -> None:
        await self._slots.release()

    async def stats(self) -> dict[str, int]:
        return await self._slots.stats()


class BudgetProxy:
    """The Budget interface RowGate and runner use, answered by the shared actor."""

    def __init__(self, actor: Any) -> None:
        self._actor = actor

    def reserve(self, estimate_usd: float) -> bool:
        return ray.get(self._actor.reserve.remote(estimate_usd))

    def settle(self, estimate_usd: float, actual_usd: float) -> None:
        ray.get(self._actor.settle.remote(estimate_usd, actual_usd))

    @property
    def exhausted(self) -> bool:
        return ray.get(self._actor.is_exhausted.remote())


class SlotsProxy:
    """A context-manager semaphore (budget.LimitedChat's limiter) backed by the shared actor's slots."""

    def __init__(self, actor: Any) -> None:
        self._actor = actor

    def __enter__(self) -> "SlotsProxy":
        ray.get(self._actor.acquire.remote())
        return self

    def __exit__(self, *exc: Any) -> None:
        ray.get(self._actor.release.remote())
