"""One lock for every heavy import that a worker thread may make lazily.

Python imports a module under a per-module lock, but two threads importing *different* packages that
share dependencies (chromadb and the openai SDK both reach httpx, anyio, pydantic) can deadlock on
those locks, and Python breaks such a deadlock by handing one thread a partially initialised module:
`AttributeError: partially initialized module 'httpx' has no attribute 'Timeout'`. Worse, some
libraries look modules up in `sys.modules` without importing them: openai 3.x checks on every request
whether the legacy `httpx` is loaded (openai/_httpx2.py) and reads `httpx.Response` from it, so a
thread importing chromadb (which imports httpx) fails every request made meanwhile.

So: the SDKs and native libraries that run or batch threads may import first (openai, httpx, cohere,
chromadb, pymupdf, onnxruntime, tokenizers) are imported through `load()`, which holds one process-wide
lock, and whatever a library may find half-imported in `sys.modules` is imported before that library
makes its first call (openai_provider.make_client loads httpx before building the client, and every
request waits for the client). Already imported modules are returned without taking the lock."""

from __future__ import annotations

import importlib
import sys
import threading
from types import ModuleType

_LOCK = threading.RLock()


def _ready(module: ModuleType | None) -> bool:
    """Imported and finished initialising (a module being imported by another thread is in sys.modules
    before its body has run; its spec says so)."""
    return module is not None and not getattr(getattr(module, "__spec__", None), "_initializing", False)


def load(name: str) -> ModuleType:
    """The module `name`, imported under the process-wide import lock when it is not fully imported yet.
    ImportError propagates: a missing or broken install is the caller's to report, never swallowed."""
    module = sys.modules.get(name)
    if _ready(module):
        return module  # type: ignore[return-value]
    with _LOCK:
        return importlib.import_module(name)


def lock() -> threading.RLock:
    """The import lock, for an import that needs more than `load` (pdflib.import_pymupdf)."""
    return _LOCK


def warm(*names: str) -> None:
    """Import `names` now, in this thread (call before starting worker threads)."""
    for name in names:
        load(name)
