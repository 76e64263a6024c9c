"""Answer library on the BHP development set: approve the 15 gold answers, then ask again.

1. Ingest the two BHP reports (local embedder) into a temporary workspace; write the gold answers into
   a filled workbook in autofill's output layout, every row Approved, with the gold pages as Sources,
   and `library add` it.
2. A second customer's workbook, another layout (header on row 1, Requirement before the Ref column,
   no Form of answer) and another order, holding 15 hand-written rewordings of the gold questions and
   15 unrelated ESG questions. Measured: top-1 match accuracy on the rewordings (the right approved
   answer, at or above the threshold), false matches on the unrelated questions (any answer shown).
3. Model calls: the rewordings and the original questionnaire (next year's identical workbook) are run
   against a loopback OpenAI-compatible server, with `--reuse approved` and without; calls counted at
   the server (no response cache).

    python benchmarks/library.py [--threshold 0.8]

Skips when /work/shared/datasets/bhp/ (or ../shared/datasets/bhp/) is absent. Nothing leaves the machine."""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DATASETS = [Path("/work/shared/datasets/bhp"), ROOT.parent / "shared" / "datasets" / "bhp"]

# Rewordings of gold questions 1..15, written by hand (other words, other order of clauses).
PARAPHRASES = [
    "Has the company committed to net zero for its operational Scope 1 and Scope 2 greenhouse gas emissions?",
    "Is there a formal target to reach net zero Scope 3 emissions, as opposed to interim goals?",
    "Which medium-term emission reduction targets for 2030 are in place, and against which baseline year?",
    "Has the Science Based Targets initiative (SBTi) validated the company's emission reduction targets?",
    "Have the company's climate targets been assessed by Climate Action 100+?",
    "Are carbon offsets used to meet the climate targets, and how many offsets were retired in the last year?",
    "Report the company's Scope 1, Scope 2 and Scope 3 greenhouse gas emissions for the latest reporting year.",
    "Is an internal price on carbon used in planning and investment decisions, and at what price level?",
    "What amount of capital has the company committed or set aside for decarbonisation?",
    "Are the company's disclosures made in line with the recommendations of the TCFD?",
    "Is executive pay linked to climate-related performance, and with what weighting?",
    "Has the climate transition plan been put to an advisory shareholder vote ('say on climate')?",
    "Which climate scenarios does the company use in its climate scenario analysis?",
    "Has the company assessed how the physical risks of climate change affect its operations and value chain?",
    "Does the company work with suppliers and customers such as steelmakers to cut Scope 3 emissions?",
]
UNRELATED = [
    "What was the company's total water withdrawal in the latest year?",
    "What is the total recordable injury frequency rate?",
    "How many fatalities occurred at operated assets during the year?",
    "What percentage of the board of directors are women?",
    "Does the company publish a modern slavery statement?",
    "What is the company's standard for tailings dam safety?",
    "How much mineral waste and tailings did the company produce?",
    "Does the company have a no net loss commitment for biodiversity?",
    "How much did the company invest in local communities during the year?",
    "Does the company have an anti-bribery and corruption policy?",
    "What share of procurement spend goes to local suppliers?",
    "Does the company disclose its tax payments by country?",
    "How does the company engage with Indigenous peoples near its operations?",
    "What was total energy consumption in petajoules?",
    "Is a whistleblower hotline available to employees and contractors?",
]
OURS = ["No.", "Question", "Answer", "Reasoning", "Sources", "Confidence", "Status", "Review", "Reviewer comment"]


def dataset() -> Path | None:
    return next((d for d in DATASETS if (d / "gold.json").is_file()), None)


def approved_workbook(gold: list[dict], path: Path) -> Path:
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Questionnaire"
    ws.append(["BHP climate questionnaire (approved)"])
    ws.append([])
    ws.append(OURS)
    for g in gold:
        pages = "; ".join(dict.fromkeys(f"{e['file']} p. {e['page']}" for e in g["gold"]))
        ws.append([str(g["no"]), g["question"], g["gold_answer"], "Checked against the reports.", pages, "high",
                   "Answered", "Approved", ""])
    wb.save(path)
    return path


def customer_workbook(questions: list[tuple[str, str]], path: Path) -> Path:
    """Another layout: header on row 1, Requirement first, Ref second, a Response column."""
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Bank ESG"
    ws.append(["Requirement", "Ref", "Response"])
    for ref, q in questions:
        ws.append([q, ref, None])
    wb.save(path)
    return path


def responder():
    from tests.llm_server import by_marker

    def answer(req):
        return json.dumps({"reasoning": "The passages do not say.", "answer": "Not disclosed", "citations": [],
                           "confidence": "low"})

    return by_marker({"Write a short passage": lambda req: "A passage about climate targets.",
                      "Rank all": lambda req: "[1] > [2] > [3]", "single JSON object": answer})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threshold", type=float, default=None, help="library.threshold (default: the setting's)")
    ap.add_argument("--workspace", type=Path, default=None,
                    help="keep the workspace here (a second run skips the unchanged PDFs' ingest)")
    args = ap.parse_args()
    data = dataset()
    if data is None:
        print("skipped: BHP dataset not found")
        return
    from autofill.answer.pipeline import run_questionnaire
    from autofill.ingest.pipeline import ingest_paths
    from autofill.library import manage
    from autofill.library.runtime import RunLibrary
    from autofill.providers.base import Providers
    from autofill.providers.factory import make_chat, make_embedder
    from autofill.records import QuestionRow
    from autofill.settings import Settings
    from autofill.store.chroma_store import open_store
    from tests.llm_server import LLMServer

    gold = json.loads((data / "gold.json").read_text())
    with tempfile.TemporaryDirectory() as tmp:
        root = args.workspace or Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        from autofill.library.store import library_path

        library_path(Settings(workspace=root), "BHP").unlink(missing_ok=True)  # approve from scratch
        s = Settings(workspace=root)
        if args.threshold is not None:
            s.library.threshold = args.threshold
        t0 = time.monotonic()
        emb = make_embedder(s)
        ingest_paths(s, "BHP", sorted(data.glob("*.pdf")), embedder=emb)
        print(f"ingest: {time.monotonic() - t0:.1f} s")
        added = manage.add(s, "BHP", [approved_workbook(gold, root / "bhp_approved.xlsx")])
        print(f"library add: {added.data['added']} approved answers")

        # --- matching: rewordings in another order, unrelated questions mixed in
        rng = random.Random(11)
        items = [(f"P{g['no']}", q, g["no"]) for g, q in zip(gold, PARAPHRASES)] + \
                [(f"U{i + 1}", q, None) for i, q in enumerate(UNRELATED)]
        rng.shuffle(items)
        docs = open_store(s, "BHP").documents()
        threshold = s.library.threshold
        s.library.threshold = 0.0  # every best match, to show the margins; decided against `threshold` below
        lib = RunLibrary(s, "BHP", emb, docs)
        rows = [QuestionRow(sheet="Bank ESG", row=i + 2, question=q) for i, (_, q, _) in enumerate(items)]
        t1 = time.monotonic()
        best = lib.match(rows)
        match_s = time.monotonic() - t1
        s.library.threshold = threshold
        matches = {k: m for k, m in best.items() if m.strength >= threshold}
        unrelated = [best[r.key].strength for r, it in zip(rows, items) if it[2] is None and r.key in best]
        print(f"highest strength of an unrelated question: {max(unrelated, default=0):.2f}")
        by_question = {g["question"]: g["no"] for g in gold}
        correct = wrong = missed = false = 0
        for row, (ref, q, want) in zip(rows, items):
            m = matches.get(row.key)
            got = by_question.get(m.question) if m else None
            if want is not None:
                correct += got == want
                wrong += got is not None and got != want
                missed += got is None
            else:
                false += got is not None
            mark = "ok" if got == want else "MISS" if got is None else "WRONG"
            print(f"  {ref:>4} {mark:<5} {best[row.key].strength if row.key in best else 0:.2f} {q[:70]}")
        print(f"rewordings: top-1 correct {correct}/15, wrong answer shown {wrong}, none shown {missed}; "
              f"unrelated: false matches {false}/15 (threshold {threshold}; {match_s:.2f} s for 30 questions)")

        # --- model calls with and without --reuse approved
        reworded = customer_workbook([(ref, q) for ref, q, _ in items], root / "bank.xlsx")
        original = data / "questionnaire.xlsx"
        with LLMServer() as server:
            server.responder = responder()
            s.llm.provider, s.llm.base_url, s.llm.api_key, s.llm.cache = "openai", server.base_url, "sk-bench", False
            for name, path in (("original questionnaire (next year)", original), ("reworded + unrelated", reworded)):
                calls = {}
                for reuse in ("off", "approved"):
                    s.library.reuse = reuse
                    before = len(server.chat_requests())
                    out = root / f"out-{reuse}"
                    report = run_questionnaire(s, "BHP", path, out_dir=out, resume=False,
                                               providers=Providers(embedder=emb, chat=make_chat(s)))
                    calls[reuse] = (len(server.chat_requests()) - before, report.reused, report.rows)
                off, on = calls["off"], calls["approved"]
                print(f"{name}: {off[2]} rows; model calls {off[0]} without reuse, {on[0]} with --reuse approved "
                      f"({on[1]} rows reused, {off[0] - on[0]} calls saved)")


if __name__ == "__main__":
    main()
