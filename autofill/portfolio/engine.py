"""Where a portfolio's companies are worked on: the seam between `run_portfolio` (manifest, estimate,
overview workbook, index page: the same whatever the engine) and the engine that runs the companies.

`runner.LocalEngine` (portfolio.engine = "local"): threads in this process, `portfolio.companies_at_once`
companies at a time, one ingest at a time, every model call through one semaphore of `llm.concurrency`
slots and every row through one Budget (runner._Shared). `ray_engine.RayEngine` (portfolio.engine =
"ray"): documents parsed and embedded as Ray tasks across a cluster, companies answered as Ray tasks
under one cluster-wide slot limit and budget. Both hand back a runner.EngineRun: one CompanyOutcome per
company and whether the budget refused work. The CLI picks one with `make_engine` and hands it to
`run_portfolio` (which imports neither engine module: no import cycle)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from autofill.extras import require
from autofill.portfolio.runner import LocalEngine
from autofill.settings import Settings

if TYPE_CHECKING:
    from autofill.portfolio.budget import Budget
    from autofill.portfolio.runner import EngineRun, Prepared
    from autofill.reporting import Reporter


class Engine(Protocol):
    name: str

    def run(self, settings: Settings, prepared: "Prepared", budget: "Budget", reporter: "Reporter",
            embedder: Any = None) -> "EngineRun": ...


def make_engine(settings: Settings) -> Engine:
    """The engine portfolio.engine names (settings.validate has checked the name)."""
    if settings.portfolio.engine == "ray":
        require("ray", "autofill batch --engine ray")
        from autofill.portfolio.ray_engine import RayEngine

        return RayEngine(settings.portfolio.ray_address)

    return LocalEngine()
