"""Parsing ahead of the embedder, in a helper process that never outlives the ingest.

With several files, all are queued at once to one helper process, which works through them while the
ingest loads the model and embeds; a single file is parsed in the ingest's own process while the model
loads in a thread. A process, not a thread: parsing is Python-heavy and a parse thread holding the GIL
slowed the embedder's many small torch calls badly; the parser's own models (PyMuPDF layout, ONNX)
then never share the ingest's memory with torch (peak RSS ~1.1 GB -> ~0.8 GB there plus ~0.4 GB
here); and a parser crash on a hostile PDF only fails that file.

No orphans: the helper is forked from a forkserver (never from the ingest with its torch and Chroma
threads), so it is the forkserver's child, not the ingest's, and it holds the pipes that would tell
the forkserver its parent is gone. After `kill -9` of the ingest, helper and forkserver used to run
on for ever (~0.8 GB). Now the helper watches the ingest's PID (a pidfd on Linux, polling elsewhere)
and exits the moment it is gone; on Linux it also asks the kernel for SIGKILL when its own parent
(the forkserver) dies. With the helper gone, the forkserver and multiprocessing's resource tracker
see their pipes close and exit by themselves."""

from __future__ import annotations

import contextlib
import logging
import os
import select
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autofill.errors import InputError
from autofill.records import Chunk
from autofill.settings import IngestSettings

log = logging.getLogger(__name__)

PR_SET_PDEATHSIG = 1  # linux/prctl.h
POLL_S = 0.5  # where no pidfd is available: how often the helper checks that the ingest still runs


@dataclass
class Parsed:
    doc: Any = None
    chunks: list[Chunk] | None = None
    error: str = ""
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)  # damaged or partial file (ingest/damage.py)


def parse_one(path: Path, company: str, ingest: IngestSettings) -> Parsed:
    """Parse, check and chunk one file; a bad file becomes an error message, never an exception."""
    from autofill.ingest.chunking import chunk_document
    from autofill.ingest.damage import check_pdf, quiet_pdf_library
    from autofill.ingest.pdf import parse_pdf

    quiet_pdf_library()
    t = time.perf_counter()
    try:
        doc = parse_pdf(path, ingest)
        chunks = chunk_document(doc, company, ingest)
        if not chunks:
            raise InputError(f"no extractable text on any of its {doc.page_count} pages "
                             f"(scanned images? OCR is {'on' if ingest.ocr else 'off'})")
        found = check_pdf(path, doc, ingest)
        return Parsed(doc, chunks, seconds=time.perf_counter() - t, warnings=found)
    except InputError as exc:
        return Parsed(error=str(exc), seconds=time.perf_counter() - t)
    except Exception as exc:  # noqa: BLE001 - a parser crash on one odd file must not stop the others
        return Parsed(error=f"could not be parsed ({type(exc).__name__}: {exc})", seconds=time.perf_counter() - t)


# ------------------------------------------------------------------------------ dying with the ingest


def _exit_now() -> None:
    os._exit(0)  # no cleanup to do: the helper holds nothing but its current parse


def _ask_kernel_for_death_signal() -> None:
    """Linux: SIGKILL this process when its parent exits (prctl PR_SET_PDEATHSIG)."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(Exception):  # no libc / prctl: the watchdog below still works
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it exists
        return True
    return True


def _watch(pid: int) -> None:
    """Block until process `pid` has exited, then end this process."""
    pidfd = None
    with contextlib.suppress(AttributeError, OSError):
        pidfd = os.pidfd_open(pid)  # Linux 5.3+: readable once the process exits; immune to PID reuse
    if pidfd is not None:
        select.select([pidfd], [], [])  # waits without holding the GIL
        _exit_now()
    while _alive(pid):
        time.sleep(POLL_S)
    _exit_now()


def die_with(pid: int) -> None:
    """Make this process end when process `pid` (the ingest) ends, however it ends. A pool initializer
    (it runs first thing in the helper)."""
    _ask_kernel_for_death_signal()
    from autofill.ingest.damage import quiet_pdf_library

    quiet_pdf_library()
    if not _alive(pid):  # it died while this helper was starting
        _exit_now()
    threading.Thread(target=_watch, args=(pid,), name="watch-ingest", daemon=True).start()


# ------------------------------------------------------------------------------ the parser


class Parser:
    """Parses files ahead of the embedder (see the module docstring)."""

    def __init__(self, paths: list[Path], company: str, ingest: IngestSettings):
        self.company, self.ingest = company, ingest
        self._futures: dict[Path, Any] = {}
        self._pool: Any = None
        if len(paths) > 1:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            # forkserver: workers are forked from a clean server process, never from this one with its
            # torch and Chroma threads; spawn where forkserver is unavailable (Windows).
            method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
            self._pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context(method),
                                             initializer=die_with, initargs=(os.getpid(),))
            for path in paths:
                self._futures[path] = self._pool.submit(parse_one, path, company, ingest)

    def parse(self, path: Path) -> Parsed:
        future = self._futures.pop(path, None)
        if future is None:
            return parse_one(path, self.company, self.ingest)
        try:
            return future.result()
        except Exception as exc:  # noqa: BLE001 - the helper died: this file is the one it was parsing
            for other in list(self._futures):  # the rest are parsed here instead
                self._futures.pop(other).cancel()
            log.debug("the parse helper died while parsing %s: %r", path, exc)
            return Parsed(error=f"the PDF parser crashed on this file ({type(exc).__name__})")

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
