"""Keyword index upkeep per ingest as the store grows: the rebuild that reads and tokenises every chunk
(how it was) against the rebuild from cached token lists (how it is), after adding one document, and the
index's search results compared between the two. Measured interleaved in one run.

    python benchmarks/bm25_update.py [--chunks 17500] [--docs 50] [--repeats 3]

Chunks are synthetic (~1,000 characters of Zipf-distributed words, random unit vectors): neither the
index nor Chroma's reads care where the text came from. Prints median seconds of each rebuild, the
ratio, and the one-off cost of tokenising a new document when it is stored. Needs no dataset."""

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


def words(rng, n_vocab: int = 6000) -> list[str]:
    letters = "abcdefghijklmnoprstuvwy"
    return ["".join(rng.choice(list(letters), size=int(rng.integers(3, 11)))) for _ in range(n_vocab)]


def document(rng, vocab, company: str, name: str, version: str, n: int):
    import numpy as np

    from autofill.records import Chunk, DocumentRecord

    sha = hashlib.sha256(f"{name}:{version}".encode()).hexdigest()
    ranks = np.arange(1, len(vocab) + 1)
    p = (1 / ranks) / (1 / ranks).sum()
    chunks = []
    for i in range(n):
        text = " ".join(vocab[j] for j in rng.choice(len(vocab), size=150, p=p))
        chunks.append(Chunk(id=f"{sha[:16]}-{i:05d}", company=company, file_name=name, doc_sha256=sha,
                            page_start=1 + i // 4, page_end=1 + i // 4, section=f"Part {i // 20}", index=i,
                            has_table=False, text=text, content_hash=str(i)))
    vectors = rng.normal(size=(n, DIM)).astype("float32")
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    record = DocumentRecord(file_name=name, sha256=sha, pages=1 + n // 4, chunks=n, empty_pages=0, ingested_at="",
                            chunking="bench")
    return record, chunks, vectors.tolist()


def full_rebuild(store):
    """The rebuild as it was: every current chunk read from Chroma and tokenised, then indexed."""
    from autofill.store.bm25_index import BM25Index, bm25_text

    current = {(r.file_name, r.sha256) for r in store.documents().values()}
    got = store._chunks.get(include=["documents", "metadatas"])
    rows = sorted(((m["file_name"], m["chunk_index"], cid, bm25_text(m.get("section", ""), t))
                   for cid, t, m in zip(got["ids"], got["documents"], got["metadatas"])
                   if (m["file_name"], m["doc_sha256"]) in current))
    index = BM25Index.build([r[2] for r in rows], [r[3] for r in rows], store._signature())
    index.save(store.bm25_dir)
    return index


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chunks", type=int, default=17500)
    ap.add_argument("--docs", type=int, default=50)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    import numpy as np

    from autofill.settings import Settings
    from autofill.store.chroma_store import open_store

    rng = np.random.default_rng(7)
    vocab = words(rng)
    per_doc = args.chunks // args.docs
    with tempfile.TemporaryDirectory(prefix="autofill-bm25-") as tmp:
        store = open_store(Settings(workspace=Path(tmp)), "Bench", create=True, embedder="bench:random")
        t0 = time.perf_counter()
        for d in range(args.docs - 1):
            store.replace_document(*document(rng, vocab, store.company, f"report-{d:03d}.pdf", "v1", per_doc))
        print(f"built {store.chunk_count()} chunks in {time.perf_counter() - t0:.0f} s", flush=True)
        store.rebuild_bm25()
        old_s, new_s, store_s, old_cpu, new_cpu = [], [], [], [], []
        for r in range(args.repeats):
            # One ingest: a new version of the last document, then the index rebuilt once.
            record, chunks, vectors = document(rng, vocab, store.company, f"report-{args.docs - 1:03d}.pdf", f"v{r}", per_doc)
            t = time.perf_counter()
            store.replace_document(record, chunks, vectors)
            store_s.append(time.perf_counter() - t)
            t, c = time.perf_counter(), time.process_time()
            old = full_rebuild(store)
            old_s.append(time.perf_counter() - t)
            old_cpu.append(time.process_time() - c)
            t, c = time.perf_counter(), time.process_time()
            store.rebuild_bm25()
            new_s.append(time.perf_counter() - t)
            new_cpu.append(time.process_time() - c)
            new = store._bm25
            queries = [" ".join(rng.choice(vocab[:800], size=4)) for _ in range(30)]
            same = sum(old.search(q, 30) == new.search(q, 30) for q in queries)
            print(f"  repeat {r + 1}: full {old_s[-1]:.2f} s ({old_cpu[-1]:.2f} s CPU), from cached tokens "
                  f"{new_s[-1]:.2f} s ({new_cpu[-1]:.2f} s CPU), "
                  f"identical results for {same}/{len(queries)} queries", flush=True)
        a, b = statistics.median(old_s), statistics.median(new_s)
        print(f"{args.chunks} chunks: index rebuild per ingest {a:.2f} s as it was, {b:.2f} s from cached tokens "
              f"({b / a:.2f}x; CPU {statistics.median(old_cpu):.2f} -> {statistics.median(new_cpu):.2f} s, "
              f"{statistics.median(new_cpu) / statistics.median(old_cpu):.2f}x); storing the new {per_doc}-chunk document (its tokens included) "
              f"{statistics.median(store_s):.2f} s")


if __name__ == "__main__":
    main()
