"""How well questions nobody here wrote map to framework datapoints (issue 46): the development set
benchmarks/devsets/frameworks_external/gold.tsv (gold concepts assigned by hand) over question texts
read at run time from the shared data (report-analyst question sets, the BHP customer questionnaire,
EFRAG's VSME Digital Template) plus questions rephrased by hand from the standards' guidance.

Per part (seen: the rules were tuned on it; unseen: run once the rules were final) and per source:
top-1 / top-3 over concepts; per framework, top-1 / top-3 of the framework's requirements ranked by the
mapping against those naming a gold concept; and, for questions naming several datapoints ("+" in the
gold), how many get all of them among their mapped concepts. Skips when the shared data is absent.

    python benchmarks/frameworks_external.py [--part seen|unseen|all] [--errors] [--json OUT]

Measured (rules only, 194 questions: 129 seen, 65 unseen; before = the climate-only catalogue of 53
concepts, after = 96 concepts, 248 requirements):
    seen   top-1 35% -> 88%, top-3 38% -> 93%; all datapoints of multi-datapoint questions 3/7 -> 7/7
    unseen top-1 38% -> 80%, top-3 45% -> 91%; multi-datapoint 1/2 -> 2/2
    per framework (unseen, top-1 / top-3): ESRS 88/96, GRI 87/90, VSME 90/92, CDP 90/100, IFRS S2 85/96,
    TCFD 77/88 (before: ESRS 85/93 over 27 rows, GRI 78/78 over 9: the new concepts add rows).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

GOLD = ROOT / "benchmarks" / "devsets" / "frameworks_external" / "gold.tsv"
SHARED = Path("/work/shared")
QUESTIONSETS = SHARED / "questionsets" / "report-analyst"
BHP = SHARED / "datasets" / "bhp" / "questionnaire.xlsx"
VSME = SHARED / "vsme" / "VSME-Digital-Template-1.3.0.xlsx"
_CODE = re.compile(r"^\s*[BC]\d{1,2}\s*-\s*")


def unseen(source: str, key: str) -> bool:
    return hashlib.sha1(f"{source}:{key}".encode()).hexdigest()[0] in "01234"


def read_gold(path: Path = GOLD) -> list[dict]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        source, key, gold, *text = line.split("\t")
        groups = [] if gold == "-" else [tuple(g.split(",")) for g in gold.split("+")]
        rows.append({"source": source, "key": key, "groups": groups, "text": text[0] if text else "",
                     "part": "unseen" if unseen(source, key) else "seen"})
    return rows


def question_texts() -> dict[tuple[str, str], str]:
    import openpyxl
    import yaml

    texts = {}
    for f in sorted(QUESTIONSETS.glob("*_questions.yaml")):
        for q in yaml.safe_load(f.read_text(encoding="utf-8"))["questions"]:
            texts[("ra", str(q["id"]))] = " ".join(str(q["text"]).split())
    wb = openpyxl.load_workbook(BHP, read_only=True)
    for r in wb["Questionnaire"].iter_rows(values_only=True):
        if isinstance(r[0], int) and r[2]:
            texts[("bhp", str(r[0]))] = str(r[2])
    from autofill.forms.reader import read_form

    form = read_form(VSME, layout=False)
    for dp in form.datapoints:
        if dp.cells:
            texts.setdefault(("vsme", str(dp.cells[0])), _CODE.sub("", dp.label))
    return texts


def score(cat, rows, mappings) -> dict:
    from benchmarks.frameworks_mapping import framework_ranking

    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])

    def add(key, ok1, ok3):
        t = tally[key]
        t[0] += 1
        t[1] += ok1
        t[2] += ok3

    for row, m in zip(rows, mappings):
        pred, groups = m.concepts, row["groups"]
        if not groups:
            ok = not pred
            for k in ("all", f"source:{row['source']}", "no datapoint"):
                add(k, ok, ok)
            continue
        gold = {c for g in groups for c in g}
        ok1, ok3 = bool(pred[:1]) and pred[0] in gold, any(p in gold for p in pred[:3])
        add("all", ok1, ok3)
        add(f"source:{row['source']}", ok1, ok3)
        if len(groups) > 1:
            every = all(any(c in pred for c in g) for g in groups)
            add("multi: all datapoints", every, every)
        for fw in cat.frameworks:
            wanted = {r.id for g in gold for r in cat.by_concept(g) if r.framework == fw}
            if wanted:
                ranked = framework_ranking(cat, pred, fw)
                add(f"framework:{fw}", bool(ranked[:1]) and ranked[0] in wanted, any(r in wanted for r in ranked[:3]))
    return {k: tuple(v) for k, v in tally.items()}


def unsure_line(rows, maps) -> str:
    """How many questions the rules leave unsure (frameworks/model_map.unsure: what `run` with
    run.map_with_model asks a model about) and the rules' top-1 on them and on the rest."""
    from autofill.frameworks.coverage import SHOWN
    from autofill.frameworks.model_map import unsure

    def top1(pairs):
        ok = sum(1 for r, m in pairs if (m.concepts[:1] and m.concepts[0] in {c for g in r["groups"] for c in g})
                 or (not r["groups"] and not m.concepts))
        return f"{ok}/{len(pairs)}"

    weak = [(r, m) for r, m in zip(rows, maps) if unsure(m, SHOWN)]
    sure = [(r, m) for r, m in zip(rows, maps) if not unsure(m, SHOWN)]
    return (f"rules unsure (a model would be asked): {len(weak)} of {len(rows)}, rules top-1 on them {top1(weak)}; "
            f"on the rest {top1(sure)}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--part", choices=("seen", "unseen", "all"), default="seen")
    ap.add_argument("--errors", action="store_true")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    if not (QUESTIONSETS.is_dir() and BHP.exists() and VSME.exists()):
        print(f"skipped: the shared question data is not under {SHARED}")
        return 0
    from autofill.frameworks.catalogue import load_catalogue
    from autofill.frameworks.mapping import Mapper
    from benchmarks.frameworks_mapping import table

    cat, texts = load_catalogue(), question_texts()
    rows = read_gold()
    missing = [f"{r['source']}:{r['key']}" for r in rows if r["source"] != "guide" and (r["source"], r["key"]) not in texts]
    if missing:
        print(f"questions not found in the shared data: {missing}")
        return 1
    for r in rows:
        r["text"] = r["text"] or texts[(r["source"], r["key"])]
    mapper = Mapper(cat)
    parts = ("seen", "unseen") if args.part == "all" else (args.part,)
    out = {}
    for part in parts:
        sel = [r for r in rows if r["part"] == part]
        maps = mapper.map_many([r["text"] for r in sel])
        out[part] = score(cat, sel, maps)
        if args.errors:
            for r, m in zip(sel, maps):
                gold = {c for g in r["groups"] for c in g}
                if (m.concepts[:1] and m.concepts[0] in gold) or (not gold and not m.concepts):
                    if len(r["groups"]) < 2 or all(any(c in m.concepts for c in g) for g in r["groups"]):
                        continue
                print(f"[{part}] {r['source']}:{r['key']} gold={'+'.join(','.join(g) for g in r['groups']) or '-'}"
                      f" got={m.concepts[:5]}  {r['text'][:120]}")
        print(f"\n{part}: {len(sel)} questions, {len(cat.concepts)} concepts, {len(cat.requirements)} requirements")
        print(table({"rules": out[part]}))
        print(unsure_line(sel, maps))
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
