"""Offline retrieval quality on the BHP development set (../shared/datasets/bhp): page hit@6,
recall@6 and MRR of the Evidence sheet of an offline `autofill run`, against gold.json's pages.

    python benchmarks/retrieval_quality.py [--workspace DIR] [--modes dense,hybrid] [--diagnose]

Without --workspace both PDFs are ingested with the real local embedder into a temporary workspace;
with it, an existing workspace holding a "BHP" store is reused (ingest is incremental, so a
workspace that lacks the store gets it). --diagnose adds BM25 alone and query variants (question
only vs question + form of answer + explanation), computed straight from retrieval, to show where
the fused ranking gains or loses. Skips (exit 0) when the shared data set is absent."""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from statistics import mean

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "datasets" / "bhp"
NAIVE = {"dense": (0.87, 0.57, 0.62), "BM25": (1.00, 0.60, 0.64), "fusion": (0.93, 0.60, 0.69)}
K = 6


def evidence_passages(output: Path) -> dict[str, list]:
    """Question text -> RetrievedPassage list from an output's Evidence sheet."""
    import openpyxl

    from autofill.evaluate.metrics import RetrievedPassage

    ws = openpyxl.load_workbook(output, read_only=True)["Evidence"]
    rows = ws.iter_rows(values_only=True)
    head = list(next(rows))
    col = {h: i for i, h in enumerate(head)}
    out: dict[str, list] = {}
    for r in rows:
        start = int(r[col["Page"]])
        end = int(r[col["Page end"]] or start) if "Page end" in col else start
        out.setdefault(str(r[col["Question"]]), []).append(
            RetrievedPassage(rank=int(r[col["Rank"]]), file=str(r[col["File"]]), pages=tuple(range(start, end + 1)),
                             text=str(r[col["Text"]] or "")))
    return out


def score(by_question: dict[str, list], gold) -> tuple[float, float, float, list]:
    from autofill.evaluate.gold import normalise_question
    from autofill.evaluate.metrics import page_metrics

    per = []
    lookup = {normalise_question(q): ps for q, ps in by_question.items()}
    for item in gold.items:
        m = page_metrics(lookup.get(normalise_question(item.question), []), item.pages, K)
        if m is not None:
            per.append((item, m))
    return (mean(m.hit for _, m in per), mean(m.recall for _, m in per), mean(m.mrr for _, m in per), per)


def line(name: str, hit: float, recall: float, mrr: float) -> str:
    return f"  {name:34s} hit@{K} {hit:.2f}  recall@{K} {recall:.2f}  MRR {mrr:.2f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workspace", type=Path, default=None)
    ap.add_argument("--modes", default="dense,hybrid")
    ap.add_argument("--diagnose", action="store_true")
    ap.add_argument("--per-question", action="store_true")
    args = ap.parse_args()
    if not (DATA / "gold.json").is_file():
        print(f"skipped: {DATA} not found")
        return 0

    from autofill.answer.pipeline import run_questionnaire
    from autofill.evaluate.gold import load_gold
    from autofill.ingest.pipeline import ingest_paths
    from autofill.settings import load_settings

    tmp = tempfile.TemporaryDirectory()
    workspace = args.workspace or Path(tmp.name)
    settings = load_settings(workspace, environ={})  # offline whatever the shell exports
    t0 = time.monotonic()
    rep = ingest_paths(settings, "BHP", sorted(DATA.glob("*.pdf")))
    print(f"ingest: {rep.to_json()} ({time.monotonic() - t0:.1f} s)")
    gold = load_gold(DATA / "gold.json")

    print(f"Page-level retrieval on {len(gold.items)} BHP questions (Evidence sheet, top {K}):")
    for name, (h, r, m) in NAIVE.items():
        print(line(f"naive reference: {name}", h, r, m))
    results = {}
    for mode in [m.strip() for m in args.modes.split(",") if m.strip()]:
        s = load_settings(workspace, environ={}, overrides={"retrieval": {"mode": mode}})
        t1 = time.monotonic()
        report = run_questionnaire(s, "BHP", DATA / "questionnaire.xlsx", out_dir=Path(tmp.name) / mode)
        hit, recall, mrr, per = score(evidence_passages(report.output), gold)
        results[mode] = per
        print(line(f"autofill {mode} ({time.monotonic() - t1:.0f} s)", hit, recall, mrr))
        if args.per_question:
            for item, m in per:
                print(f"      Q{item.number:>2} hit {m.hit:.0f} recall {m.recall:.2f} rr {m.mrr:.2f}  {item.question[:70]}")

    if args.diagnose:
        diagnose(settings, gold)
    tmp.cleanup()
    return 0


def diagnose(settings, gold) -> None:
    """Retrieval variants straight from the store (no workbook), to locate gains and losses."""
    from autofill.search.retrieval import build_query, fuse
    from autofill.evaluate.metrics import RetrievedPassage
    from autofill.providers.factory import make_embedder
    from autofill.records import QuestionRow
    from autofill.store.chroma_store import open_store
    from autofill.workbook.layout import read_questions

    store = open_store(settings, "BHP")
    embedder = make_embedder(settings, store.embedder_name)
    _, rows = read_questions(settings, DATA / "questionnaire.xlsx")

    def as_retrieved(passages) -> list:
        return [RetrievedPassage(rank=i, file=p.file_name, pages=tuple(range(p.page_start, max(p.page_start, p.page_end) + 1)))
                for i, p in enumerate(passages, start=1)]

    variants = {
        "dense, question only": lambda r: store.query(embedder.embed_query(r.question), K),
        "dense, question+form+explanation": lambda r: store.query(embedder.embed_query(build_query(r)), K),
        "BM25, question only": lambda r: store.bm25_search(r.question, K),
        "BM25, question+form+explanation": lambda r: store.bm25_search(build_query(r), K),
        "RRF, question only": lambda r: fuse([store.query(embedder.embed_query(r.question), 60),
                                               store.bm25_search(r.question, 60)], 60, K),
        "RRF, q+form+expl (= hybrid)": lambda r: fuse([store.query(embedder.embed_query(build_query(r)), 60),
                                                       store.bm25_search(build_query(r), 60)], 60, K),
        "RRF, dense q-only + BM25 q+f+e": lambda r: fuse([store.query(embedder.embed_query(r.question), 60),
                                                          store.bm25_search(build_query(r), 60)], 60, K),
        "hybrid, at most one passage per page": lambda r: _per_page(
            fuse([store.query(embedder.embed_query(build_query(r)), 60), store.bm25_search(build_query(r), 60)],
                 60, 60), 1),
        "hybrid, at most two passages per page": lambda r: _per_page(
            fuse([store.query(embedder.embed_query(build_query(r)), 60), store.bm25_search(build_query(r), 60)],
                 60, 60), 2),
    }
    print("Diagnosis (retrieval only, top 6):")
    for name, fn in variants.items():
        by_q = {r.question: as_retrieved(fn(r)) for r in rows if isinstance(r, QuestionRow)}
        hit, recall, mrr, _ = score(by_q, gold)
        print(line(name, hit, recall, mrr))


def _per_page(passages: list, cap: int) -> list:
    """Page diversity: skip a passage whose first page already has `cap` passages in the list."""
    count: dict = {}
    out = []
    for p in passages:
        key = (p.file_name, p.page_start)
        if count.get(key, 0) < cap:
            count[key] = count.get(key, 0) + 1
            out.append(p)
    return out[:K]


if __name__ == "__main__":
    sys.exit(main())
