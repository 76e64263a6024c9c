"""Embedders and embedded texts compared without a second ingest: the chunks of stores that
`retrieval_dev.py` built are embedded again in memory, by another local model and/or with another
embedded text, and the product's own `retrieve` and offline ordering run over them (BM25 comes from the
store as it is). How issue 27 chose bge-small-en-v1.5 with section-only texts: a full ingest of
financebench-dev takes 27 minutes here, a re-embedding 16.

    python benchmarks/retrieval_reembed.py SET=DATA:WORKSPACE [...] --variant NAME=MODEL:TEXT[:PARTS] [...]
                                          [--cache DIR] [--json FILE]

DATA is a set's folder (as retrieval_dev.py takes it), WORKSPACE the workspace its stores were ingested
into. MODEL: a bundled local model (bge-small-en-v1.5, all-MiniLM-L6-v2). TEXT: "section" (the section
path and the passage: Chunk.embed_text today), "header" (company | file | section | page, then the
passage: the embedded text before issue 27) or "none" (the passage alone). PARTS: retrieval.query_parts
(row, question, both; default: the settings' default). Vectors are cached in --cache by model and
text, so a second run, or another set on the same store, costs only the queries. The per-question --json feeds retrieval_sets.py.
Example (the four development sets of the README):

    python benchmarks/retrieval_reembed.py generated=/tmp/gen:/tmp/ws-gen bhp=../shared/datasets/bhp:/tmp/ws-bhp \\
        bhpx=benchmarks/devsets/bhp_expert:/tmp/ws-bhp filings=../shared/datasets/financebench-dev:/tmp/ws-fb \\
        --variant before=all-MiniLM-L6-v2:header:row --variant after=bge-small-en-v1.5:section:both --json out.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from retrieval_dev import POOL, folders, score_retrieval  # noqa: E402


def embedded_text(kind: str, company: str, text: str, meta: dict) -> str:
    section = str(meta.get("section") or "")
    if kind == "none":
        return text
    if kind == "section":
        return f"{section}\n{text}" if section else text
    start, end = int(meta["page_start"]), int(meta["page_end"])
    pages = f"p. {start}" if start == end else f"pp. {start}-{end}"
    return " | ".join([company, str(meta["file_name"]), *([section] if section else []), pages]) + f"\n{text}"


class ReembeddedStore:
    """A company's store with its chunks' vectors replaced: `query` searches them in memory, the rest
    (BM25, passages by id) is the store's own."""

    def __init__(self, store, embedder, kind: str, cache: Path):
        import numpy as np

        from autofill.store.chroma_meta import passage_from as _passage

        self.store, self.embedder_name = store, embedder.name
        got = store._chunks.get(include=["documents", "metadatas"])
        current = store._current()
        rows = sorted((i, d, m) for i, d, m in zip(got["ids"], got["documents"], got["metadatas"])
                      if (m.get("file_name"), m.get("doc_sha256")) in current)
        self.passages = [_passage(i, d, m) for i, d, m in rows]
        texts = [embedded_text(kind, store.company, d, m) for _, d, m in rows]
        key = hashlib.sha256(("\0".join(texts) + embedder.name).encode()).hexdigest()[:16]
        path = cache / f"{key}.npy"
        if path.is_file():
            self.vectors = np.load(path)
        else:
            t0 = time.monotonic()
            self.vectors = np.asarray(embedder.embed_documents(texts), dtype=np.float32)
            print(f"  embedded {len(texts)} chunks of {store.company} in {time.monotonic() - t0:.0f} s", flush=True)
            cache.mkdir(parents=True, exist_ok=True)
            np.save(path, self.vectors)

    def query(self, embedding, n: int):
        import numpy as np

        scores = self.vectors @ np.asarray(embedding, dtype=np.float32)
        order = np.argsort(-scores, kind="stable")[:n]
        return [replace(self.passages[i], score=float(scores[i]), rank=r) for r, i in enumerate(order, start=1)]

    def bm25_search(self, query: str, n: int, language: str = ""):
        return self.store.bm25_search(query, n, language)


def retrieval_settings(items: list[str]) -> dict:
    """{"keyword_weight": 0.5} from ["keyword_weight=0.5"] (values read as TOML)."""
    import tomllib

    return {k: v for item in items for k, v in tomllib.loads(item.replace("=", " = ", 1)).items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sets", nargs="+", help="NAME=DATA:WORKSPACE")
    ap.add_argument("--variant", action="append", required=True, help="NAME=MODEL:TEXT[:PARTS]")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/autofill-reembed"))
    ap.add_argument("--json", type=Path, default=None, help="{set: {variant: per-question rows}}")
    ap.add_argument("--retrieval", action="append", default=[], metavar="NAME=VALUE",
                    help="a retrieval setting for every variant, e.g. keyword_weight=0.5 (TOML value syntax)")
    args = ap.parse_args()

    from autofill.answer.rerank import NoReranker
    from autofill.providers.local import LocalEmbedder
    from autofill.settings import load_settings
    from autofill.store.chroma_store import list_stores, open_store

    results: dict[str, dict[str, list[dict]]] = {}
    embedders: dict[str, LocalEmbedder] = {}
    for spec in args.sets:
        name, _, paths = spec.partition("=")
        data, _, workspace = paths.partition(":")
        data, workspace = Path(data), Path(workspace)
        if not data.is_dir() or not (workspace / "vectordb").is_dir():
            print(f"skipped {name}: no data at {data} or no stores in {workspace}")
            continue
        by_name = {f.name: f for f in folders(data)}
        for variant in args.variant:
            vname, _, vspec = variant.partition("=")
            model, kind, *parts = vspec.split(":")
            overrides = {"retrieval": {"final_k": POOL, **({"query_parts": parts[0]} if parts else {}),
                                       **retrieval_settings(args.retrieval)}}
            settings = load_settings(workspace, environ={}, overrides=overrides)
            embedder = embedders.setdefault(model, LocalEmbedder(model))
            rows: list[dict] = []
            t0 = time.monotonic()
            for info in list_stores(settings):
                folder = data if (data / "gold.json").is_file() else by_name.get(info.company)
                if folder is None:
                    continue
                # One cache for all sets: its files are named by the texts and the model, so sets sharing a
                # store (a devset and its translations) embed it once.
                store = ReembeddedStore(open_store(settings, info.company), embedder, kind, args.cache)
                rows += score_retrieval(settings, folder, store, embedder, NoReranker())
            results.setdefault(name, {})[vname] = rows
            means = " / ".join(f"{sum(r[k] for r in rows) / max(1, len(rows)):.3f}"
                               for k in ("hit6", "recall6", "mrr", "recall30"))
            print(f"{name} {vname}: {len(rows)} questions, {means} ({time.monotonic() - t0:.0f} s)", flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
