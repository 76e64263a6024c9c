"""Second stages (search/second_stage.py) on every development set at once: the first stage's 30 candidates
of each question are scored once by every signal (cached, so a new combination costs nothing), then each
combination orders them as the product would (RRF of the signals' orders, `retrieval.rrf_k`) and is scored
like `retrieval_dev.py --fast` (page hit@6, recall@6, MRR, recall@30, and recall@10/15/20: what an LLM
reranker shown only the first N candidates would choose from). Writes one per-question file per set
for `retrieval_sets.py` (the rule, pooled tests, leave one set out), and the CPU seconds each signal
costs per row.

    python benchmarks/second_stage.py NAME=DATA:WORKSPACE[:COMPANY[:PDFS]] [...] --out DIR [--plain]
                                      [--signals colbert,pages,cross-encoder]

DATA is a set's folder as retrieval_dev.py takes it, WORKSPACE the workspace its stores were ingested
into (retrieval_dev.py or `autofill ingest`; several joined by "+" when its companies were ingested into
different ones), COMPANY the store of a one-folder set whose store has another
name (benchmarks/devsets/bhp_expert: bhp), PDFS where that set's PDFs are (for --plain). --plain adds the
plain-fusion bar (evaluate/plain_fusion.py; it embeds every page with MiniLM once, cached in DIR/plain).
Example (the five development sets of the README):

    python benchmarks/second_stage.py generated=/tmp/gen:/tmp/ws-gen bhp=../shared/datasets/bhp:/tmp/ws-bhp \\
        bhpx=benchmarks/devsets/bhp_expert:/tmp/ws-bhp:bhp:../shared/datasets/bhp \\
        filings=../shared/datasets/financebench-dev:/tmp/ws-fb finance=/tmp/fin:/tmp/ws-fin --out /tmp/ss --plain
    python benchmarks/retrieval_sets.py generated=/tmp/ss/generated.json ... --baseline none
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from statistics import mean

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import retrieval_dev  # noqa: E402
from retrieval_dev import K, POOL, folders  # noqa: E402

WINDOWS = (10, 15, 20)  # smaller LLM rerank windows: their page recall
# Combinations measured beside the table's rows (choices.SECOND_STAGES): each signal alone, and pairs.
EXTRA = {
    "colbert-alone": ("colbert",),
    "pages-alone": ("pages",),
    "pages": ("first", "pages"),  # a row of the table until issue 44 retired it
    "cross-encoder-alone": ("cross-encoder",),
    "first+cross-encoder": ("first", "cross-encoder"),
    "colbert+pages": ("first", "colbert", "pages"),
    "colbert+pages+cross-encoder": ("first", "colbert", "pages", "cross-encoder"),
    "pages+cross-encoder": ("first", "pages", "cross-encoder"),
    "colbert-question": ("first", "colbert-question"),
    "colbert-question+cross-encoder": ("first", "colbert-question", "cross-encoder"),
    "colbert-question-alone": ("colbert-question",),
    # the cross-encoder reading the question's search words or its own text instead of the whole row
    "cross-encoder-search-alone": ("cross-encoder-search",),
    "first+cross-encoder-search": ("first", "cross-encoder-search"),
    "colbert+cross-encoder-search": ("first", "colbert", "cross-encoder-search"),
    "cross-encoder-question-alone": ("cross-encoder-question",),
    "first+cross-encoder-question": ("first", "cross-encoder-question"),
    "colbert+cross-encoder-question": ("first", "colbert", "cross-encoder-question"),
}


def candidates_and_signals(settings, folder: Path, company: str, signals: list[str], cache: dict) -> list[dict]:
    """Per question with gold pages: its candidates (as dicts), every signal's scores and CPU seconds; none
    when the workspace has no store for `company` (a set ingested into several workspaces)."""
    from autofill.search.retrieval import retrieve
    from autofill.search.second_stage import SIGNALS
    from autofill.plan import resolve_plan
    from autofill.providers.factory import make_embedder
    from autofill.providers.query_cache import with_query_cache
    from autofill.store.reading import find_for_reading

    store = find_for_reading(settings, company)
    if store is None:
        return []
    embedder = with_query_cache(settings, make_embedder(settings, store.embedder_name))
    mode = resolve_plan(settings, chat=None, embedder=store.embedder_name).mode
    out = []
    for row, item in retrieval_dev.gold_rows(settings, folder):
        key = f"{folder.name}|{item.number}"
        entry = cache.setdefault(key, {"scores": {}, "cpu": {}})
        t0 = time.process_time()
        candidates = retrieve(settings, store, embedder, row, mode)
        entry["cpu"]["first"] = time.process_time() - t0
        ids = [p.chunk_id for p in candidates]
        if entry.setdefault("ids", ids) != ids:  # another store or first stage: scores of other candidates
            entry.update(scores={}, cpu={"first": entry["cpu"]["first"]}, ids=ids)
        entry["candidates"] = [{"file": p.file_name, "start": p.page_start, "end": p.page_end, "table": p.has_table}
                               for p in candidates]
        for name in signals:
            if name not in entry["scores"]:
                t0 = time.process_time()
                entry["scores"][name] = SIGNALS[name](store, row, candidates)
                entry["cpu"][name] = time.process_time() - t0
        out.append({"company": folder.name, "number": item.number, "question": item.question,
                    "gold": [(g.file, g.page) for g in item.pages], "entry": entry})
    return out


def score(questions: list[dict], signals: tuple, k: int, depth: int = 0) -> list[dict]:
    from autofill.search.second_stage import FIRST, keep_table_places, order_by
    from autofill.search.retrieval import rrf
    from autofill.evaluate.gold import GoldPage
    from autofill.evaluate.metrics import RetrievedPassage, page_metrics

    rows = []
    for q in questions:
        cands, scores = q["entry"]["candidates"], q["entry"]["scores"]
        n = min(depth or len(cands), len(cands))  # as the product: only the first `depth` are reordered
        orders = [list(range(n))] if FIRST in signals or not signals else []
        orders += [order_by(scores[s][:n]) for s in signals if s != FIRST]
        order = [int(i) for i, _ in rrf([[str(i) for i in o] for o in orders], k=k)]
        if signals:  # as the product orders them: tables keep their first-stage places
            order = keep_table_places(order, [bool(c.get("table")) for c in cands[:n]])
        order += list(range(n, len(cands)))
        passages = [RetrievedPassage(rank=r, file=cands[i]["file"], pages=tuple(range(cands[i]["start"], cands[i]["end"] + 1)))
                    for r, i in enumerate(order, start=1)]
        gold = [GoldPage(file=f, page=p) for f, p in q["gold"]]
        at_k, at_pool = page_metrics(passages, gold, K), page_metrics(passages, gold, POOL)
        rows.append({"company": q["company"], "number": q["number"], "question": q["question"], "hit6": at_k.hit,
                     "recall6": at_k.recall, "mrr": at_k.mrr, "recall30": at_pool.recall,
                     # what an LLM reranker shown only the first N would have to choose from
                     **{f"recall{n}": page_metrics(passages, gold, n).recall for n in WINDOWS}})
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sets", nargs="+", help="NAME=DATA:WORKSPACE[:COMPANY[:PDFS]]")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--signals", default="colbert,colbert-question,pages,cross-encoder")
    ap.add_argument("--plain", action="store_true", help="add the plain-fusion bar")
    ap.add_argument("--only", default="", help="comma-separated company folders to use (e.g. those ingested so far)")
    args = ap.parse_args()

    from autofill.choices import SECOND_STAGES
    from autofill.settings import load_settings

    signals = [s for s in args.signals.split(",") if s]
    variants = {name: choice.signals for name, choice in SECOND_STAGES.items()}
    variants.update({name: sig for name, sig in EXTRA.items() if all(s in [*signals, "first"] for s in sig)})
    variants = {name: sig for name, sig in variants.items() if all(s in [*signals, "first"] for s in sig)}
    args.out.mkdir(parents=True, exist_ok=True)
    cpu: dict[str, list[float]] = {}
    for spec in args.sets:
        name, _, paths = spec.partition("=")
        data, workspace, company, pdfs = (paths.split(":") + ["", ""])[:4]
        data, workspaces = Path(data), [Path(w) for w in workspace.split("+")]
        if not data.is_dir() or not all((w / "vectordb").is_dir() for w in workspaces):
            print(f"skipped {name}: no data at {data} or no stores in {workspace}")
            continue
        every = [load_settings(w, environ={}, overrides={"retrieval": {"final_k": POOL}}) for w in workspaces]
        settings = every[0]
        cache_file = args.out / f"{name}.signals.json"
        cache = json.loads(cache_file.read_text()) if cache_file.is_file() else {}
        t0 = time.monotonic()
        questions = []
        only = {n for n in args.only.split(",") if n}
        for folder in [f for f in folders(data) if not only or f.name in only]:
            for ws_settings in every:
                found = candidates_and_signals(ws_settings, folder, company or folder.name, signals, cache)
                questions += found
                if found:
                    break
            cache_file.write_text(json.dumps(cache))
        results = {vname: score(questions, sig, settings.retrieval.rrf_k, settings.retrieval.second_stage_depth)
                   for vname, sig in variants.items()}
        if settings.retrieval.second_stage_depth:  # the default's signals over every candidate, for comparison
            results["default, all 30"] = score(questions, SECOND_STAGES[settings.retrieval.second_stage].signals,
                                               settings.retrieval.rrf_k)
        if args.plain:
            sets = folders(data)
            if pdfs and len(sets) == 1:
                retrieval_dev.PDFS[sets[0].name] = Path(pdfs)
            results["plain-fusion"] = retrieval_dev.plain(settings, sets, args.out / "plain")
        (args.out / f"{name}.json").write_text(json.dumps(results, indent=1))
        for q in questions:
            for sig, seconds in q["entry"]["cpu"].items():
                cpu.setdefault(sig, []).append(seconds)
        print(f"\n### {name}: {len(questions)} questions ({time.monotonic() - t0:.0f} s)\n")
        print(retrieval_dev.table(results, "none"))
    print("\n| signal | CPU s per row (mean) | rows |\n|---|---|---|")
    for sig, values in cpu.items():
        print(f"| {sig} | {mean(values):.3f} | {len(values)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
