"""What HyDE and the LLM reranker (the defaults with a model) do and cost, measured offline: the model is the
loopback OpenAI-compatible server of the tests (tests/llm_server.py) through the real openai SDK, so what
is measured is the chain around the model, never a model's judgement.

    python benchmarks/model_chain.py [--set bhp|bhp_expert|both] [--workspace DIR] [--rows N] [--json FILE]

Per set (../shared/datasets/bhp with its gold.json; benchmarks/devsets/bhp_expert, questions about the
same PDFs), for every question with gold pages:

- recall@30 and recall@50 of the window handed to the LLM reranker (the first stage's candidates, the
  content index's pages, the second stage: what `answer/row.py` passes to `rerank`), four ways: the
  offline default (`hybrid`, no model), `dense` (the question embedded), and `hyde` / `hyde+hybrid` with
  the LOOPBACK's hypothetical passage. The loopback cannot know the report: its "hypothetical answer" is
  built deterministically from the question (`LOOPBACK_HYDE`: the question turned into a statement, with
  the form of answer), so the HyDE rows measure HyDE's plumbing (a second query text embedded instead of
  the question), not what a real model's passage would find. Labelled as such in the output.
- model calls and tokens per row of HyDE and the listwise rerank (the prompts autofill really renders;
  tokens as the loopback counts them, characters / 4, and the prompt's characters);
- the time and memory the chain adds per row: HyDE (call + embedding its passage) and the rerank (prompt,
  call, parse), the loopback answering at once, so the figure is autofill's own overhead per row, not a
  model's latency; peak Python allocations (tracemalloc) of those steps.

The first invocation ingests the two BHP PDFs into the workspace (default /tmp/autofill-model-chain,
kept for later invocations). Skips (exit 0) when the data is absent."""

from __future__ import annotations

import argparse
import json
import sys
import time
import tracemalloc
from pathlib import Path
from statistics import mean

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
BHP = ROOT.parent / "shared" / "datasets" / "bhp"
if not BHP.is_dir():
    BHP = Path("/work/shared/datasets/bhp")
EXPERT = ROOT / "benchmarks" / "devsets" / "bhp_expert"
COMPANY = "BHP model chain"
POOLS = (30, 50)
MODES = ("hybrid", "dense", "hyde", "hyde+hybrid")


def loopback_hyde(question: str, form: str) -> str:
    """LOOPBACK_HYDE: the deterministic 'hypothetical passage' the loopback returns, built from the question
    alone (no knowledge of the report): the question as a statement, and the form of answer."""
    statement = question.strip().rstrip("?").strip()
    return f"In the reporting year, the company disclosed the following. {statement}. {form}".strip()


def responder(req: dict) -> str:
    """The loopback model: HyDE prompts get `loopback_hyde`; ranking prompts the passages in the order
    shown (the window as it came: recall is measured on the window, not the model's order)."""
    from tests.answer_helpers import passages_in
    from tests.llm_server import last_user_text

    prompt = last_user_text(req)
    if "Rank all" in prompt or "Rank them" in prompt:
        return " > ".join(f"[{n}]" for n, *_ in passages_in(prompt)) or "[1]"
    question = _between(prompt, "Question:", "\n")
    form = _between(prompt, "Form of answer:", "\n")
    return loopback_hyde(question, form)


def _between(text: str, start: str, end: str) -> str:
    at = text.find(start)
    if at < 0:
        return ""
    rest = text[at + len(start):]
    return rest.split(end, 1)[0].strip()


def ensure_ingested(settings) -> None:
    from autofill.ingest.pipeline import ingest_paths

    t0 = time.monotonic()
    report = ingest_paths(settings, COMPANY, sorted(BHP.glob("*.pdf")))
    failed = [f for f in report.files if f.status == "failed"]
    if failed:
        raise SystemExit(f"ingest failed: {failed[0].error}")
    print(f"ingest (incremental): {time.monotonic() - t0:.0f} s", file=sys.stderr)


def gold_rows(settings, folder: Path) -> list[tuple]:
    from autofill.evaluate.gold import load_gold, normalise_number
    from autofill.workbook.layout import read_questions

    gold = {item.number: item for item in load_gold(folder / "gold.json").items}
    _, rows = read_questions(settings, folder / "questionnaire.xlsx")
    pairs = [(row, gold.get(normalise_number(row.number))) for row in rows]
    return [(row, item) for row, item in pairs if item is not None and item.pages]


def window(settings, opened, row, mode, hyde_text: str):
    """What answer/row.py hands to the reranker for `row`: retrieve, the content index's pages, second stage."""
    from autofill.plan import second_stage_of
    from autofill.search.index_pages import with_index_pages
    from autofill.search.retrieval import retrieve
    from autofill.search.second_stage import second_stage

    ctx = opened.row_context()
    store, embedder = ctx.searched_with(row)
    candidates = retrieve(settings, store, embedder, row, mode, hyde_passage=hyde_text,
                          translation=ctx.translation(row))
    candidates = with_index_pages(settings, ctx.store, row, candidates)
    return second_stage(settings, second_stage_of(settings), ctx.store, row, candidates, ctx.document_languages)


def traced(step) -> int:
    """Peak bytes Python allocated while `step()` ran (tracemalloc)."""
    tracemalloc.start()
    try:
        step()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def recall(passages, gold_pages, k: int) -> float:
    from autofill.evaluate.metrics import RetrievedPassage, page_metrics

    shown = [RetrievedPassage(rank=i, file=p.file_name, pages=tuple(range(p.page_start, p.page_end + 1)))
             for i, p in enumerate(passages, start=1)]
    return page_metrics(shown, gold_pages, k).recall


def measure_set(name: str, folder: Path, workspace: Path, server, limit: int) -> dict:
    from autofill.answer.opening import open_run
    from autofill.answer.rerank import LLMReranker, rerank
    from autofill.choices import RETRIEVAL_MODES
    from autofill.providers.base import ChatMessage, Providers
    from autofill.providers.factory import make_chat, make_embedder
    from autofill.search.hyde import hypothetical_passage
    from autofill.settings import load_settings

    out: dict = {"set": name, "modes": {}, "chain": {}}
    rows_seen = 0
    for pool in POOLS:
        settings = load_settings(workspace, environ={}, overrides={
            "retrieval": {"candidates": pool},
            "llm": {"provider": "openai", "base_url": server.base_url, "api_key": "sk-loopback",
                    "model": "gpt-4o-mini", "cache": False, "retry_base_delay_s": 0.01}})
        chat = make_chat(settings)
        embedder = make_embedder(settings)
        opened = open_run(settings, COMPANY, providers=Providers(embedder=embedder, chat=chat))
        pairs = gold_rows(settings, folder)[:limit or None]
        rows_seen = len(pairs)
        per_mode = {m: [] for m in MODES}
        usage = {"hyde": [], "rerank": []}
        times = {"hyde": [], "rerank": [], "retrieve": []}
        peaks = {"hyde": 0, "rerank": 0}
        def quiet(messages, json_mode):  # the same call, not counted: for the memory pass
            return chat.complete(messages, temperature=0.0, max_tokens=settings.llm.max_tokens, json_mode=json_mode)

        embedder.embed_query("warm up")  # the embedder's model loaded before anything is timed
        quiet([ChatMessage("user", "warm up")], False)
        for row, item in pairs:
            calls: list = []

            def call(messages, json_mode, stage):
                result = chat.complete(messages, temperature=0.0, max_tokens=settings.llm.max_tokens,
                                       json_mode=json_mode)
                calls.append((stage, result.prompt_tokens, result.completion_tokens,
                              sum(len(m.content) for m in messages)))
                return result

            t0 = time.perf_counter()
            hyde_text = hypothetical_passage(settings, lambda m, j: call(m, j, "hyde"), COMPANY, row)
            embedder.embed_query(hyde_text)  # what HyDE adds to the search: one more text embedded
            times["hyde"].append(time.perf_counter() - t0)
            if pool == POOLS[0]:
                peaks["hyde"] = max(peaks["hyde"], traced(lambda: embedder.embed_query(hypothetical_passage(
                    settings, lambda m, j: quiet(m, j), COMPANY, row))))
            for m in MODES:
                t0 = time.perf_counter()
                got = window(settings, opened, row, RETRIEVAL_MODES[m], hyde_text if RETRIEVAL_MODES[m].uses_hyde else "")
                if m == "hybrid":
                    times["retrieve"].append(time.perf_counter() - t0)
                per_mode[m].append(recall(got, item.pages, pool))
                if m == "hyde" and pool == POOLS[0]:
                    ranker = LLMReranker(settings, chat.model)
                    t0 = time.perf_counter()
                    rerank(settings, ranker, row, got, call=lambda msgs, j: call(msgs, j, "rerank"))
                    times["rerank"].append(time.perf_counter() - t0)
                    peaks["rerank"] = max(peaks["rerank"], traced(lambda: rerank(settings, ranker, row, got,
                                                                                 call=quiet)))
            if pool == POOLS[0]:
                for stage in usage:
                    mine = [c for c in calls if c[0] == stage]
                    usage[stage].append((len(mine), sum(c[1] for c in mine), sum(c[2] for c in mine),
                                         sum(c[3] for c in mine)))
        for m in MODES:
            out["modes"].setdefault(m, {})[f"recall@{pool}"] = round(mean(per_mode[m]), 3)
        if pool == POOLS[0]:
            for stage, rows in usage.items():
                out["chain"][stage] = {
                    "calls/row": round(mean(r[0] for r in rows), 2),
                    "prompt tokens/row (chars/4)": round(mean(r[1] for r in rows)),
                    "completion tokens/row (chars/4)": round(mean(r[2] for r in rows)),
                    "prompt chars/row": round(mean(r[3] for r in rows)),
                    "ms/row": round(1000 * mean(times[stage]), 1),
                    "peak MB (tracemalloc)": round(peaks[stage] / 1e6, 1)}
            out["chain"]["retrieve (hybrid, for scale)"] = {"ms/row": round(1000 * mean(times["retrieve"]), 1)}
        opened_close = getattr(opened, "close", None)
        if opened_close:
            opened_close()
    out["rows"] = rows_seen
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", choices=("bhp", "bhp_expert", "both"), default="both")
    ap.add_argument("--workspace", type=Path, default=Path("/tmp/autofill-model-chain"))
    ap.add_argument("--rows", type=int, default=0, help="at most this many questions per set (0: all)")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    if not (BHP / "gold.json").is_file():
        print(f"no data at {BHP}: skipped")
        return 0
    from autofill.settings import load_settings
    from tests.llm_server import LLMServer

    args.workspace.mkdir(parents=True, exist_ok=True)
    ensure_ingested(load_settings(args.workspace, environ={}))
    sets = {"bhp": BHP, "bhp_expert": EXPERT}
    chosen = list(sets) if args.set == "both" else [args.set]
    results = []
    with LLMServer() as server:
        server.responder = responder
        for name in chosen:
            t0 = time.monotonic()
            res = measure_set(name, sets[name], args.workspace, server, args.rows)
            res["seconds"] = round(time.monotonic() - t0)
            results.append(res)
    for res in results:
        print(f"\n## {res['set']}: {res['rows']} questions with gold pages ({res['seconds']} s)")
        print("HyDE rows: LOOPBACK hypothetical passage built from the question (no model knowledge)\n")
        print("| window handed to the reranker | " + " | ".join(f"recall@{p}" for p in POOLS) + " |")
        print("|---|" + "---|" * len(POOLS))
        for mode, figures in res["modes"].items():
            label = f"{mode} (loopback HyDE)" if "hyde" in mode else mode
            print(f"| {label} | " + " | ".join(str(figures[f'recall@{p}']) for p in POOLS) + " |")
        print("\n| step (per row, loopback answers at once) | " + " | ".join(res["chain"]["hyde"]) + " |")
        print("|---|" + "---|" * len(res["chain"]["hyde"]))
        for stage in ("hyde", "rerank"):
            print(f"| {stage} | " + " | ".join(str(v) for v in res["chain"][stage].values()) + " |")
        print(f"| retrieve (hybrid, for scale) | {res['chain']['retrieve (hybrid, for scale)']['ms/row']} ms |")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
