"""Offline quotes and cited pages of evidence-only drafts (issue 47, part 2), before and after.

    python benchmarks/quotes.py --before DIR [--after DIR] [--workspace WS] [--sets bhp,bhp_expert,financebench]

Runs the real CLI (`autofill run --llm none`, a fresh process per set) with the code of `--before` (a
checkout of main, e.g. `git archive b17798d | tar -x -C DIR`) and of `--after` (default: this tree) on the
same workspace, and reads the filled workbooks:

- heading share: quotes that are bare headings (autofill/quotes.is_heading: a short line, no full stop, no
  figure, no verb), per row;
- table-row quotes: a quote (not a sentence of the running text) whose figures lie mostly in one table line of
  the row's Evidence passages; it is
  *labelled* when it reads `label, header: value` for every value it quotes (a non-empty row label before
  the first column header, each figure right after its header); `header | row` pipes never are;
- cited-page hit: the first Source's page (and any Source's page) among gold.json's pages of the row;
- seconds: the run's wall time (ingest excluded: the workspace's stores are built first, once, and reused).

Paired Wilcoxon tests (autofill/evaluate/stats.paired_test) over the rows, after against before. The sets:
BHP (../shared/datasets/bhp, 15 rows), bhp_expert (benchmarks/devsets/bhp_expert, 33 rows, the same PDFs),
financebench (5 of ../shared/datasets/financebench-dev's shortest filings, 9 rows; each filing its own
store). Skips (exit 0) when the shared data are absent."""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import mean

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SHARED = ROOT.parent / "shared" / "datasets"
if not SHARED.is_dir():
    SHARED = Path("/work/shared/datasets")
BHP = SHARED / "bhp"
FINANCE = SHARED / "financebench-dev"
FINANCE_SUBSET = ("AMCOR_2023Q4_EARNINGS", "JOHNSON_JOHNSON_2022Q4_EARNINGS", "PEPSICO_2023Q1_EARNINGS",
                  "COSTCO_2021_10K", "AMAZON_2017_10K")
_QUOTE = re.compile(r"\u201c(.*?)\u201d \(([^()]*?) p\. (\d+)")
_SOURCE = re.compile(r"(.+?) p\. (\d+)")


def env_for(code: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(code), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
            "ANONYMIZED_TELEMETRY": "False", "AUTOFILL_LLM__PROVIDER": "none"}


def cli(code: Path, workspace: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autofill", "--workspace", str(workspace), *args],
                          env=env_for(code), capture_output=True, text=True, cwd=str(workspace))


def sets(chosen: set[str]) -> list[tuple[str, list[tuple[str, list[Path], Path, Path]]]]:
    """(set name, [(company, PDFs, questionnaire, gold.json)])."""
    out = []
    if "bhp" in chosen and BHP.is_dir():
        out.append(("bhp", [("BHP", sorted(BHP.glob("*.pdf")), BHP / "questionnaire.xlsx", BHP / "gold.json")]))
    expert = ROOT / "benchmarks" / "devsets" / "bhp_expert"
    if "bhp_expert" in chosen and BHP.is_dir():
        out.append(("bhp_expert", [("BHP", sorted(BHP.glob("*.pdf")), expert / "questionnaire.xlsx",
                                    expert / "gold.json")]))
    if "financebench" in chosen and FINANCE.is_dir():
        out.append(("financebench", [(n, [FINANCE / n / f"{n}.pdf"], FINANCE / n / "questionnaire.xlsx",
                                      FINANCE / n / "gold.json") for n in FINANCE_SUBSET if (FINANCE / n).is_dir()]))
    return out


def norm(question: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", (question or "").lower()))


def read_rows(output: Path) -> tuple[dict[str, dict], dict[str, list[str]]]:
    """Question -> {reasoning, sources}; question -> the texts of its Evidence passages."""
    import openpyxl

    wb = openpyxl.load_workbook(output, read_only=True)
    rows: dict[str, dict] = {}
    for ws in wb.worksheets:
        if ws.title in ("Evidence", "Run info", "Instructions", "autofill record"):
            continue
        col: dict[str, int] = {}
        for r in ws.iter_rows(values_only=True):
            if not col:
                names = [str(v).strip() if v is not None else "" for v in r]
                if "Question" in names and "Sources" in names:
                    col = {n: i for i, n in enumerate(names) if n}
                continue
            q = r[col["Question"]]
            if q:
                rows[norm(str(q))] = {"reasoning": str(r[col["Reasoning"]] or ""), "sources": str(r[col["Sources"]] or "")}
    evidence: dict[str, list[str]] = {}
    ws = wb["Evidence"]
    it = ws.iter_rows(values_only=True)
    head = {h: i for i, h in enumerate(next(it))}
    for r in it:
        evidence.setdefault(norm(str(r[head["Question"]])), []).append(str(r[head["Text"]] or ""))
    return rows, evidence


def gold_pages(path: Path) -> dict[str, set[tuple[str, int]]]:
    return {norm(item["question"]): {(g["file"], int(g["page"])) for g in item.get("gold", [])}
            for item in json.loads(path.read_text())}


def _words(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def table_line_of(quote: str, evidence: list[str]) -> str | None:
    """The table line of the evidence a quote was read from: one holding most figures of the quote, while
    the quote is no sentence of the evidence's running text (None: not a table-row quote)."""
    from autofill.quotes import figures

    wanted = figures(quote)
    if not wanted:
        return None
    said = _words(quote.removesuffix(" ..."))
    prose = " ".join(" ".join(ln for ln in text.splitlines() if not ln.strip().startswith("|")) for text in evidence)
    if said and said in _words(prose):
        return None
    for text in evidence:
        for line in text.splitlines():
            # Most of its figures: a labelled quote also carries its headers' ("Year ended 30 June 2019").
            if line.strip().startswith("|") and len(wanted & figures(line)) >= max(1, 0.6 * len(wanted)):
                return line
    return None


_LABELLED = re.compile(r"^[^|]*?[A-Za-z]{2,}[^|]*?, (?:[^;:|]+: [^;|]+)(?:; [^;:|]+: [^;|]+)*$")


def labelled(quote: str) -> bool:
    """`label, header: value; header: value` with a worded label and a header before each value."""
    return bool(_LABELLED.match(quote.rstrip(" .").removesuffix(" ...")))


def score_row(row: dict, evidence: list[str], gold: set[tuple[str, int]]) -> dict:
    from autofill.quotes import is_heading

    quotes = [(q, f, int(p)) for q, f, p in _QUOTE.findall(row["reasoning"])]
    sources = [(f.strip(), int(p)) for f, p in _SOURCE.findall(row["sources"]) if f.strip()]
    sources = [(f.lstrip("; ").strip(), p) for f, p in sources]
    tables = [q for q, _, _ in quotes if table_line_of(q, evidence) is not None]
    return {
        "quotes": len(quotes),
        "headings": sum(1 for q, _, _ in quotes if is_heading(q)),
        "heading_share": (sum(1 for q, _, _ in quotes if is_heading(q)) / len(quotes)) if quotes else None,
        "table_quotes": len(tables),
        "labelled": sum(1 for q in tables if labelled(q)),
        "labelled_share": (sum(1 for q in tables if labelled(q)) / len(tables)) if tables else None,
        "first_hit": (1.0 if sources and sources[0] in gold else 0.0) if gold else None,
        "any_hit": (1.0 if any(s in gold for s in sources) else 0.0) if gold else None,
        "quote_hit": (1.0 if quotes and (quotes[0][1].strip(), quotes[0][2]) in gold else 0.0) if gold else None,
    }


def ingest(code: Path, workspace: Path, company: str, pdfs: list[Path]) -> None:
    proc = cli(code, workspace, "ingest", "--company", company, *map(str, pdfs), "--json")
    if proc.returncode:
        raise SystemExit(f"ingest of {company} failed: {proc.stderr[-400:]}")


def run_set(code: Path, workspace: Path, name: str, items, tag: str) -> tuple[list[dict], float]:
    results, seconds = [], 0.0
    for company, _, questionnaire, gold in items:
        out = workspace / f"out-{tag}-{name}-{company}"
        started = time.monotonic()
        proc = cli(code, workspace, "run", "--company", company, "--questionnaire", str(questionnaire),
                   "--out", str(out), "--llm", "none", "--fresh", "--json")
        seconds += time.monotonic() - started
        if proc.returncode not in (0, 1):
            raise SystemExit(f"run of {name}/{company} with {code} failed: {proc.stderr[-600:]}")
        output = next(out.glob("*_filled.xlsx"))
        rows, evidence = read_rows(output)
        pages = gold_pages(gold)
        for q, row in sorted(rows.items()):
            if q in pages:
                results.append({"set": name, "question": q, **score_row(row, evidence.get(q, []), pages[q])})
    return results, seconds


def summary(rows: list[dict]) -> dict:
    def avg(key):
        values = [r[key] for r in rows if r[key] is not None]
        return round(mean(values), 3) if values else None
    quotes = sum(r["quotes"] for r in rows)
    tables = sum(r["table_quotes"] for r in rows)
    return {"rows": len(rows), "quotes": quotes,
            "heading_share": round(sum(r["headings"] for r in rows) / quotes, 3) if quotes else None,
            "table_quotes": tables,
            "labelled_share": round(sum(r["labelled"] for r in rows) / tables, 3) if tables else None,
            "first_cited_hit": avg("first_hit"), "any_cited_hit": avg("any_hit"), "first_quote_hit": avg("quote_hit")}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", type=Path, required=True, help="a checkout of the code to compare against")
    ap.add_argument("--after", type=Path, default=ROOT)
    ap.add_argument("--workspace", type=Path, help="reuse this workspace (its stores are kept)")
    ap.add_argument("--sets", default="bhp,bhp_expert,financebench")
    ap.add_argument("--json", type=Path, help="write the per-row results here")
    args = ap.parse_args()
    chosen = sets(set(args.sets.split(",")))
    if not chosen:
        print("shared data sets not found: skipped")
        return 0
    from autofill.evaluate.stats import paired_test

    workspace = args.workspace or Path(tempfile.mkdtemp(prefix="quotes-bench-"))
    (workspace / "autofill.toml").touch()
    done = set()
    for _, items in chosen:
        for company, pdfs, _, _ in items:
            if company not in done:
                ingest(args.after, workspace, company, pdfs)  # incremental: a stored report is skipped
                done.add(company)
    report = {}
    for name, items in chosen:
        before, t_before = run_set(args.before, workspace, name, items, "before")
        after, t_after = run_set(args.after, workspace, name, items, "after")
        report[name] = {"before": summary(before), "after": summary(after),
                        "seconds": {"before": round(t_before, 1), "after": round(t_after, 1)}, "paired": {}}
        print(f"\n{name}: {len(after)} rows   run seconds before {t_before:.1f}, after {t_after:.1f}")
        print(f"  {'metric':<16} {'before':>8} {'after':>8}")
        for key in ("heading_share", "labelled_share", "first_cited_hit", "any_cited_hit", "first_quote_hit"):
            print(f"  {key:<16} {report[name]['before'][key]!s:>8} {report[name]['after'][key]!s:>8}")
        print(f"  quotes {report[name]['before']['quotes']} -> {report[name]['after']['quotes']}, table-row quotes "
              f"{report[name]['before']['table_quotes']} -> {report[name]['after']['table_quotes']}")
        for key in ("heading_share", "labelled_share", "first_hit", "any_hit", "quote_hit"):
            t = paired_test([b[key] for b in before], [a[key] for a in after])
            report[name]["paired"][key] = {"n": t.n, "wins": t.wins, "losses": t.losses, "p": t.p_value}
            print(f"  paired {key:<14} n={t.n} wins={t.wins} losses={t.losses} p={t.p_value if t.p_value is None else round(t.p_value, 4)}"
                  f" {t.note}")
        if args.json:
            report[name]["rows"] = {"before": before, "after": after}
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
