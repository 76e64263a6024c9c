"""What `autofill forget` deletes from the store itself: one document's chunks (the keyword index rebuilt
from the rest) or the store's two collections; forget.py then removes the files the store derives
(store/derived.py) and reclaims the database (store/reclaim.py)."""

from __future__ import annotations

from autofill.errors import InputError
from autofill.store import chroma_client as cc
from autofill.store import reclaim
from autofill.store.chroma_store import CompanyStore


def check_document(store: CompanyStore, doc: str | None) -> None:
    """`doc` must be one of the store's documents (None: the whole store)."""
    docs = store.documents()
    if doc is not None and doc not in docs:
        known = ", ".join(docs) or "none"
        raise InputError(f"no document {doc!r} in the evidence store for {store.company!r} (documents: {known})")


def delete_from(store: CompanyStore, doc: str | None = None) -> tuple[str, list[str]]:
    """Delete one document's chunks from the store (its keyword index rebuilt from the rest), or the
    store's collections. The caller holds `store.writing("forget", wait_s=0)` and removes the files the
    store derives (store/derived.py), then reclaims the database (store/reclaim.py). Returns what was
    done and the ids of the collections deleted (for the reclaim)."""
    settings = store.settings
    check_document(store, doc)
    docs = store.documents()
    if doc is not None:
        store.delete_document(doc)
        store.rebuild_bm25()
        return f"Forgot {doc} ({docs[doc].chunks} chunks) from the evidence store for {store.company}.", []
    names = [store.collection, store.collection + cc.DOCS_SUFFIX]
    deleted = reclaim.collection_ids(settings.vectordb_dir, names) if not settings.store.chroma_url else []
    client = cc.make_client(settings)
    for name in names:
        client.delete_collection(name)
    plural = "" if len(docs) == 1 else "s"
    return f"Forgot the evidence store for {store.company} ({len(docs)} document{plural}).", deleted
