"""How well questions map to framework datapoints (autofill/frameworks), on the development set
benchmarks/devsets/frameworks/questions.tsv (questions in many wordings with gold concepts).

Top-1 / top-3 over concepts, and per framework: the framework's requirements ranked by the mapping
(each mapped concept's most specific requirement) against the requirements that ask for a gold concept.
A row whose gold is "-" is right when nothing is mapped. Modes: rules only; rules + the local embedder;
quoted rows apart. Also false reuse in the answer library (benchmarks/frameworks_library.py).

    python benchmarks/frameworks_mapping.py [--embedder] [--errors] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DEVSETS = ROOT / "benchmarks" / "devsets" / "frameworks"
DEVSET = DEVSETS / "questions.tsv"  # the rules were written against it
HELDOUT = DEVSETS / "heldout.tsv"  # written after, never used to change the rules


def read_devset(path: Path = DEVSET) -> list[tuple[str, tuple[str, ...], str]]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        asker, gold, question = line.split("\t")
        rows.append((asker, () if gold == "-" else tuple(gold.split(",")), question))
    return rows


def framework_ranking(cat, concepts: tuple[str, ...], framework: str) -> list[str]:
    from autofill.frameworks.mapping import specific_requirements

    out: list[str] = []
    for c in concepts:
        for rid in specific_requirements(cat, c):
            if cat.requirements[rid].framework == framework and rid not in out:
                out.append(rid)
    return out


def score(cat, rows, mappings) -> dict:
    """{"all": (n, top1, top3), "<framework>": ..., "<asker>": ...}"""
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])

    def add(key, ok1, ok3):
        t = tally[key]
        t[0] += 1
        t[1] += ok1
        t[2] += ok3

    for (asker, gold, _), m in zip(rows, mappings):
        pred = m.concepts
        if not gold:
            ok = not pred
            add("all", ok, ok)
            add(f"asker:{asker}", ok, ok)
            add("no datapoint", ok, ok)
            continue
        ok1, ok3 = bool(pred[:1]) and pred[0] in gold, any(p in gold for p in pred[:3])
        add("all", ok1, ok3)
        add(f"asker:{asker}", ok1, ok3)
        for fw in cat.frameworks:
            wanted = {r.id for g in gold for r in cat.by_concept(g) if r.framework == fw}
            if not wanted:
                continue
            ranked = framework_ranking(cat, pred, fw)
            add(f"framework:{fw}", bool(ranked[:1]) and ranked[0] in wanted, any(r in wanted for r in ranked[:3]))
    return {k: tuple(v) for k, v in tally.items()}


def table(results: dict[str, dict]) -> str:
    modes = list(results)
    keys = sorted({k for r in results.values() for k in r}, key=lambda k: (k != "all", k))
    lines = ["| slice | n | " + " | ".join(f"{m} top-1 | {m} top-3" for m in modes) + " |",
             "| --- | --- | " + " | ".join("--- | ---" for _ in modes) + " |"]
    for k in keys:
        n = next(r[k][0] for r in results.values() if k in r)
        cells = []
        for m in modes:
            v = results[m].get(k)
            cells += [f"{v[1] / v[0]:.0%}", f"{v[2] / v[0]:.0%}"] if v else ["", ""]
        lines.append(f"| {k} | {n} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--embedder", action="store_true", help="also measure rules + the local MiniLM embedder")
    ap.add_argument("--errors", action="store_true", help="list the rows whose top-1 is wrong")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    from autofill.frameworks.catalogue import load_catalogue
    from autofill.frameworks.mapping import Mapper

    cat = load_catalogue()
    mappers = {"rules": Mapper(cat)}
    everything = {}
    if args.embedder:
        from autofill.providers.local import LocalEmbedder

        mappers["rules+embedder"] = Mapper(cat, LocalEmbedder())
    for set_name, path in (("dev", DEVSET), ("heldout", HELDOUT)):
        rows = read_devset(path)
        results = {}
        for mode, mapper in mappers.items():
            maps = mapper.map_many([q for _, _, q in rows])
            results[mode] = score(cat, rows, maps)
            if args.errors:
                for (asker, gold, q), m in zip(rows, maps):
                    pred = m.concepts
                    if (pred[:1] and pred[0] in gold) or (not gold and not pred):
                        continue
                    print(f"[{set_name} {mode}] {asker:7} gold={','.join(gold) or '-'} got={pred[:3]}  {q}")
        print(f"\n{set_name}: {len(rows)} questions, {len(cat.concepts)} concepts, {len(cat.requirements)} requirements")
        print(table(results))
        everything[set_name] = results
    if args.json:
        args.json.write_text(json.dumps(everything, indent=1))
    return 0

if __name__ == "__main__":
    raise SystemExit(main())
