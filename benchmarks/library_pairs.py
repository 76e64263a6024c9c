"""Does the answer library offer an approved answer only for the same question? Precision and recall of
the match (library/match.py, as `RunLibrary.match` scores: strength at or above `library.threshold` is
offered) on labelled question pairs, per bundled local embedder.

Pairs, three sources:
- hand: benchmarks/devsets/library/pairs.tsv, written for autofill: different questions on one topic
  (adaptation definitions vs business model, Scope 1 vs 2, policy vs target, location- vs market-based,
  target vs actual, ...) and rewordings of one question;
- frameworks: the framework development sets (benchmarks/devsets/frameworks/*.tsv, written for autofill,
  not for this): two questions with the same single gold concept are the same question, two whose gold
  concepts differ within one family (ghg.*, target.*, ...) are different questions on one topic;
- bhp: the 15 BHP gold questions (/work/shared/datasets/bhp, read at run time) against the rewordings
  of benchmarks/library.py: its own the same, the others' and the unrelated questions different;
- questionsets: the report-analyst question sets in /work/shared/questionsets (wording we did not write,
  read here at run time, never copied): two questions of one set are different questions; SAME_IDS
  (the same question in two sets) and REWORDED (our own rewording of a set's question) are the same.

A pair is offered when its strength is at least the threshold. precision = same pairs offered / pairs
offered; recall = same pairs offered / same pairs; "false offers" lists the different questions offered.

    python benchmarks/library_pairs.py [--threshold 0.8] [--model bge-small-en-v1.5] [--show 15]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

HAND = ROOT / "benchmarks" / "devsets" / "library" / "pairs.tsv"
FRAMEWORKS = [ROOT / "benchmarks" / "devsets" / "frameworks" / n for n in ("questions.tsv", "heldout.tsv")]
QUESTIONSETS = [Path("/work/shared/questionsets/report-analyst"), ROOT.parent / "shared" / "questionsets" / "report-analyst"]

# The same question in two report-analyst sets (by id; the texts are read at run time).
SAME_IDS = [("ev_2", "kilimanjaro_4"), ("ev_4", "kilimanjaro_2"), ("ev_5", "kilimanjaro_3"), ("ev_6", "kilimanjaro_1"),
            ("ev_11", "kilimanjaro_14"), ("ev_13", "kilimanjaro_15"), ("ev_19", "kilimanjaro_9"),
            ("ev_20", "kilimanjaro_10"), ("ev_21", "kilimanjaro_11"), ("ev_23", "kilimanjaro_13")]
# Our rewordings of report-analyst questions (by id): the same question in other words.
REWORDED = {
    "tcfd_1": "Describe the board's oversight of climate-related risks and opportunities.",
    "tcfd_2": "Describe the role management plays in assessing and managing climate-related risks and opportunities.",
    "tcfd_3": "Which climate-related risks and opportunities has the company identified over the short, medium and long term?",
    "tcfd_4": "Describe how climate-related risks and opportunities affect the company's business, strategy and financial planning.",
    "tcfd_5": "Describe the resilience of the company's strategy under different climate scenarios, including a 2°C or lower one.",
    "tcfd_6": "Describe the company's processes for identifying and assessing climate-related risks.",
    "tcfd_7": "Describe the company's processes for managing climate-related risks.",
    "tcfd_8": "Describe how identifying, assessing and managing climate-related risks are integrated into the company's overall risk management.",
    "tcfd_9": "Which metrics does the company use to assess climate-related risks and opportunities in line with its strategy?",
    "tcfd_10": "Does the company disclose Scope 1, Scope 2 and, where appropriate, Scope 3 GHG emissions and their related risks?",
    "tcfd_11": "Describe the targets the company uses to manage climate-related risks and opportunities and its performance against them.",
    "ev_19": "Is the company certified to the ISO 14001 environmental management standard?",
    "ev_21": "Is the company certified to ISO 50001 for energy management?",
    "ev_23": "Has the company committed to the Science Based Targets initiative?",
    "ev_24": "Scope 1 CO2 emissions the company reported for 2022",
    "ev_29": "Which Scope 2 CO2 emissions figure did the company report for 2023?",
    "ev_35": "Total CO2 emissions the company reported for 2024",
    "ev_13": "Which actions does the company take for occupational health and safety?",
}


def hand_pairs() -> list[tuple[str, str, str, int]]:
    out = []
    for line in HAND.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            label, kind, a, b = line.split("\t")
            out.append((f"hand:{kind}", a, b, int(label == "same")))
    return out


def framework_pairs() -> list[tuple[str, str, str, int]]:
    rows = []
    for path in FRAMEWORKS:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.startswith("#"):
                asker, gold, q = line.split("\t")
                if gold != "-":
                    rows.append((set(gold.split(",")), q))
    out = []
    for i, (ga, a) in enumerate(rows):
        for gb, b in rows[i + 1:]:
            if a == b:
                continue
            if len(ga) == 1 and ga == gb:
                out.append(("frameworks", a, b, 1))
            elif not ga & gb and {g.split(".")[0] for g in ga} & {g.split(".")[0] for g in gb}:
                out.append(("frameworks", a, b, 0))
    return out


def questionset_pairs() -> list[tuple[str, str, str, int]]:
    import yaml

    folder = next((p for p in QUESTIONSETS if p.is_dir()), None)
    if folder is None:
        print("(no /work/shared/questionsets: the report-analyst pairs are left out)")
        return []
    sets = {}
    for path in sorted(folder.glob("*.yaml")):
        sets[path.stem] = {q["id"]: " ".join(str(q["text"]).split())
                           for q in yaml.safe_load(path.read_text(encoding="utf-8"))["questions"]}
    text = {i: t for qs in sets.values() for i, t in qs.items()}
    out = []
    for qs in sets.values():
        ids = list(qs)
        out += [("questionsets", qs[a], qs[b], 0) for n, a in enumerate(ids) for b in ids[n + 1:]]
    out += [("questionsets", text[a], text[b], 1) for a, b in SAME_IDS]
    out += [("questionsets", text[i], t, 1) for i, t in REWORDED.items()]
    return out


def bhp_pairs() -> list[tuple[str, str, str, int]]:
    """The BHP gold questions (read at run time) against benchmarks/library.py's rewordings of them: each
    with its own rewording the same, with the other rewordings and the unrelated questions different."""
    import json

    from library import PARAPHRASES, UNRELATED, dataset

    folder = dataset()
    if folder is None:
        print("(no BHP dataset: its pairs are left out)")
        return []
    gold = [g["question"] for g in json.loads((folder / "gold.json").read_text(encoding="utf-8"))]
    out = []
    for i, g in enumerate(gold):
        out += [("bhp", g, p, int(i == j)) for j, p in enumerate(PARAPHRASES)]
        out += [("bhp", g, u, 0) for u in UNRELATED]
    return out


def score(pairs, embedder) -> list[float]:
    from autofill.library.match import coefficients, cosines, features, prepare, same_question, strength

    texts = sorted({t for _, a, b, _ in pairs for t in (a, b)})
    vectors = dict(zip(texts, embedder.embed_documents(texts)))
    prepared = {t: prepare(t) for t in texts}
    coef = coefficients(embedder.name)
    out = []
    for _, a, b, _ in pairs:
        f = features(cosines(vectors[a], [vectors[b]])[0], prepared[a], prepared[b])
        out.append(1.0 if same_question(a, b) else strength(f, coef))
    return out


def summary(name: str, labels: list[int], strengths: list[float], threshold: float) -> str:
    offered = [y for y, s in zip(labels, strengths) if s >= threshold]
    same = sum(labels)
    tp, fp = sum(offered), len(offered) - sum(offered)
    precision = tp / len(offered) if offered else 1.0
    recall = tp / same if same else 1.0
    return (f"  {name:<13} precision {precision:.3f} recall {recall:.3f}  ({tp}/{same} same offered, "
            f"{fp}/{len(labels) - same} different offered)")


def main() -> None:
    from autofill.providers.local import MODELS, LocalEmbedder

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threshold", type=float, default=0.8)
    ap.add_argument("--model", action="append", help="a bundled local model (default: each)")
    ap.add_argument("--show", type=int, default=15, help="false offers and misses listed per model")
    args = ap.parse_args()
    pairs = hand_pairs() + framework_pairs() + questionset_pairs() + bhp_pairs()
    for model in args.model or list(MODELS):
        embedder = LocalEmbedder(model)
        strengths = score(pairs, embedder)
        print(f"== {embedder.name} at threshold {args.threshold}: {len(pairs)} pairs")
        for source in ("hand", "frameworks", "questionsets", "bhp", "all"):
            idx = [i for i, p in enumerate(pairs) if source == "all" or p[0].split(":")[0] == source]
            if idx:
                print(summary(source, [pairs[i][3] for i in idx], [strengths[i] for i in idx], args.threshold))
        wrong = sorted(((s, p) for s, p in zip(strengths, pairs) if p[3] == 0 and s >= args.threshold),
                       key=lambda x: -x[0])
        for s, (src, a, b, _) in wrong[: args.show]:
            print(f"    offered {s:.2f} {src}: {a[:70]} | {b[:70]}")
        missed = sorted(((s, p) for s, p in zip(strengths, pairs) if p[3] == 1 and s < args.threshold),
                        key=lambda x: x[0])
        for s, (src, a, b, _) in missed[: args.show]:
            print(f"    missed  {s:.2f} {src}: {a[:70]} | {b[:70]}")


if __name__ == "__main__":
    main()
