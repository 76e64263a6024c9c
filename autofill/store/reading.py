"""The company's store for reading (run, ask, eval, batch, library, review): the snapshot-backed
`ReadStore` (store/snapshot.py) when the store has a snapshot, else the Chroma store itself. Apart from
snapshot.py, which the Chroma store's writes call, so that neither imports the other back."""

from __future__ import annotations

from typing import Any

from autofill.settings import Settings
from autofill.store.chroma_store import find_store, open_store
from autofill.store.snapshot import ReadStore, heal_snapshot, read_snapshot


def open_for_reading(settings: Settings, company: str) -> Any:
    """The company's store for a run: a ReadStore when it has a snapshot, else the Chroma store itself
    (chroma_store.open_store; its not-found error when there is none)."""
    snapshot = read_snapshot(settings, company)
    if snapshot is None:
        store = open_store(settings, company)
        return _healed(settings, company, store)
    return ReadStore(settings, snapshot, lambda: open_store(settings, company))


def _healed(settings: Settings, company: str, store: Any) -> Any:
    """The Chroma store, or, when its snapshot was damaged and is now written again (heal_snapshot), the
    new snapshot's ReadStore over it, as the next run will read it."""
    if not heal_snapshot(settings, store):
        return store
    snapshot = read_snapshot(settings, company)
    return store if snapshot is None else ReadStore(settings, snapshot, lambda: store)


def find_for_reading(settings: Settings, company: str) -> Any:
    """As open_for_reading, but None when the company has no store."""
    snapshot = read_snapshot(settings, company)
    if snapshot is None:
        store = find_store(settings, company)
        return store if store is None else _healed(settings, company, store)
    return ReadStore(settings, snapshot, lambda: open_store(settings, company))
