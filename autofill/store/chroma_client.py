"""Chroma plumbing: the client (embedded PersistentClient or HttpClient against `chroma run`), collection
names derived from company names, and an embedding function that refuses to embed.

Why the refusing embedding function: Chroma attaches its default embedding function (which downloads an
ONNX model on first use) to any collection opened without one, and would silently embed text with it if a
caller ever passed texts instead of vectors. autofill always passes its own vectors; this guard turns any
slip into a clear error instead of a download or, worse, vectors from a different model."""

from __future__ import annotations

import threading
from typing import Any, Iterator, Sequence
from urllib.parse import urlparse

from autofill import imports
from autofill.collection_names import collection_name  # noqa: F401 (cc.collection_name, as its callers know it)
from autofill.errors import InputError
from autofill.redact import safe_text, safe_url
from autofill.settings import Settings

MARKER = "autofill_store"  # collection metadata key marking an autofill chunk collection
DOCS_SUFFIX = ".docs"  # companion collection holding the document manifest
# HNSW search breadth. Chroma's default (100) is approximate: on the BHP store (538 chunks) 2 of 15 queries
# returned different 30-candidate sets in different processes, so identical re-runs differed and missed the
# LLM cache. With ef_search above the number of chunks the graph search visits every chunk, so the ranking
# equals exact cosine ranking; beyond that it stays near-exact at a cost still small next to the LLM calls.
EF_SEARCH = 1000
# Neighbours considered while building the graph (default 100): a better-connected graph for the same
# search breadth; costs a little ingest time only.
EF_CONSTRUCTION = 200

_clients: dict[tuple[str, str], Any] = {}
_clients_lock = threading.Lock()


def batched(items: Sequence[Any], size: int) -> Iterator[slice]:
    for start in range(0, len(items), max(1, size)):
        yield slice(start, start + size)


def _refusing_embedding_function_class():
    types = imports.load("chromadb.api.types")
    Documents, EmbeddingFunction, Embeddings = types.Documents, types.EmbeddingFunction, types.Embeddings  # noqa: N806
    register_embedding_function = imports.load("chromadb.utils.embedding_functions").register_embedding_function

    @register_embedding_function
    class PrecomputedOnly(EmbeddingFunction[Documents]):
        """Never embeds: autofill passes its own vectors. Recorded in the collection's configuration."""

        def __init__(self) -> None:
            pass

        def __call__(self, input: Documents) -> Embeddings:
            raise RuntimeError(
                "autofill passes its own embeddings; Chroma was asked to embed text, which is a bug"
            )

        @staticmethod
        def name() -> str:
            return "autofill-precomputed"

        @staticmethod
        def build_from_config(config: dict[str, Any]) -> "PrecomputedOnly":
            return PrecomputedOnly()

        def get_config(self) -> dict[str, Any]:
            return {}

        def default_space(self) -> str:
            return "cosine"

        def supported_spaces(self) -> list[str]:
            return ["cosine"]

    return PrecomputedOnly


_ef_class = None


def refusing_embedding_function() -> Any:
    global _ef_class
    if _ef_class is None:
        _ef_class = _refusing_embedding_function_class()
    return _ef_class()


def make_client(settings: Settings) -> Any:
    """One client per store location per process (Chroma itself shares one system per path)."""
    chromadb = imports.load("chromadb")
    ChromaSettings = imports.load("chromadb.config").Settings  # noqa: N806

    url = settings.store.chroma_url.strip()
    key = ("http", url) if url else ("path", str(settings.vectordb_dir.resolve()))
    with _clients_lock:
        if key in _clients:
            return _clients[key]
        # Telemetry off: it would try to reach the network on every client start.
        chroma_settings = ChromaSettings(anonymized_telemetry=False)
        if url:
            parsed = urlparse(url if "://" in url else f"http://{url}")
            if not parsed.hostname:
                raise InputError(f"not a Chroma server URL: {safe_url(url)!r} (expected http://HOST:PORT)")
            ssl = parsed.scheme == "https"
            port = parsed.port or (443 if ssl else 8000)
            try:
                client = chromadb.HttpClient(host=parsed.hostname, port=port, ssl=ssl, settings=chroma_settings)
                client.heartbeat()
            except Exception as exc:  # noqa: BLE001 - any connection failure is the user's URL or server
                raise InputError(f"cannot reach the Chroma server at {safe_url(url)}: {safe_text(exc)}") from None
        else:
            settings.vectordb_dir.mkdir(parents=True, exist_ok=True)
            client = chromadb.PersistentClient(path=str(settings.vectordb_dir), settings=chroma_settings)
        _clients[key] = client
        return client


def get_collection(client: Any, name: str) -> Any | None:
    """The collection `name` with the refusing embedding function attached, or None when absent."""
    from chromadb.errors import NotFoundError

    try:
        return client.get_collection(name, embedding_function=refusing_embedding_function())
    except NotFoundError:
        return None


def create_collection(client: Any, name: str, metadata: dict[str, Any]) -> Any:
    return client.get_or_create_collection(
        name,
        configuration={"hnsw": {"space": "cosine", "ef_search": EF_SEARCH, "ef_construction": EF_CONSTRUCTION}},
        metadata=metadata,
        embedding_function=refusing_embedding_function(),
    )


def ensure_search_ef(collection: Any) -> Any:
    """Raise a collection made before EF_SEARCH existed (Chroma's default is 100) to EF_SEARCH; a no-op
    when it already has it. ef_construction is fixed at creation, so old stores keep theirs; ef_search is
    what makes the ranking exact. Chroma reads ef_search when it loads the index: an embedded store picks
    the change up in the next process (the CLI opens stores before any query, so that is this one), a
    running `chroma run` server when it next loads the collection's index (after a restart)."""
    hnsw = (collection.configuration_json or {}).get("hnsw")
    if hnsw is None or hnsw.get("ef_search") == EF_SEARCH:
        return collection  # up to date, or another index type (SPANN on Chroma Cloud) with its own knobs
    collection.modify(configuration={"hnsw": {"ef_search": EF_SEARCH}})
    return collection
