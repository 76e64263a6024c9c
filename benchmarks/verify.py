"""Trust checks on the BHP answer key: how often a correct answer is flagged (false alarms), and how
often a wrong one is caught (detection), per kind of error.

    python benchmarks/verify.py [--seed 7] [--seeds 10] [--passages page|chunk|parsed] [--misses] [--json]

Positives: each gold answer of ../shared/datasets/bhp/gold.json, citing its gold pages, whose text is
read with PyMuPDF from the PDFs next to it (one passage per cited page, as a page-level chunk).
Negatives, perturbed copies of each positive:
  figure    one figure changed by 5 to 50 % (each figure of the answer in turn; same format)
  year      one year shifted by 1 to 3 (each year in turn: "FY2021" -> "FY2019"), reported also as
            year+figure (the year's clause states a figure: "In FY2021 it retired 300,000 offsets")
            and year bare (it does not: "released in 2017", "the Climate Change Report 2020")
  unit      a unit swapped for one of another scale or kind (Mt -> kt, % -> Mt, GJ -> PJ)
  scope     a scope or basis swapped for one the answer does not name (Scope 1 -> Scope 3,
            market-based -> location-based, absolute -> intensity, gross -> net)
  citation  the citations moved to an unrelated page of the same report (a random non-gold page)
Cited passages (--passages): the whole gold page as PyMuPDF's plain text (tables flattened to one
cell a line), the ~1,000-character chunk around the gold evidence, or the whole page as autofill's
PDF parser reads it (tables as Markdown; OCR off; cached in the temp folder). --misses lists the
perturbed answers left Ready, with the change.
The checks are autofill.checks.row.assess on a RowResult built from these (no model, no store): an
answer counts as flagged when its tier is not Ready, and as Needs work when a hard check failed. The
reporting periods come from autofill.ingest.period on the same PDFs. Skips when the data set is absent."""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from autofill.checks.numbers import extract_quantities, extract_years  # noqa: E402
from autofill.checks.row import CheckContext, assess  # noqa: E402
from autofill.checks.figures import answer_figures  # noqa: E402
from autofill.checks.scope import scopes_in  # noqa: E402
from autofill.checks.ties import _anchor, answer_clauses  # noqa: E402
from autofill.ingest.period import detect_period  # noqa: E402
from autofill.records import Answer, Block, Citation, PageContent, ParsedDocument, Passage, QuestionRow, \
    RowResult  # noqa: E402
from autofill.states import Tier  # noqa: E402

DATA = Path("/work/shared/datasets/bhp")
if not DATA.is_dir():
    DATA = ROOT.parent / "shared" / "datasets" / "bhp"
KINDS = ("figure", "year", "unit", "scope", "citation")
_NUMERAL = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?|(?<![\w.,])\d+(?:\.\d+)?")
_YEARISH = re.compile(r"(?<![\w.,])((?:FY|CY)?\s?)((?:19|20)\d{2})(?![\d,])|\bFY(\d{2})\b")
_UNITS = [(r"\bMt\b", "kt"), (r"\bkt\b", "Mt"), (r"%", " Mt"), (r"\bper cent\b", "Mt"), (r"\bGJ\b", "PJ"),
          (r"\bPJ\b", "GJ"), (r"\bMWh\b", "GWh"), (r"\bGWh\b", "MWh"), (r"\bGL\b", "ML"), (r"\bML\b", "GL"),
          (r"/tCO2e\b", "/kgCO2e"), (r"\bmillion\b", "billion"), (r"\bbillion\b", "million")]
_BASES = [("market-based", "location-based"), ("location-based", "market-based"), ("absolute", "intensity"),
          ("intensity", "absolute"), ("gross", "net"), ("net", "gross")]


def parsed_pages(pdf: Path) -> list[str]:
    """The page texts autofill's parser reads from `pdf`, cached in the temp folder by file size and
    time (parsing takes a minute)."""
    import tempfile

    from autofill.ingest.pdf import parse_pdf
    from autofill.settings import IngestSettings

    stat = pdf.stat()
    cache = Path(tempfile.gettempdir()) / f"autofill-verify-{pdf.stem}-{stat.st_size}-{int(stat.st_mtime)}.json"
    if cache.is_file():
        return json.loads(cache.read_text())
    doc = parse_pdf(pdf, IngestSettings(ocr=False))
    texts = {pc.page: "\n\n".join(b.text for b in pc.blocks) for pc in doc.pages}
    out = [texts.get(n, "") for n in range(1, doc.page_count + 1)]
    cache.write_text(json.dumps(out))
    return out


def load_pages(parsed: bool = False) -> dict[str, list[str]]:
    """Each PDF's page texts: PyMuPDF's plain text, or (parsed) as autofill's parser reads the page
    (headings, joined lines, tables as Markdown; OCR off to keep the benchmark quick)."""
    import pymupdf

    pages = {}
    for pdf in sorted(DATA.glob("*.pdf")):
        if parsed:
            pages[pdf.name] = parsed_pages(pdf)
            continue
        with pymupdf.open(pdf) as doc:
            pages[pdf.name] = [page.get_text() for page in doc]
    return pages


def periods_of(pages: dict[str, list[str]]) -> dict[str, str]:
    out = {}
    for name, texts in pages.items():
        doc = ParsedDocument(DATA / name, name, "", [PageContent(i, [Block("text", t)]) for i, t in
                                                      enumerate(texts, 1)], len(texts))
        out[name] = detect_period(doc)
    return out


def passage(file: str, page: int, text: str) -> Passage:
    return Passage(chunk_id=f"{file}:{page}", file_name=file, page_start=page, page_end=page, section="", text=text)


CHUNK_CHARS = 1000  # the ingest default (ingest.chunk_chars)


def chunk_around(page_text: str, evidence: str) -> str:
    """A chunk-sized passage of the page holding the gold evidence, as ingest would cut it."""
    text = " ".join(page_text.split())
    at = text.lower().find(" ".join(evidence.split()).lower()[:40])
    start = max(0, at - (CHUNK_CHARS - min(len(evidence), CHUNK_CHARS)) // 2) if at >= 0 else 0
    return text[start:start + CHUNK_CHARS]


def row(question: str, answer: str, cited: list[tuple[str, int]], pages: dict[str, list[str]],
        evidence: list[str] | None = None) -> RowResult:
    """The answer citing `cited` pages: whole pages, or (with `evidence`, one string per citation) the
    chunk-sized passage around each evidence string."""
    if evidence is not None:
        pairs = list(dict.fromkeys(zip(cited, evidence)))
        passages = [passage(f, p, chunk_around(pages[f][p - 1], e)) for (f, p), e in pairs]
    else:
        passages = [passage(f, p, pages[f][p - 1]) for f, p in dict.fromkeys(cited)]
    cited = list(dict.fromkeys(cited))
    return RowResult(question=QuestionRow(sheet="Q", row=1, question=question),
                     answer=Answer(answer=answer, citations=[Citation(f, p) for f, p in cited],
                                   cited_passages=list(range(1, len(cited) + 1)), confidence="high"),
                     passages=passages)


def _format_like(original: str, value: float) -> str:
    decimals = len(original.split(".", 1)[1]) if "." in original else 0
    text = f"{value:,.{decimals}f}" if "," in original else f"{value:.{decimals}f}"
    return text


def figure_variants(answer: str, rnd: random.Random) -> list[str]:
    base = sorted(q.raw for q in extract_quantities(answer))
    out = []
    for m in _NUMERAL.finditer(answer):
        numeral = m.group(0)
        value = float(numeral.replace(",", ""))
        factor = 1 + rnd.choice((-1, 1)) * rnd.uniform(0.05, 0.5)
        new = _format_like(numeral, value * factor)
        if new == numeral or float(new.replace(",", "")) == value:
            step = 10 ** -(len(numeral.split(".", 1)[1]) if "." in numeral else 0)
            new = _format_like(numeral, value + step * max(1, round(value * 0.05 / step)))
        changed = answer[:m.start()] + new + answer[m.end():]
        if sorted(q.raw for q in extract_quantities(changed)) != base:  # the numeral was a figure
            out.append(changed)
    return out


def with_figure(answer: str, start: int, end: int) -> bool:
    """Does the clause of `answer` holding answer[start:end] state a figure (one a year can be tied
    to, autofill.checks.ties)? "In FY2021 it retired 300,000 offsets" does; "released in 2017" not."""
    keys = {" ".join(answer[max(0, start - 12):end].split()), " ".join(answer[start:end + 12].split())}
    return any(k in c and any(_anchor(q) for q in answer_figures(c)) for c in answer_clauses(answer) for k in keys)


def year_variants(answer: str, rnd: random.Random) -> list[tuple[str, bool]]:
    """(variant, whether the shifted year sits in a clause with a figure)."""
    base = sorted(y for y, _ in extract_years(answer))
    out = []
    for m in _YEARISH.finditer(answer):
        shift = rnd.choice((-3, -2, -1, 1, 2, 3))
        if m.group(3):
            new = f"FY{(int(m.group(3)) + shift) % 100:02d}"
        else:
            new = f"{m.group(1)}{int(m.group(2)) + shift}"
        changed = answer[:m.start()] + new + answer[m.end():]
        if sorted(y for y, _ in extract_years(changed)) != base:
            out.append((changed, with_figure(changed, m.start(), m.start() + len(new))))
    return out


def unit_variants(answer: str) -> list[str]:
    out = []
    for pattern, replacement in _UNITS:
        m = re.search(pattern, answer)
        if m:
            out.append(answer[:m.start()] + replacement + answer[m.end():])
    return out


def scope_variants(answer: str) -> list[str]:
    out = []
    named = scopes_in(answer)  # "Scope 1+2" names both: a swap must name a scope the answer did not
    for m in re.finditer(r"\b(Scope\s*)([123])\b", answer, re.IGNORECASE):
        spare = [n for n in (1, 2, 3) if n not in named]
        if spare:
            out.append(answer[:m.start()] + m.group(1) + str(spare[0]) + answer[m.end():])
    low = answer.lower()
    for old, new in _BASES:
        m = re.search(rf"\b{old}\b(?![\s-]*zero)", answer, re.IGNORECASE)
        if m and new not in low:
            out.append(answer[:m.start()] + new + answer[m.end():])
    return out


def _change(before: str, after: str, context: int = 60) -> str:
    """The perturbed span with some context: "... at or below [FY2017 -> FY2014] levels ..."."""
    i = 0
    while i < min(len(before), len(after)) and before[i] == after[i]:
        i += 1
    j = 0
    while j < min(len(before), len(after)) - i and before[-1 - j] == after[-1 - j]:
        j += 1
    return (f"...{before[max(0, i - context):i]}[{before[i:len(before) - j]} -> {after[i:len(after) - j]}]"
            f"{before[len(before) - j:len(before) - j + context]}...")


def evaluate(seed: int = 7, mode: str = "page") -> dict:
    rnd = random.Random(seed)
    gold = json.loads((DATA / "gold.json").read_text())
    pages = load_pages(parsed=mode == "parsed")
    ctx = CheckContext(periods=periods_of(pages))
    results: dict[str, list[tuple[Tier, list[str]]]] = defaultdict(list)
    alarms, misses = [], []

    def judge(kind: str, question: str, answer: str, cited: list[tuple[str, int]], evidence=None,
              count: bool = True) -> None:
        checks, tier = assess(row(question, answer, cited, pages, evidence if mode == "chunk" else None), ctx)
        failed = [c.reason for c in checks if not c.passed]
        results[kind].append((tier, failed))
        if not count:
            return
        if kind == "positive" and tier is not Tier.READY:
            alarms.append({"no": item["no"], "tier": tier.label, "checks": failed})
        elif kind != "positive" and tier is Tier.READY:
            misses.append({"no": item["no"], "kind": kind, "change": _change(a, answer)})

    for item in gold:
        cited = [(g["file"], int(g["page"])) for g in item["gold"]]
        ev = [g.get("evidence", "") for g in item["gold"]]
        q, a = item["question"], item["gold_answer"]
        judge("positive", q, a, cited, ev)
        for variant in figure_variants(a, rnd):
            judge("figure", q, variant, cited, ev)
        for variant, tied in year_variants(a, rnd):
            judge("year", q, variant, cited, ev, count=False)
            judge("year+figure" if tied else "year bare", q, variant, cited, ev)
        for variant in unit_variants(a):
            judge("unit", q, variant, cited, ev)
        for variant in scope_variants(a):
            judge("scope", q, variant, cited, ev)
        gold_pages = set(cited)
        moved = []
        for f, _ in dict.fromkeys(cited):
            choices = [(f, n) for n in range(1, len(pages[f]) + 1) if (f, n) not in gold_pages
                       and len(pages[f][n - 1].strip()) > 200]
            moved.append(rnd.choice(choices))
        judge("citation", q, a, moved, [""] * len(moved))

    table = {}
    for kind in ("positive", *KINDS[:2], "year+figure", "year bare", *KINDS[2:]):
        rows = results.get(kind, [])
        n = len(rows)
        flagged = sum(1 for t, _ in rows if t is not Tier.READY)
        hard = sum(1 for t, _ in rows if t is Tier.NEEDS_WORK)
        table[kind] = {"n": n, "flagged": flagged, "needs_work": hard,
                       "rate": round(flagged / n, 3) if n else None,
                       "needs_work_rate": round(hard / n, 3) if n else None}
    return {"mode": mode, "periods": ctx.periods, "table": table, "false_alarms": alarms, "misses": misses}


def combine(runs: list[dict]) -> dict:
    """Several seeds' results added up (the positives are the same in each: their alarms once)."""
    out = dict(runs[0])
    table = {}
    for kind in runs[0]["table"]:
        n = sum(r["table"][kind]["n"] for r in runs)
        flagged = sum(r["table"][kind]["flagged"] for r in runs)
        hard = sum(r["table"][kind]["needs_work"] for r in runs)
        table[kind] = {"n": n, "flagged": flagged, "needs_work": hard,
                       "rate": round(flagged / n, 3) if n else None,
                       "needs_work_rate": round(hard / n, 3) if n else None}
    out["table"] = table
    out["misses"] = [m for r in runs for m in r["misses"]]
    out["seeds"] = len(runs)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--seeds", type=int, default=1, help="run this many seeds from --seed on and add them up")
    parser.add_argument("--passages", choices=["page", "chunk", "parsed"], default="page",
                        help="cited passage = the whole gold page (PyMuPDF text), the ~1,000-character chunk "
                             "around the gold evidence on it (what autofill cites), or the whole page as "
                             "autofill's PDF parser reads it (tables as Markdown)")
    parser.add_argument("--misses", action="store_true", help="list the perturbed answers left Ready")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not (DATA / "gold.json").is_file():
        print(f"skipped: {DATA / 'gold.json'} not found")
        return
    runs = [evaluate(seed, args.passages) for seed in range(args.seed, args.seed + max(1, args.seeds))]
    out = combine(runs)
    if args.json:
        print(json.dumps(out, indent=1))
        return
    print(f"Cited passages: {out['mode']}; {out['seeds']} seed(s). Reporting periods detected: {out['periods']}")
    print(f"{'kind':<11} {'n':>4} {'flagged':>8} {'rate':>6} {'needs work':>11}")
    for kind, r in out["table"].items():
        label = "positives (false alarms)" if kind == "positive" else kind
        print(f"{kind:<11} {r['n']:>4} {r['flagged']:>8} {r['rate'] if r['rate'] is not None else '-':>6} "
              f"{r['needs_work']:>11}   {label}")
    for a in out["false_alarms"]:
        print(f"  false alarm, gold no. {a['no']} ({a['tier']}): {'; '.join(a['checks'])}")
    if args.misses:
        for m in out["misses"]:
            print(f"  missed {m['kind']}, gold no. {m['no']}: {m['change']}")


if __name__ == "__main__":
    main()
