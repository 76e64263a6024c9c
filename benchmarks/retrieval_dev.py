"""Retrieval quality on a development set of folders, configuration against configuration, through
`autofill eval`: page hit@6, recall@6, MRR and recall@30 (the pool an LLM reranker chooses from), with
paired Wilcoxon signed-rank tests of every configuration against the first.

    python benchmarks/retrieval_dev.py [--data DIR] [--workspace DIR] [--config A.toml ...] [--only NAME,...]
                                       [--ingest-config C.toml] [--no-ingest] [--per-question] [--json FILE]
                                       [--prior EARLIER.json] [--baseline NAME]

A set is a folder of folders, each holding one company's PDFs, `questionnaire.xlsx` and `gold.json`
(../shared/datasets/financebench-dev), or one such folder itself (../shared/datasets/bhp; with --pdfs, a
folder of questions about PDFs kept elsewhere: benchmarks/devsets/bhp_expert). Each folder is
ingested once into the workspace as its own company (incremental: an unchanged store is reused, so the
first run pays for the ingest and later runs only for the questions), then every configuration answers
every questionnaire offline through `run_eval` (the function behind `autofill eval --config`), with
`final_k = 30` laid under the configuration so that one Evidence sheet gives the top 6 (the first six
rows are what `final_k = 6` would show: one passage per page, in rank order) and the pool of 30.
Without --config the current defaults are the only configuration. `--ingest-config` applies a TOML file
to the ingest (chunking variants need their own workspace); --no-ingest uses the stores as they are. Skips (exit 0) when the data is absent."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from statistics import mean

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "datasets" / "financebench-dev"
K, POOL = 6, 30
METRICS = (("hit@6", "hit6"), ("recall@6", "recall6"), ("MRR", "mrr"), ("recall@30", "recall30"))


def folders(data: Path) -> list[Path]:
    """The company folders of a set: `data` itself when it holds a gold key, else its subfolders that do."""
    if (data / "gold.json").is_file():
        return [data]
    return sorted(p for p in data.iterdir() if (p / "gold.json").is_file() and (p / "questionnaire.xlsx").is_file())


COMPANY: dict[str, str] = {}  # folder name -> store name, when --company renames a one-folder set
PDFS: dict[str, Path] = {}  # folder name -> where its PDFs are, when --pdfs names another folder


def pdfs_of(folder: Path) -> list[Path]:
    return sorted(PDFS.get(folder.name, folder).glob("*.pdf"))


def company(folder: Path) -> str:
    return COMPANY.get(folder.name, folder.name)


def ingest(settings, folder: Path) -> float:
    from autofill.ingest.pipeline import ingest_paths

    t0 = time.monotonic()
    pdfs = pdfs_of(folder)
    report = ingest_paths(settings, company(folder), pdfs)
    failed = [f for f in report.files if f.status == "failed"]
    if failed:
        raise SystemExit(f"ingest of {folder.name} failed: {failed[0].error}")
    return time.monotonic() - t0


def evaluate(settings, folder: Path, config: Path | None, out_dir: Path) -> list[dict]:
    """Per-question page metrics of one configuration on one company, at k=6 and k=30."""
    from autofill.evaluate.gold import load_gold
    from autofill.evaluate.results import score_output
    from autofill.evaluate.runner import run_eval

    result = run_eval(settings, company(folder), folder / "questionnaire.xlsx", folder / "gold.json",
                      configs=[config] if config else None, k=K, out_dir=out_dir)
    scored = result.configs[0]
    pool = score_output(settings, load_gold(folder / "gold.json"), scored.output, POOL, "pool")
    by_key = {(q.sheet, q.row): q for q in pool.questions}
    out = []
    for q in scored.questions:
        if q.hit_at_k is None:  # no gold pages
            continue
        q30 = by_key.get((q.sheet, q.row))
        out.append({"company": folder.name, "number": q.number, "question": q.question, "hit6": q.hit_at_k,
                    "recall6": q.recall_at_k, "mrr": q.mrr, "recall30": q30.recall_at_k if q30 else 0.0})
    return out


def evaluate_fast(settings, folder: Path, config: Path | None) -> list[dict]:
    """The same per-question metrics straight from the pipeline's own retrieval and offline ordering
    (`retrieve`, then `rerank` as an offline run calls them), without writing workbooks or reports: for
    trying configurations quickly. The figures equal `evaluate`'s for offline configurations."""
    from autofill.answer.opening import open_run
    from autofill.answer.rerank import NoReranker, ProviderReranker
    from autofill.evaluate.runner import config_settings

    s = config_settings(settings, config) if config else settings
    opened = open_run(s, company(folder))  # as a run opens it: the store, its embedder, the multilingual index
    store, embedder = opened.store, opened.providers.embedder
    if s.retrieval.reranker == "cross-encoder":  # offline; a row of choices.RERANKERS once registered
        from autofill.providers.cross_encoder import CrossEncoderReranker

        ranker = ProviderReranker("cross-encoder", CrossEncoderReranker())
    else:
        ranker = NoReranker()
    from autofill.workbook.layout import read_questions

    opened.centre_on(read_questions(s, folder / "questionnaire.xlsx")[1])  # as a run centres its rows
    ctx = opened.row_context()
    return score_retrieval(s, folder, store, embedder, ranker, route=ctx.searched_with,
                           documents=ctx.document_languages, translation=ctx.translation)


def gold_rows(settings, folder: Path) -> list[tuple]:
    """(question row, gold item) for each row of the questionnaire in `folder` whose gold key has pages."""
    from autofill.evaluate.gold import load_gold, normalise_number
    from autofill.workbook.layout import read_questions

    gold = {item.number: item for item in load_gold(folder / "gold.json").items}
    _, rows = read_questions(settings, folder / "questionnaire.xlsx")
    pairs = [(row, gold.get(normalise_number(row.number))) for row in rows]
    return [(row, item) for row, item in pairs if item is not None and item.pages]


def score_retrieval(settings, folder: Path, store, embedder, ranker, route=None, documents=(),
                    translation=None) -> list[dict]:
    """Per-question page metrics at K and POOL of `retrieve`, the content index's pages, the second stage
    and `rerank` over `store` (anything with `query` and `bm25_search`) for the questionnaire and gold key
    in `folder`. `route(row)`: the (store, embedder) a row's search uses, as a run's RowContext.searched_with
    picks them (the multilingual index across languages); None: `store` and `embedder` for every row.
    `documents`: the store's documents' languages (the second stage keeps its order across languages).
    `translation(row)`: the row in its documents' words, as a run's RowContext.translation gives it."""
    from autofill.search.boilerplate_pages import with_boilerplate_last
    from autofill.search.index_pages import with_index_pages
    from autofill.answer.rerank import rerank
    from autofill.search.retrieval import retrieve
    from autofill.search.second_stage import second_stage
    from autofill.evaluate.metrics import RetrievedPassage, page_metrics
    from autofill.plan import resolve_plan, second_stage_of

    mode = resolve_plan(settings, chat=None, embedder=store.embedder_name).mode
    out = []
    for row, item in gold_rows(settings, folder):
        searched, query_embedder = route(row) if route is not None else (store, embedder)
        candidates = with_index_pages(settings, store, row, retrieve(settings, searched, query_embedder, row, mode,
                                                                     translation=translation(row) if translation else ""))
        candidates = with_boilerplate_last(settings, store, row, candidates)
        candidates = second_stage(settings, second_stage_of(settings), store, row, candidates, documents)
        top = rerank(settings, ranker, row, candidates)
        shown = top + [p for p in candidates if p.chunk_id not in {t.chunk_id for t in top}]
        passages = [RetrievedPassage(rank=i, file=p.file_name, pages=tuple(range(p.page_start, p.page_end + 1)))
                    for i, p in enumerate(shown, start=1)]
        at_k, at_pool = page_metrics(passages, item.pages, K), page_metrics(passages, item.pages, POOL)
        out.append({"company": folder.name, "number": item.number, "question": item.question, "hit6": at_k.hit,
                    "recall6": at_k.recall, "mrr": at_k.mrr, "recall30": at_pool.recall})
    return out


def plain(settings, sets: list[Path], cache: Path) -> list[dict]:
    """The bar: plain fusion (page text in 1,000-character windows, MiniLM + BM25, RRF, the question as
    the query, the first distinct pages), over the same PDFs and gold keys."""
    from autofill.evaluate import plain_fusion
    from autofill.evaluate.gold import load_gold
    from autofill.providers.factory import make_embedder

    embedder = make_embedder(settings, "local:all-MiniLM-L6-v2")
    t0, rows = time.monotonic(), []
    for folder in sets:
        index = plain_fusion.PlainIndex.build(pdfs_of(folder), embedder, cache)
        rows += plain_fusion.evaluate(index, embedder, load_gold(folder / "gold.json"), folder.name, K, POOL)
    print(f"plain-fusion: {len(rows)} questions, {time.monotonic() - t0:.0f} s")
    return rows


def table(results: dict[str, list[dict]], baseline: str = "") -> str:
    """Markdown table of the mean metrics, and Wilcoxon p-values (wins/losses) against `baseline`. Rows are
    paired by company and question number, so runs over other workspaces compare question by question."""
    from autofill.evaluate.stats import paired_test

    names = list(results)
    base = baseline if baseline in results else names[0]
    order = sorted({(r["company"], str(r["number"])) for r in results[base]})
    complete = {name for name, rows in results.items() if {(r["company"], str(r["number"])) for r in rows} >= set(order)}
    missing = [name for name in results if name not in complete]
    results = {name: [next(r for r in rows if (r["company"], str(r["number"])) == key) for key in order]
               for name, rows in results.items() if name in complete}
    names = list(results)
    lines = ["| configuration | " + " | ".join(m for m, _ in METRICS) + " | p (vs " + base + "): "
             + ", ".join(m for m, _ in METRICS) + " |",
             "|---|" + "---|" * len(METRICS) + "---|"]
    for name in names:
        rows = results[name]
        cells = [f"{mean(r[key] for r in rows):.3f}" for _, key in METRICS]
        if name == base:
            ps = "-"
        else:
            tests = [paired_test([r[key] for r in results[base]], [r[key] for r in rows]) for _, key in METRICS]
            ps = ", ".join("n/a" if t.p_value is None else f"{t.p_value:.3g} ({t.wins}+/{t.losses}-)" for t in tests)
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {ps} |")
    if missing:
        lines.append(f"(left out, lacking some of {base}'s questions: {', '.join(missing)})")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--workspace", type=Path, default=None)
    ap.add_argument("--config", type=Path, action="append", default=[])
    ap.add_argument("--ingest-config", type=Path, default=None)
    ap.add_argument("--only", default="", help="comma-separated company folders to use")
    ap.add_argument("--no-ingest", action="store_true",
                    help="use the workspace's stores as they are (built by another chunker version, say)")
    ap.add_argument("--company", default="", help="store name for a one-folder set (default: the folder's name)")
    ap.add_argument("--pdfs", type=Path, default=None,
                    help="the PDFs of a one-folder set that holds only its questionnaire and gold key "
                         "(benchmarks/devsets/bhp_expert: --pdfs ../shared/datasets/bhp --company bhp); for a "
                         "set of folders, the folder holding each one's PDFs in a folder of the same name "
                         "(a translated financebench set: --pdfs ../shared/datasets/financebench-dev)")
    ap.add_argument("--per-question", action="store_true")
    ap.add_argument("--json", type=Path, default=None, help="write the per-question results here")
    ap.add_argument("--prior", type=Path, action="append", default=[],
                    help="per-question results (--json) of an earlier run, e.g. another chunker's workspace, listed "
                         "first as '<file stem>: <configuration>' and compared with like the others")
    ap.add_argument("--fast", action="store_true",
                    help="score retrieval straight from `retrieve` (no workbooks, reports or charts): for trying configurations")
    ap.add_argument("--no-plain", action="store_true",
                    help="leave out the plain-fusion bar (evaluate/plain_fusion.py), shown beside every configuration")
    ap.add_argument("--baseline", default="", help="the configuration every other is tested against (default: the first)")
    args = ap.parse_args()
    if not args.data.is_dir() or not folders(args.data):
        print(f"skipped: no development set at {args.data}")
        return 0

    from autofill.evaluate.runner import config_settings
    from autofill.settings import load_settings

    tmp = tempfile.TemporaryDirectory()
    workspace = args.workspace or Path(tmp.name)
    # Offline whatever the shell exports; final_k 30 so one Evidence sheet gives both the top 6 and the pool.
    settings = load_settings(workspace, environ={}, overrides={"retrieval": {"final_k": POOL}})
    ingest_settings = config_settings(settings, args.ingest_config) if args.ingest_config else settings
    only = {s.strip() for s in args.only.split(",") if s.strip()}
    sets = [f for f in folders(args.data) if not only or f.name in only]
    if args.company and len(sets) == 1:
        COMPANY[sets[0].name] = args.company
    if args.pdfs and len(sets) == 1 and not (args.pdfs / sets[0].name).is_dir():
        PDFS[sets[0].name] = args.pdfs
    elif args.pdfs:  # a set of folders whose PDFs are kept elsewhere, folder by folder (a translated set)
        PDFS.update({f.name: args.pdfs / f.name for f in sets})

    t0 = time.monotonic()
    for folder in sets if not args.no_ingest else []:
        ingest(ingest_settings, folder)
    print(f"ingest (incremental): {time.monotonic() - t0:.1f} s for {len(sets)} companies")

    configs: list[Path | None] = list(args.config) or [None]
    results: dict[str, list[dict]] = {}
    for prior in args.prior:
        for name, rows in json.loads(prior.read_text()).items():
            results[f"{prior.stem}: {name}"] = rows
    for config in configs:
        name = config.stem if config else "default"
        t1 = time.monotonic()
        rows: list[dict] = []
        for folder in sets:
            rows += (evaluate_fast(settings, folder, config) if args.fast
                     else evaluate(settings, folder, config, workspace / "eval" / name / folder.name))
        results[name] = rows
        print(f"{name}: {len(rows)} questions, {time.monotonic() - t1:.0f} s")
        if args.per_question:
            for r in rows:
                print(f"    {r['company'][:24]:24s} {r['number']:>3} hit {r['hit6']:.0f} rr {r['mrr']:.2f} "
                      f"r30 {r['recall30']:.2f}  {r['question'][:60]}")
    if not args.no_plain:
        results["plain-fusion"] = plain(settings, sets, workspace / "plain")
    print(table(results, args.baseline))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
