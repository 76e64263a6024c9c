"""PyMuPDF for the commands that only read and render PDFs (review pages, page look-ups), without the
seconds its layout model costs at import.

PyMuPDF 2.0 imports `pymupdf.layout` whenever the pymupdf-layout package is installed, and that import
builds an ONNX layout model at once (3 of a one-row run's ~5 CPU seconds on this machine), though only
table detection at ingest uses it. `import_pymupdf()` imports PyMuPDF with that model deferred: the
layout hook is set to a function that builds the same model (`DocumentLayoutAnalyzer.get_model()`, as
`pymupdf.layout.activate` does) on its first call, so a later ingest in the same process (a portfolio
run) finds the same tables. Where PyMuPDF is already imported, it is returned as it is."""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
from typing import Any

from autofill import imports

# Imported by PyMuPDF's own __init__ when installed, used by no reading or rendering autofill does:
# the layout model (built at import) and pymupdf4llm (Markdown export; imports the table module and
# OCR helpers, ~0.5 s). A later `import pymupdf4llm` still works.
_DEFERRED = ("pymupdf.layout", "pymupdf4llm")
_model_lock = threading.Lock()
_model: Any = None


def _lazy_layout(*args: Any, **kwargs: Any) -> Any:
    global _model
    with _model_lock:
        if _model is None:
            # Importing pymupdf.layout runs its activate(), a no-op now that this hook is set.
            from pymupdf.layout import DocumentLayoutAnalyzer

            _model = DocumentLayoutAnalyzer.get_model()
    return _model.predict(*args, **kwargs)


def import_pymupdf() -> Any:
    """The pymupdf module; its layout model is built on first use, not at import. Under the process-wide
    import lock (autofill/imports.py): a thread never gets a module another thread is still importing
    (that returned a half-initialised pymupdf whose first attribute failed). A failed import raises."""
    module = sys.modules.get("pymupdf")
    if module is not None and not getattr(getattr(module, "__spec__", None), "_initializing", False):
        return module
    with imports.lock():
        module = sys.modules.get("pymupdf")
        if module is not None:  # being imported by a thread outside the lock: wait for it to finish
            return importlib.import_module("pymupdf")
        blocked = [name for name in _DEFERRED if name not in sys.modules]
        for name in blocked:
            sys.modules[name] = None  # type: ignore[assignment]  # pymupdf's import of it fails quietly
        try:
            import pymupdf
        finally:
            for name in blocked:
                if name in sys.modules and sys.modules[name] is None:
                    del sys.modules[name]
        if pymupdf._get_layout is None and importlib.util.find_spec("pymupdf.layout") is not None:
            pymupdf._get_layout = _lazy_layout
    return pymupdf
