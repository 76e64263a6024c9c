"""Evidence a reviewer would cite (issue 47), offline, on every development set: per set, the share of rows
whose cited Sources include a hand-labelled boilerplate page (covers, contents, notices, glossaries,
indexes: benchmarks/devsets/boilerplate_pages.json, labelled by reading the pages, not by the detector), the
cited-page hit against gold, and hit@6 and MRR of the six Evidence passages; before (boilerplate pages
ranked as the search found them: `retrieval.boilerplate_last = false`, the code path of main at b17798d)
and after, with paired Wilcoxon tests (evaluate/stats.py), and each configuration's time.

    python benchmarks/evidence_quality.py [--sets bhp,bhp_expert,bhp_tcfd,sector_reports,financebench]
                                          [--workspace DIR] [--all-financebench] [--json FILE] [--per-question]

Rows are answered as `autofill run` answers them without a model (answer/opening.open_run(...).answer(row):
search, content index, boilerplate, second stage, the evidence-only draft and its cited pages), without
writing workbooks. Sets:

- bhp: ../shared/datasets/bhp (questionnaire and gold key), its two reports;
- bhp_expert: benchmarks/devsets/bhp_expert against the same reports;
- bhp_tcfd: the report-analyst TCFD questions (../shared/questionsets, read at run time) against the same
  reports, gold pages in benchmarks/devsets/bhp_tcfd/gold.json (questions not written here);
- sector_reports: benchmarks/devsets/sector_reports (three generated reports);
- financebench: ../shared/datasets/financebench-dev, its three earnings releases by default (short enough to
  ingest within the benchmark's time; `--all-financebench` for every folder, which takes an hour to ingest).

Each company is ingested once into the workspace (incremental). Time is the rows' answering time per
configuration in this process; the memory and time of a whole run are benchmarks/run_rows.py's. Skips
(exit 0) when the data is absent."""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from statistics import mean

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SHARED = next((p / "shared" for p in (ROOT.parent, ROOT.parent.parent) if (p / "shared" / "datasets").is_dir()),
              ROOT.parent / "shared")  # ../shared beside the checkout (a worktree's is one folder up)
BHP = SHARED / "datasets" / "bhp"
FINANCEBENCH = SHARED / "datasets" / "financebench-dev"
TCFD = SHARED / "questionsets" / "report-analyst" / "tcfd_questions.yaml"
DEVSETS = ROOT / "benchmarks" / "devsets"
LABELS = DEVSETS / "boilerplate_pages.json"
EARNINGS = ("AMCOR_2023Q4_EARNINGS", "JOHNSON_JOHNSON_2022Q4_EARNINGS", "PEPSICO_2023Q1_EARNINGS")
K = 6
METRICS = (("boilerplate cited", "boiler"), ("cited hit", "cited"), ("hit@6", "hit6"), ("MRR", "mrr"))
CONFIGS = (("before", False), ("after", True))


@dataclass
class Company:
    name: str  # the store's company
    pdfs: list[Path]
    rows: list = field(default_factory=list)  # (QuestionRow, [GoldPage]) pairs


def questionnaire_rows(settings, questionnaire: Path, gold: Path) -> list[tuple]:
    from autofill.evaluate.gold import load_gold
    from autofill.workbook.layout import read_questions

    _, rows = read_questions(settings, questionnaire)
    pairs, _ = load_gold(gold).match(rows)
    return [(row, item.pages) for row, item in pairs if item.pages]


def tcfd_rows() -> list[tuple]:
    """The report-analyst TCFD questions (read from ../shared at run time) with the gold pages kept here."""
    import yaml

    from autofill.evaluate.gold import GoldPage
    from autofill.records import QuestionRow

    questions = {q["id"]: q["text"] for q in yaml.safe_load(TCFD.read_text(encoding="utf-8"))["questions"]}
    gold = json.loads((DEVSETS / "bhp_tcfd" / "gold.json").read_text(encoding="utf-8"))["pages"]
    out = []
    for i, (qid, files) in enumerate(gold.items(), start=2):
        row = QuestionRow(sheet="TCFD", row=i, question=questions[qid], number=qid)
        out.append((row, [GoldPage(f, p) for f, pages in files.items() for p in pages]))
    return out


def sets(settings, names: set[str], all_financebench: bool) -> dict[str, list[Company]]:
    out: dict[str, list[Company]] = {}
    bhp_pdfs = sorted(BHP.glob("*.pdf"))
    if "bhp" in names and bhp_pdfs:
        out["bhp"] = [Company("bhp", bhp_pdfs, questionnaire_rows(settings, BHP / "questionnaire.xlsx",
                                                                   BHP / "gold.json"))]
    if "bhp_expert" in names and bhp_pdfs:
        d = DEVSETS / "bhp_expert"
        out["bhp_expert"] = [Company("bhp", bhp_pdfs, questionnaire_rows(settings, d / "questionnaire.xlsx",
                                                                          d / "gold.json"))]
    if "bhp_tcfd" in names and bhp_pdfs and TCFD.is_file():
        out["bhp_tcfd"] = [Company("bhp", bhp_pdfs, tcfd_rows())]
    if "sector_reports" in names:
        out["sector_reports"] = [Company(d.name, sorted(d.glob("*.pdf")),
                                         questionnaire_rows(settings, d / "questionnaire.xlsx", d / "gold.json"))
                                 for d in sorted((DEVSETS / "sector_reports").iterdir()) if (d / "gold.json").is_file()]
    if "financebench" in names and FINANCEBENCH.is_dir():
        folders = [d for d in sorted(FINANCEBENCH.iterdir()) if (d / "gold.json").is_file()
                   and (all_financebench or d.name in EARNINGS)]
        out["financebench"] = [Company(d.name, sorted(d.glob("*.pdf")),
                                       questionnaire_rows(settings, d / "questionnaire.xlsx", d / "gold.json"))
                               for d in folders]
    return {k: v for k, v in out.items() if v and any(c.rows for c in v)}


def labelled() -> list[tuple[str, int]]:
    data = json.loads(LABELS.read_text(encoding="utf-8"))
    return [(f, p) for f, pages in data.items() if not f.startswith("_") for p in pages]


def answer_rows(settings, company: Company, marked) -> list[dict]:
    from autofill.answer.opening import open_run
    from autofill.evaluate.metrics import RetrievedPassage, cited_page_hit, cites_page_of, page_metrics

    opened = open_run(settings, company.name)
    opened.centre_on([row for row, _ in company.rows])
    out = []
    for row, gold in company.rows:
        result = opened.answer(row)
        cited = [(c.file_name, c.page) for c in (result.answer.citations if result.answer else [])]
        passages = [RetrievedPassage(rank=i, file=p.file_name, pages=tuple(range(p.page_start, p.page_end + 1)))
                    for i, p in enumerate(result.passages or [], start=1)]
        at_k = page_metrics(passages, gold, K)
        out.append({"company": company.name, "number": row.number or str(row.row), "question": row.question,
                    "boiler": cites_page_of(cited, marked), "cited": cited_page_hit(cited, gold),
                    "hit6": at_k.hit, "mrr": at_k.mrr, "sources": [f"{f} p. {p}" for f, p in cited]})
    return out


def table(results: dict[str, list[dict]]) -> str:
    from autofill.evaluate.stats import paired_test

    before, after = results["before"], results["after"]
    lines = ["| configuration | rows | " + " | ".join(m for m, _ in METRICS) + " |", "|---|---|" + "---|" * len(METRICS)]
    for name, rows in results.items():
        lines.append(f"| {name} | {len(rows)} | " + " | ".join(f"{mean(r[k] for r in rows):.3f}" for _, k in METRICS) + " |")
    tests = [paired_test([r[k] for r in before], [r[k] for r in after]) for _, k in METRICS]
    lines.append("| p (after vs before, wins/losses) | | " + " | ".join(
        "n/a" if t.p_value is None else f"{t.p_value:.3g} ({t.wins}+/{t.losses}-)" for t in tests) + " |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", default="bhp,bhp_expert,bhp_tcfd,sector_reports,financebench")
    ap.add_argument("--workspace", type=Path, default=None)
    ap.add_argument("--all-financebench", action="store_true")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--per-question", action="store_true")
    args = ap.parse_args()

    from autofill.ingest.pipeline import ingest_paths
    from autofill.settings import load_settings

    tmp = tempfile.TemporaryDirectory()
    workspace = args.workspace or Path(tmp.name)
    settings = load_settings(workspace, environ={}, overrides={"llm": {"provider": "none"}})
    chosen = sets(settings, {s.strip() for s in args.sets.split(",") if s.strip()}, args.all_financebench)
    if not chosen:
        print("skipped: no development set found")
        return 0
    marked = labelled()
    t0 = time.monotonic()
    for companies in chosen.values():
        for c in companies:
            report = ingest_paths(settings, c.name, c.pdfs)
            if any(f.status == "failed" for f in report.files):
                raise SystemExit(f"ingest of {c.name} failed")
    print(f"ingest (incremental): {time.monotonic() - t0:.1f} s")

    everything: dict[str, dict[str, list[dict]]] = {}
    for set_name, companies in chosen.items():
        results: dict[str, list[dict]] = {}
        for name, on in CONFIGS:
            s = replace(settings, retrieval=replace(settings.retrieval, boilerplate_last=on))
            t1 = time.monotonic()
            rows = [r for c in companies for r in answer_rows(s, c, marked)]
            results[name] = rows
            print(f"{set_name} {name}: {len(rows)} rows, {time.monotonic() - t1:.1f} s, "
                  f"peak RSS so far {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
        print(f"\n### {set_name}\n\n" + table(results) + "\n")
        if args.per_question:
            for b, a in zip(results["before"], results["after"]):
                if b["sources"] != a["sources"]:
                    print(f"    {b['company'][:14]} {b['number']:>8} cited {b['cited']}->{a['cited']} "
                          f"boiler {b['boiler']:.0f}->{a['boiler']:.0f}  {'; '.join(b['sources'])[:70]} -> "
                          f"{'; '.join(a['sources'])[:70]}")
        everything[set_name] = results
    if args.json:
        args.json.write_text(json.dumps(everything, indent=1))
    tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
