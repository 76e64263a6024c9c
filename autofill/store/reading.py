"""The company's store for reading (run, ask, eval, batch, library, review): the snapshot-backed
`ReadStore` (store/snapshot.py) when the store has a snapshot, else the Chroma store itself. Apart from
snapshot.py, which the Chroma store's writes call, so that neither imports the other back."""

from __future__ import annotations

from typing import Any

from autofill.settings import Settings
from autofill.store.snapshot import ReadStore, read_snapshot


def open_for_reading(settings: Settings, company: str) -> Any:
    """The company's store for a run: a ReadStore when it has a snapshot, else the Chroma store itself
    (chroma_store.open_store; its not-found error when there is none)."""
    from autofill.store.chroma_store import open_store  # Chroma's plumbing only when it is needed

    snapshot = read_snapshot(settings, company)
    if snapshot is None:
        return open_store(settings, company)
    return ReadStore(settings, snapshot, lambda: open_store(settings, company))


def find_for_reading(settings: Settings, company: str) -> Any:
    """As open_for_reading, but None when the company has no store."""
    from autofill.store.chroma_store import find_store, open_store

    snapshot = read_snapshot(settings, company)
    if snapshot is None:
        return find_store(settings, company)
    return ReadStore(settings, snapshot, lambda: open_store(settings, company))
