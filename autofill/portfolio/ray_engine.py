"""`autofill batch --engine ray`: a portfolio's work as Ray tasks (with ray_shared.py, the only modules that import ray).

Units of work, as the engine seam (portfolio/engine.py, runner.run_portfolio) hands it a prepared portfolio:
- per document to ingest, a task (`_document_task`, one CPU, anywhere in the cluster) that parses, OCRs,
  chunks and embeds it (ingest/pipeline.embed_file) and returns the chunks and vectors;
- per company, a task (`_company_task`, pinned to the driver's node) that stores its documents once
  (ingest_paths with the embedded results: a file already stored with the same bytes is skipped, a
  stored-again file replaces itself), then answers its questionnaire exactly as the local engine does
  (runner._run_company). It runs where the driver runs, so workbooks, review reports, checkpoints and an
  embedded store are written on the driver's disk, by one process per company; with `--chroma-url` the
  store is the server's. Its arguments are the document tasks' results, so Ray starts it when they are done.
All model calls of all companies pass through the slots (llm.concurrency calls in flight across the cluster)
and every row through the budget, which reserves and settles as budget.Budget does: both held by one actor
(ray_shared.SharedActor).

Faults: a worker killed mid-document or mid-company is retried by Ray (max_retries): the document is
parsed again and stored once; the company's finished rows come back from its checkpoint. A company whose
task fails for good is reported failed and the others go on. Ctrl-C or SIGTERM of the driver cancels its
tasks and shuts down the local Ray instance it started (its raylet, GCS and workers end with it).

Progress on the driver: a bar of documents (each noted with its company and file as it is embedded) and
the bar of companies with one line per finished company, as the local engine shows it."""

from __future__ import annotations

import dataclasses
import logging
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ray

from autofill.errors import InputError
from autofill.hashing import file_sha256
from autofill.portfolio.budget import Budget, SerialEmbedder
from autofill.portfolio.estimate import PortfolioEstimate
from autofill.portfolio.interrupts import Interrupts
from autofill.portfolio.outcome import FAILED, CompanyOutcome
from autofill.portfolio.ray_shared import BudgetProxy, SharedActor, SlotsProxy
from autofill.portfolio.runner import EngineRun, Prepared, _run_company, _Shared, company_done
from autofill.providers.factory import make_embedder
from autofill.settings import Settings
from autofill.store.chroma_store import find_store

log = logging.getLogger(__name__)

TASK_RETRIES = 3  # a task whose worker process dies is run again this often before its company fails
WAIT_S = 0.5  # the driver waits for tasks this long at a time, and looks for an interrupt in between
COMPANY_CPUS = 1.0  # retrieval, query embedding and workbook writing of one company


@dataclass
class EmbeddedDocument:
    """One document parsed, chunked and embedded by a worker (`done`: ingest/pipeline._Embedded)."""

    path: str
    sha256: str
    chunking: str  # ingest.pipeline.chunking_fingerprint it was chunked with
    embedder: str
    done: Any
    cpu_s: float  # CPU seconds of the worker for this document
    wall_s: float
    pid: int  # the worker process


# --------------------------------------------------------------------------- on the workers

# Imported once per worker process, on its main thread, before a task starts threads: a fresh worker's
# row threads and embedder-loading thread otherwise import numpy, Chroma and the answer modules at the
# same moment (seen here: "partially initialized module 'numpy._typing'", RecursionError).
_WARM_LIBRARIES = ("numpy", "onnxruntime", "tokenizers", "chromadb", "bm25s", "openpyxl", "openai", "pymupdf")
_WARM_PACKAGES = ("autofill.answer", "autofill.ingest", "autofill.store", "autofill.checks", "autofill.workbook",
                  "autofill.library", "autofill.providers")
_WARM_SKIP = ("autofill.providers.local_torch", "autofill.providers.cohere_provider", "autofill.workbook.live")
_warmed = False


def _warm_imports() -> None:
    import importlib
    import pkgutil

    global _warmed
    if _warmed:
        return
    names = list(_WARM_LIBRARIES)
    for package in _WARM_PACKAGES:
        module = importlib.import_module(package)
        names += [m.name for m in pkgutil.iter_modules(module.__path__, package + ".") if m.name not in _WARM_SKIP]
    for name in names:
        try:
            importlib.import_module(name)
        except ImportError:  # an optional library this install leaves out: its users say so when asked
            log.debug("not imported ahead: %s", name)
    _warmed = True

_EMBEDDERS: dict[tuple[str, str], SerialEmbedder] = {}  # (name, what else builds it) -> embedder
_EMBEDDERS_LOCK = threading.Lock()


def _embedder(settings: Settings, name: str) -> SerialEmbedder:
    """One embedder per worker process and name: a local model loads once per worker, not per task. A
    worker serves every run of its Ray job, so the key holds all that builds the embedder (an API
    embedder's endpoint and key are llm settings)."""
    import hashlib
    import pickle


    key = (name, hashlib.sha256(pickle.dumps((settings.embedding, settings.llm))).hexdigest())
    with _EMBEDDERS_LOCK:
        if key not in _EMBEDDERS:
            _EMBEDDERS[key] = SerialEmbedder(make_embedder(settings, name))
        return _EMBEDDERS[key]


def embed_document(settings: Settings, company: str, path: str, embedder_name: str) -> EmbeddedDocument:
    """The document unit of work, without Ray (the task below runs it)."""
    from autofill.ingest.pipeline import chunking_fingerprint, embed_file

    cpu, wall = time.process_time(), time.perf_counter()
    embedder = _embedder(settings, embedder_name)
    done = embed_file(Path(path), company, settings.ingest, embedder)
    sha = done.doc.sha256 if done.doc is not None else file_sha256(path)
    return EmbeddedDocument(path, sha, chunking_fingerprint(settings.ingest), embedder.name, done,
                            time.process_time() - cpu, time.perf_counter() - wall, os.getpid())


@ray.remote(num_cpus=1, max_retries=TASK_RETRIES)
def _document_task(settings: Settings, company: str, path: str, embedder_name: str) -> EmbeddedDocument:
    _warm_imports()
    return embed_document(settings, company, path, embedder_name)


class _StateRecord:
    """Stands in for plan.PortfolioState on a worker: the record goes back to the driver, which alone
    writes the state file (two processes writing it would each drop the other's companies)."""

    def __init__(self) -> None:
        self.record: dict[str, Any] | None = None

    def get(self, company: str) -> dict[str, Any]:
        return {}

    def put(self, company: str, record: dict[str, Any]) -> None:
        self.record = record


class _RayShared(_Shared):
    """runner._Shared for one company task: the cluster's slots and budget, this worker's embedder, and
    an ingest that stores the documents the document tasks embedded."""

    def __init__(self, settings: Settings, shared: Any, documents: tuple[EmbeddedDocument, ...]) -> None:
        from filelock import FileLock

        super().__init__(settings, BudgetProxy(shared), limiter=SlotsProxy(shared))
        self.documents = documents
        # One ingest at a time across the company tasks' processes, as runner's thread lock is within one:
        # two processes writing one embedded Chroma database met SQLite's "database is locked" (CI saw a
        # company fail with it instead of its own error). flock: released if the process dies.
        settings.vectordb_dir.mkdir(parents=True, exist_ok=True)
        self.ingest_lock = FileLock(str(settings.vectordb_dir / ".ingest-turn.lock"))

    def embedder(self, name: str) -> Any:
        return _embedder(self.settings, name)

    def ingest(self, settings: Settings, company: str, reports: list[Any], embedder: Any) -> Any:
        from autofill.ingest.contextualize import context_fingerprint
        from autofill.ingest.pipeline import chunking_fingerprint, ingest_paths

        chunking = chunking_fingerprint(settings.ingest, context_fingerprint(settings))
        embedded = {(d.path, d.sha256): d.done for d in self.documents
                    if d.chunking == chunking and d.embedder == embedder.name}
        return ingest_paths(settings, company, reports, embedder=embedder, embedded=embedded)


@ray.remote(num_cpus=COMPANY_CPUS, max_retries=TASK_RETRIES)
def _company_task(settings: Settings, prepared: Prepared, shared_actor: Any,
                  *documents: EmbeddedDocument) -> tuple[CompanyOutcome, dict[str, Any] | None, dict[str, float]]:
    _warm_imports()
    shared = _RayShared(settings, shared_actor, documents)
    outcome = _run_company(shared, prepared, prepared.plans[0])
    figures = {"documents": len(documents), "cpu_s": sum(d.cpu_s for d in documents),
               "wall_s": sum(d.wall_s for d in documents),
               "pages": sum(d.done.doc.page_count for d in documents if d.done.doc is not None)}
    return outcome, prepared.state.record, figures


# --------------------------------------------------------------------------- on the driver

class RayEngine:
    """See the module docstring. `address`: a running cluster to join ("": start a local instance)."""

    name = "ray"

    def __init__(self, address: str = "") -> None:
        self.address = address
        self.last: dict[str, Any] = {}  # figures of the last run (slots peak, documents' CPU seconds)

    def run(self, settings: Settings, prepared: Prepared, budget: Budget, reporter: Any,
            embedder: Any = None) -> EngineRun:
        if embedder is not None:
            raise ValueError("the Ray engine builds its embedders on its workers; inject none")
        started = self._connect()
        interrupts = Interrupts()
        interrupts.install()
        try:
            result = self._run(settings, prepared, budget, reporter, interrupts, cancel=not started)
            interrupts.check()  # one that came during the last wait
            return result
        finally:
            interrupts.restore()
            if started:
                ray.shutdown()  # the local instance this run started: raylet, GCS and workers end

    def _connect(self) -> bool:
        """Join the cluster at `address`, or start a local instance; False when this process is already
        connected (tests start one for the whole session)."""
        if ray.is_initialized():
            return False
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        options: dict[str, Any] = {"include_dashboard": False, "logging_level": logging.WARNING}
        try:
            if self.address:
                ray.init(address=self.address, **options)
            else:  # this machine only: listen on loopback, every core a worker
                ray.init(_node_ip_address="127.0.0.1", **options)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            where = f"the Ray cluster at {self.address}" if self.address else "a local Ray instance"
            raise InputError(f"cannot start or join {where}: {exc}") from None
        return True

    def _run(self, settings: Settings, prepared: Prepared, budget: Budget, reporter: Any,
             interrupts: Interrupts, cancel: bool) -> EngineRun:
        """`cancel`: on an interrupt, cancel the tasks still out; only where the connection outlives the
        run (a host's own). Where this run started Ray or joined a cluster, `ray.shutdown` ends them with
        the job, and a forced cancel racing a task that finishes meanwhile can kill the driver inside Ray
        (task_manager.cc "Tried to complete task that was not pending": exit 1, not 130; 1 run in 12)."""
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        shared = ray.remote(num_cpus=0)(SharedActor).remote(budget.cap, settings.llm.concurrency)
        here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=False)
        settings_ref = ray.put(settings)
        window = max(settings.portfolio.companies_at_once, int(ray.cluster_resources().get("CPU", 1)))
        queue = list(prepared.plans)
        to_embed = sum(len(_documents_of(settings, p)[1]) for p in queue)
        docs_bar = reporter.bar("Documents", to_embed, "documents") if to_embed else None
        bar = reporter.bar("Companies", len(queue), "companies")
        outstanding: dict[Any, tuple[str, Any, str]] = {}  # ref -> (kind, plan, file name)
        outcomes: dict[str, CompanyOutcome] = {}
        figures: dict[str, float] = {"documents": 0, "cpu_s": 0.0, "wall_s": 0.0, "pages": 0}
        active = 0
        try:
            while queue or outstanding:
                while queue and active < window:
                    plan = queue.pop(0)
                    name, paths = _documents_of(settings, plan)
                    refs = [_document_task.remote(settings_ref, plan.entry.company, path, name) for path in paths]
                    outstanding.update((ref, ("document", plan, Path(path).name)) for ref, path in zip(refs, paths))
                    one = dataclasses.replace(prepared, plans=[plan], state=_StateRecord(),
                                              estimate=PortfolioEstimate([plan.estimate]))
                    ref = _company_task.options(scheduling_strategy=here).remote(
                        settings_ref, one, shared, *refs)
                    outstanding[ref] = ("company", plan, "")
                    active += 1
                ready, _ = ray.wait(list(outstanding), num_returns=1, fetch_local=False, timeout=WAIT_S)
                interrupts.check()
                for ref in ready:
                    kind, plan, file_name = outstanding.pop(ref)
                    if kind == "document":
                        docs_bar.advance()
                        docs_bar.note(f"{plan.entry.company}: {file_name}")
                        continue
                    active -= 1
                    outcome = _collect(ref, plan, prepared, figures)
                    outcomes[outcome.company] = outcome
                    company_done(reporter, bar, outcome)
        except BaseException:
            for ref in outstanding if cancel else ():  # Ctrl-C: stop every task (finished rows are saved)
                try:
                    ray.cancel(ref, force=True)
                except Exception:  # noqa: BLE001 - a task that finished meanwhile cannot be cancelled
                    pass
            raise
        finally:
            bar.close()
            if docs_bar is not None:
                docs_bar.close()
        self.last = {"slots": ray.get(shared.stats.remote()), "budget": ray.get(shared.totals.remote()),
                     "documents": figures}
        return EngineRun(outcomes, ray.get(shared.is_exhausted.remote()))


def _documents_of(settings: Settings, plan: Any) -> tuple[str, list[str]]:
    """The embedder and the files a company's document tasks embed: none when it is up to date, cannot
    be run, or contextualises its chunks (those model calls are priced and capped per company, so its
    own task ingests it, as the local engine does)."""
    if plan.estimate.up_to_date or plan.estimate.error or not plan.to_ingest or settings.ingest.contextualize:
        return "", []
    from autofill.ingest.planning import embedder_for

    try:
        store = find_store(settings, plan.entry.company)
    except InputError:
        return "", []  # its company task reports why
    name = embedder_for(settings, store.embedder_name if store is not None else None)
    del store
    return name, list(plan.to_ingest)


def _collect(ref: Any, plan: Any, prepared: Prepared, figures: dict[str, float]) -> CompanyOutcome:
    """A company task's outcome; its state record is written here, on the driver. A task that failed
    for good (its worker died more than TASK_RETRIES times, a document task failed) fails its company."""
    entry = plan.entry
    try:
        outcome, record, done = ray.get(ref)
    except ray.exceptions.RayError as exc:
        return CompanyOutcome(company=entry.company, status=FAILED, error=_reason(exc), year=entry.year,
                              questionnaire=str(entry.questionnaire))
    if record is not None:
        prepared.state.put(entry.company, record)
    for key, value in done.items():
        figures[key] += value
    return outcome


def _reason(exc: BaseException) -> str:
    cause = getattr(exc, "cause", None)
    if isinstance(cause, BaseException) and not isinstance(cause, ray.exceptions.RayError):
        return f"{type(cause).__name__}: {cause}"
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__
