"""Store read cost as the store grows: dense query (30 candidates) and fetch-by-id (30 passages) per row
at 1k, 5k and 20k chunks, with the store's reads (manifest checked on the returned metadata) against the
former where-filter on document hashes, measured interleaved in one run.

    python benchmarks/store_scaling.py [--sizes 1000,5000,20000] [--queries 40]

Chunks are synthetic (random unit vectors, 384 dimensions like MiniLM, 50 documents): the read path does
not care where vectors come from, and a 20k-chunk store is built in seconds without embedding anything.
Prints median milliseconds per call and the growth from the smallest to the largest store (target: flat
within 20 %). Needs no dataset."""

from __future__ import annotations

import argparse
import hashlib
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DIM = 384
DOCS = 50


def build(workspace: Path, n_chunks: int):
    import numpy as np

    from autofill.records import Chunk, DocumentRecord
    from autofill.settings import Settings
    from autofill.store.chroma_store import open_store

    settings = Settings(workspace=workspace)
    store = open_store(settings, f"Scale {n_chunks}", create=True, embedder="bench:random")
    rng = np.random.default_rng(n_chunks)
    per_doc = n_chunks // DOCS
    for d in range(DOCS):
        name = f"report-{d:02d}.pdf"
        sha = hashlib.sha256(f"{name}:{n_chunks}".encode()).hexdigest()
        chunks = [Chunk(id=f"{sha[:16]}-{i:05d}", company=store.company, file_name=name, doc_sha256=sha,
                        page_start=1 + i // 4, page_end=1 + i // 4, section="Section", index=i, has_table=False,
                        text=f"passage {i} of {name}: emissions, water, safety figure {i * 7 % 1000}",
                        content_hash=f"{i}") for i in range(per_doc)]
        vectors = rng.normal(size=(per_doc, DIM)).astype("float32")
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        record = DocumentRecord(file_name=name, sha256=sha, pages=1 + per_doc // 4, chunks=per_doc, empty_pages=0,
                                ingested_at="")
        store.replace_document(record, chunks, vectors.tolist())
    return store, rng


def median_ms(fn, args_list) -> float:
    times = []
    for args in args_list:
        t0 = time.perf_counter()
        fn(*args)
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def measure(n_chunks: int, queries: int) -> dict:
    import numpy as np

    with tempfile.TemporaryDirectory(prefix="autofill-scale-") as tmp:
        store, rng = build(Path(tmp), n_chunks)
        shas = sorted({r.sha256 for r in store.documents().values()})
        qs = rng.normal(size=(queries, DIM)).astype("float32")
        qs = (qs / np.linalg.norm(qs, axis=1, keepdims=True)).tolist()
        all_ids = store._chunks.get(include=[])["ids"]
        id_sets = [[all_ids[int(j)] for j in rng.choice(len(all_ids), 30, replace=False)] for _ in range(queries)]

        def filtered_query(q):
            store._chunks.query(query_embeddings=[q], n_results=30, where={"doc_sha256": {"$in": shas}},
                                include=["documents", "metadatas", "distances"])

        def filtered_get(ids):
            store._chunks.get(ids=ids, where={"doc_sha256": {"$in": shas}}, include=["documents", "metadatas"])

        store.query(qs[0], 30)  # warm the HNSW index into memory for both
        out = {"chunks": store._chunks.count()}
        # Interleaved, so load from other processes hits both alike.
        a, b, c, d = [], [], [], []
        for q, ids in zip(qs, id_sets):
            a.append(median_ms(lambda x: store.query(x, 30), [(q,)]))
            b.append(median_ms(filtered_query, [(q,)]))
            c.append(median_ms(store.get_passages, [(ids,)]))
            d.append(median_ms(filtered_get, [(ids,)]))
        out.update(query_ms=statistics.median(a), filtered_query_ms=statistics.median(b),
                   get_ms=statistics.median(c), filtered_get_ms=statistics.median(d))
        return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,5000,20000")
    ap.add_argument("--queries", type=int, default=40)
    args = ap.parse_args()
    rows = [measure(int(s), args.queries) for s in args.sizes.split(",")]
    print("| chunks | query ms (manifest check) | query ms (hash filter) | get 30 ms (manifest check) "
          "| get 30 ms (hash filter) |")
    print("| --- | --- | --- | --- | --- |")
    for r in rows:
        print(f"| {r['chunks']} | {r['query_ms']:.1f} | {r['filtered_query_ms']:.1f} | {r['get_ms']:.1f} "
              f"| {r['filtered_get_ms']:.1f} |")
    first, last = rows[0], rows[-1]
    print(f"growth {first['chunks']} -> {last['chunks']} chunks: query x{last['query_ms'] / first['query_ms']:.2f} "
          f"(hash filter x{last['filtered_query_ms'] / first['filtered_query_ms']:.2f}), "
          f"get x{last['get_ms'] / first['get_ms']:.2f} (hash filter x{last['filtered_get_ms'] / first['filtered_get_ms']:.2f})")


if __name__ == "__main__":
    main()
