"""Rows answered concurrently (`llm.concurrency`) for `autofill run` (answer/pipeline.py): the thread pool
that answers them and hands each finished row back to the run's one thread (the checkpoint's single
writer), stopping on Ctrl-C, a broken template or an endpoint that went away (providers/breaker.py); and
the store's Chroma opened beside the first model call rather than inside the first row."""

from __future__ import annotations

import concurrent.futures as cf
import logging
import threading
from typing import Any, Callable

from autofill.answer.row import RowContext, RunStopped, answer_row
from autofill.providers.breaker import EndpointDown
from autofill.providers.cache import CachedChat
from autofill.records import QuestionRow, RowResult

log = logging.getLogger(__name__)


def answer_concurrently(ctx: RowContext, rows: list[QuestionRow], concurrency: int,
                         finished: Callable[[RowResult], None],
                         check: Callable[[RowResult], RowResult] = lambda r: r,
                         gate: Any = None) -> EndpointDown | None:
    """Answer rows in a thread pool, calling `finished` from this thread as each completes (so the
    checkpoint has a single writer). Ctrl-C or a broken template stops the pool: queued rows are
    cancelled and in-flight ones abandoned; everything finished so far is already checkpointed. An
    endpoint that stops answering (providers/breaker.py) stops it too, but returns its error: the rows
    that finished are written back before the run reports it."""
    if not rows:
        return None
    stopped: EndpointDown | None = None
    pool = cf.ThreadPoolExecutor(max_workers=max(1, concurrency), thread_name_prefix="autofill-row")
    try:
        work = gate.wrap(answer_row) if gate is not None else answer_row

        def one(row: QuestionRow) -> RowResult | None:
            result = work(ctx, row)
            return None if result is None else check(result)

        futures = [pool.submit(one, row) for row in rows]
        for future in cf.as_completed(futures):
            try:
                result = future.result()
            except (EndpointDown, RunStopped, cf.CancelledError) as exc:
                if stopped is None and not isinstance(exc, EndpointDown):
                    raise
                if stopped is None:  # the endpoint went away mid-run: stop, keep what finishes
                    stopped = exc
                    ctx.stop.set()
                    for queued in futures:
                        queued.cancel()
                continue
            if result is not None:  # None: the gate did not start the row (cost cap); it stays pending
                finished(result)
    except BaseException:
        # Queued rows are cancelled; rows in flight stop before their next model call (each waits
        # at most for the call it is in), so nothing keeps calling the API after the run has ended.
        ctx.stop.set()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return stopped


def open_store_with_first_call(chat: Any, store: Any) -> None:
    """Open the store's Chroma (a 1.6 s import) in a thread once the first model call is on its way,
    instead of in the first row that searches after its HyDE reply: a run that calls the model waits
    on the network then anyway, and a run answered from the cache never opens it (store/snapshot.py).
    The thread first builds the chat's SDK client (or waits for the call building it), so the two
    imports never compete for the interpreter ahead of that first call."""

    warm = getattr(store, "warm", None)
    if chat is None or not callable(warm):
        return
    inner = chat.chat if isinstance(chat, CachedChat) else chat

    def start() -> None:
        def run() -> None:
            try:
                prepare = getattr(inner, "prepare", None)
                if callable(prepare):
                    prepare()
                warm()
            except Exception as exc:  # noqa: BLE001 - the row that searches next meets it again, clearly
                log.debug("opening the store ahead of the first search failed: %s", exc)

        threading.Thread(target=run, name="autofill-open-store", daemon=True).start()

    if isinstance(chat, CachedChat):
        chat.on_miss = start
    elif callable(getattr(chat, "prepare", None)):  # no response cache: every call goes out
        start()
    # (a portfolio's chat, shared by companies running at once, is left alone: its stores open lazily)
