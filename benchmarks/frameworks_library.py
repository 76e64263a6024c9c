"""What the answer library serves across wordings, with and without matching by framework datapoint
(library/match.py: DATAPOINT_MATCH), on the framework development sets.

For each gold concept the first question of the set is the approved library entry; every other
question (each in its own run) is matched against all entries with the local MiniLM embedder, as
`RunLibrary.match` does. A served answer (strength at or above library.threshold, 0.8) is right when
the entry's concept is among the question's gold concepts, false otherwise; "across scopes" counts a
false one between two different GHG scope concepts (Scope 1 / 2 location / 2 market / 3 / financed /
total). Reuse without a model call (strength >= 0.975 and no contrast conflict) is counted alike.

    python benchmarks/frameworks_library.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

SCOPES = {"ghg.scope1", "ghg.scope2-location", "ghg.scope2-market", "ghg.scope3", "ghg.financed", "ghg.total"}


def run(rows, embedder, use_datapoints: bool, threshold=0.8, reuse=0.975, queries=None, show=False) -> dict:
    """`rows` give the entries (first single-gold question per concept) and, without `queries`, the
    questions (the rest); with `queries` (another set) all of those are asked."""
    from autofill.library.match import best_match, coefficients, prepare

    entries, questions = {}, []
    for asker, gold, q in rows:
        if len(gold) == 1 and gold[0] not in entries:
            entries[gold[0]] = q
        elif queries is None:
            questions.append((gold, q))
    questions += [(gold, q) for _, gold, q in queries or ()]
    ids = list(entries)
    prepared = [prepare(entries[c], use_datapoints) for c in ids]
    vectors = embedder.embed_documents([entries[c] for c in ids])
    qvecs = embedder.embed_documents([q for _, q in questions])
    coef = coefficients(embedder.name)
    out = {"questions": len(questions), "entries": len(ids), "served right": 0, "served wrong": 0,
           "wrong across scopes": 0, "reused right": 0, "reused wrong": 0, "no answer": 0}
    for (gold, q), qv in zip(questions, qvecs):
        s = best_match(prepare(q, use_datapoints), qv, prepared, vectors, coef=coef)
        if s is None or s.strength < threshold:
            out["no answer"] += 1
            continue
        concept = ids[s.index]
        right = concept in gold
        out["served right" if right else "served wrong"] += 1
        if show and not right:
            print(f"  [{'datapoints' if use_datapoints else 'wording'}] wrong ({s.strength:.2f}): {q!r} got the answer of {entries[concept]!r}")
        if not right and concept in SCOPES and set(gold) & SCOPES:
            out["wrong across scopes"] += 1
        if s.strength >= reuse and not (s.features.conflicts or s.features.one_sided):
            out["reused right" if right else "reused wrong"] += 1
    return out


def main() -> int:
    from autofill.providers.local import LocalEmbedder
    from frameworks_mapping import DEVSET, HELDOUT, read_devset

    embedder = LocalEmbedder()
    show = "--show" in sys.argv
    dev = [r for r in read_devset(DEVSET) if r[1]]
    held = [r for r in read_devset(HELDOUT) if r[1]]
    for name, rows, queries in (("dev (entries and questions from it)", dev, None),
                                ("heldout questions against dev entries", dev, held)):
        results = {mode: run(rows, embedder, mode == "with datapoints", queries=queries, show=show)
                   for mode in ("wording only", "with datapoints")}
        keys = list(next(iter(results.values())))
        print(f"\n{name}:")
        print("| | " + " | ".join(results) + " |")
        print("| --- | " + " | ".join("---" for _ in results) + " |")
        for k in keys:
            print(f"| {k} | " + " | ".join(str(r[k]) for r in results.values()) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
