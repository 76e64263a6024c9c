"""Where a portfolio's companies are worked on: the seam between `run_portfolio` (manifest, estimate,
overview workbook, index page: the same whatever the engine) and the engine that runs the companies.

`LocalEngine` (portfolio.engine = "local"): threads in this process, `portfolio.companies_at_once`
companies at a time, one ingest at a time, every model call through one semaphore of `llm.concurrency`
slots and every row through one Budget (runner._Shared). `RayEngine` (portfolio.engine = "ray",
portfolio/ray_engine.py): documents parsed and embedded as Ray tasks across a cluster, companies answered
as Ray tasks under one cluster-wide slot limit and budget. Both hand back one CompanyOutcome per company."""

from __future__ import annotations

import concurrent.futures as cf
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from autofill.settings import Settings

if TYPE_CHECKING:
    from autofill.portfolio.budget import Budget
    from autofill.portfolio.runner import CompanyOutcome, Prepared
    from autofill.reporting import Reporter


@dataclass
class EngineRun:
    outcomes: dict[str, "CompanyOutcome"]  # by company name, one per plan
    cap_reached: bool  # the budget refused a row or an ingest: some work stays pending


class Engine(Protocol):
    name: str

    def run(self, settings: Settings, prepared: "Prepared", budget: "Budget", reporter: "Reporter",
            embedder: Any = None) -> EngineRun: ...


def company_done(reporter: "Reporter", bar: Any, outcome: "CompanyOutcome") -> None:
    """The driver's progress for one finished company, the same line whichever engine ran it."""
    from autofill.portfolio.runner import FAILED

    bar.advance()
    bar.note(outcome.company)
    if outcome.status != FAILED:  # failures: in the report, which the CLI shows on stderr
        reporter.message(f"{outcome.company}: {outcome.status}, {outcome.answered + outcome.drafted} rows answered, "
                         f"{outcome.pending_rows} pending, ${outcome.cost_usd:.4f}")


class LocalEngine:
    """Companies in a thread pool of this process (see the module docstring)."""

    name = "local"

    def run(self, settings: Settings, prepared: "Prepared", budget: "Budget", reporter: "Reporter",
            embedder: Any = None) -> EngineRun:
        from autofill.portfolio.runner import _run_company, _Shared

        # Calls of every company share the llm.concurrency slots; each company's own pool may use them all.
        shared = _Shared(settings, budget, embedder)
        bar = reporter.bar("Companies", len(prepared.plans), "companies")
        outcomes: dict[str, Any] = {}
        pool = cf.ThreadPoolExecutor(max_workers=settings.portfolio.companies_at_once,
                                     thread_name_prefix="autofill-co")
        try:
            futures = {pool.submit(_run_company, shared, prepared, plan): plan for plan in prepared.plans}
            for future in cf.as_completed(futures):
                outcome = future.result()
                outcomes[outcome.company] = outcome
                company_done(reporter, bar, outcome)
        except BaseException:
            shared.stop.set()  # rows not yet started stay pending; rows in flight finish their call
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        finally:
            bar.close()
        pool.shutdown(wait=True)
        return EngineRun(outcomes, shared.budget.exhausted)


def make_engine(settings: Settings) -> Engine:
    """The engine portfolio.engine names (settings.validate has checked the name)."""
    if settings.portfolio.engine == "ray":
        from autofill.extras import require

        require("ray", "autofill batch --engine ray")
        from autofill.portfolio.ray_engine import RayEngine

        return RayEngine(settings.portfolio.ray_address)
    return LocalEngine()
