"""Calibrate the answer library's match strength (autofill/library/match.py COEF).

Hand-labelled question pairs: rewordings of one question (label 1) and pairs that must not match
(label 0): near-duplicates that differ in one contrast (Scope 1 vs Scope 3, reference vs align with,
short- vs long-term, water vs energy) and unrelated questions on the same subject. None of them is a
BHP gold question, so benchmarks/library.py measures on questions the calibration never saw.

With them, the hand-written pairs of benchmarks/devsets/library/pairs.tsv (different questions on one
topic, rewordings); benchmarks/library_pairs.py measures precision and recall on those and on pairs of
wording we did not write.

A logistic regression on (cosine, lexical overlap, one-sided contrast terms) is fitted for each bundled
local embedder (their cosines live on different scales); the weight of a two-sided contrast conflict is fixed (a conflict means another
question by construction, and too few pairs carry one to fit it). An embedder whose free fit weighs the
cosine at 0 or below (multilingual-e5: its cosines sit in a narrow band) gets the default embedder's
cosine weight scaled to its cosines' spread, the rest fitted. Prints the coefficients to paste into
COEFS, and the accuracy and log loss at 0.8 with the current and the fitted ones.

    python benchmarks/library_calibration.py
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from autofill.library.match import COEF, COEFS, cosines, features, prepare, strength  # noqa: E402

SAME = [
    ("Does the company have a net zero target for its operational emissions?",
     "Has the organisation committed to reaching net zero operational emissions?"),
    ("What were total Scope 2 emissions last year?", "Report your Scope 2 GHG emissions for the latest financial year."),
    ("Is there a board committee responsible for sustainability?",
     "Which committee of the board oversees sustainability matters?"),
    ("Does the company disclose its water withdrawal?", "Is total water withdrawal reported?"),
    ("What share of electricity comes from renewable sources?",
     "Percentage of electricity consumption from renewables"),
    ("Has the company set a science-based emissions target?",
     "Does the company have an emissions reduction target approved as science-based?"),
    ("Does the company publish a human rights policy?", "Is a human rights policy publicly available?"),
    ("How many fatalities occurred at company sites during the year?",
     "Number of work-related fatalities in the reporting year"),
    ("Does the company conduct climate-related scenario analysis?",
     "Has scenario analysis of climate risks been carried out?"),
    ("Is senior management pay tied to ESG goals?",
     "Are executive incentives linked to environmental, social and governance targets?"),
    ("What is the company's total energy consumption?", "Total energy consumed across operations (GJ)"),
    ("Does the company have a supplier code of conduct?", "Do suppliers have to follow a code of conduct?"),
    ("Are greenhouse gas emissions verified by a third party?",
     "Is the GHG inventory externally verified by an independent party?"),
    ("Does the company use an internal price on carbon?", "Is an internal carbon price applied in investment decisions?"),
    ("What percentage of the board is female?", "Share of women on the board of directors"),
    ("Does the company report according to GRI Standards?", "Is the sustainability report prepared in accordance with the GRI Standards?"),
    ("How much waste was sent to landfill?", "Quantity of waste disposed of to landfill"),
    ("Has the company identified physical climate risks to its assets?",
     "Are physical risks from climate change to company assets assessed?"),
    ("Does the company engage with its suppliers on emissions reduction?",
     "Do you work with suppliers to cut their greenhouse gas emissions?"),
    ("Is there a policy on biodiversity and no deforestation?",
     "Does the company have a no-deforestation and biodiversity policy?"),
    ("What is the base year for the emissions target?", "Which baseline year does the emission reduction target use?"),
    ("Does the company hold shareholder votes on its climate plan?",
     "Is the climate transition plan put to a shareholder advisory vote?"),
    ("How much has the company invested in decarbonisation projects?",
     "Capital committed to decarbonisation initiatives"),
    ("Does the company purchase carbon offsets?", "Are carbon credits bought to offset emissions?"),
]
DIFFERENT = [
    # near-duplicates: one contrast apart
    ("Does the company have a net zero target for Scope 1 emissions?",
     "Does the company have a net zero target for Scope 3 emissions?"),
    ("What were total Scope 1 emissions last year?", "What were total Scope 3 emissions last year?"),
    ("Do the company's climate targets reference the Paris Agreement?",
     "Are the company's climate targets aligned with the Paris Agreement?"),
    ("Does the transition plan reference external climate targets?",
     "Is the transition plan aligned with external climate targets?"),
    ("What is the company's short-term emissions reduction target?",
     "What is the company's long-term emissions reduction target?"),
    ("Does the company set absolute emissions reduction targets?",
     "Does the company set emissions intensity reduction targets?"),
    ("Does the company disclose its water consumption?", "Does the company disclose its energy consumption?"),
    ("How much waste was generated in FY2023?", "How much waste was generated in FY2020?"),
    ("Does the company report upstream Scope 3 emissions?", "Does the company report downstream Scope 3 emissions?"),
    ("Has the company's emissions target been validated by SBTi?", "Has the company set an emissions target?"),
    ("What was the total injury frequency rate?", "What was the gender pay gap?"),
    ("What percentage of electricity was renewable in 2022?", "What percentage of electricity was renewable in 2030?"),
    # same subject, another question
    ("Does the company have a net zero target?", "What were the company's Scope 1 emissions?"),
    ("Is executive remuneration linked to climate performance?", "Does the company have a climate policy?"),
    ("Does the company use carbon offsets?", "Does the company apply an internal carbon price?"),
    ("Which climate scenarios does the company use?", "Has the company assessed physical climate risks?"),
    ("Does the company report in line with TCFD?", "Does the company have a supplier code of conduct?"),
    ("What is the company's water withdrawal?", "What is the company's total energy consumption?"),
    ("Does the board oversee climate risk?", "Does the company publish a human rights policy?"),
    ("How much capital is committed to decarbonisation?", "How many fatalities occurred during the year?"),
    ("Are the company's targets assessed by Climate Action 100+?",
     "Does the company engage with industry associations on climate policy?"),
    ("What is the company's Scope 3 emissions inventory?", "What are the company's Scope 3 reduction targets?"),
    ("Does the company engage with customers to reduce emissions?", "Does the company have a net zero target for Scope 3?"),
    ("Is the sustainability report externally assured?", "Does the report follow the GRI Standards?"),
]


def labelled_pairs() -> list[tuple[str, str, int]]:
    """SAME and DIFFERENT, and the hand-written pairs of benchmarks/devsets/library/pairs.tsv (different
    questions on one topic, rewordings; benchmarks/library_pairs.py measures on others as well)."""
    from library_pairs import hand_pairs

    return ([(a, b, 1) for a, b in SAME] + [(a, b, 0) for a, b in DIFFERENT]
            + [(a, b, y) for _, a, b, y in hand_pairs()])


def dataset(embedder) -> tuple[list, list[int]]:
    pairs = labelled_pairs()
    vecs = embedder.embed_documents([t for a, b, _ in pairs for t in (a, b)])
    feats, labels = [], []
    for i, (a, b, y) in enumerate(pairs):
        cos = cosines(vecs[2 * i], [vecs[2 * i + 1]])[0]
        feats.append(features(cos, prepare(a), prepare(b)))
        labels.append(y)
    return feats, labels


def fit(feats, labels, conflict: float, l2: float = 0.01, cosine: float | None = None) -> dict[str, float]:
    """Logistic regression by Newton's method (IRLS) with a little L2 on the weights; `cosine` fixes the
    cosine's weight (the others are fitted)."""
    import numpy as np

    x = np.array([[1.0, f.lexical, len(f.one_sided)] + ([] if cosine is not None else [f.cosine]) for f in feats])
    off = np.array([conflict * len(f.conflicts) + (cosine or 0.0) * f.cosine for f in feats])
    y = np.array(labels, dtype=float)
    n = x.shape[1]
    w = np.zeros(n)
    reg = l2 * np.diag([0.0] + [1.0] * (n - 1))
    for _ in range(200):
        p = 1 / (1 + np.exp(-(x @ w + off)))
        grad = x.T @ (p - y) + reg @ w
        hess = x.T @ (x * (p * (1 - p))[:, None]) + reg + 1e-9 * np.eye(n)
        step = np.clip(np.linalg.solve(hess, grad), -2, 2)  # damped: a separable set diverges otherwise
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return {"bias": round(float(w[0]), 2), "cosine": round(float(cosine if cosine is not None else w[3]), 2),
            "lexical": round(float(w[1]), 2), "conflict": conflict, "one_sided": round(float(w[2]), 2)}


def spread_weight(feats, reference: dict[str, float], reference_feats) -> float:
    """A cosine weight for an embedder whose free fit gives the cosine a weight of 0 or less (its cosines
    sit in a narrow band, multilingual-e5's near 0.8-1.0, and on these pairs tell no more than the
    words): the reference embedder's weight, scaled so that the cosines' spread weighs the same."""
    import numpy as np

    return round(reference["cosine"] * float(np.std([f.cosine for f in reference_feats])
                                             / max(1e-6, np.std([f.cosine for f in feats]))), 2)


def report(name: str, feats, labels, coef, threshold: float) -> None:
    probs = [strength(f, coef) for f in feats]
    acc = sum((p >= threshold) == bool(y) for p, y in zip(probs, labels)) / len(labels)
    loss = -sum(math.log(max(1e-9, p if y else 1 - p)) for p, y in zip(probs, labels)) / len(labels)
    worst_same = min(p for p, y in zip(probs, labels) if y)
    worst_diff = max(p for p, y in zip(probs, labels) if not y)
    for (a, b, _), p, y in zip(labelled_pairs(), probs, labels):
        if (p >= threshold) != bool(y):
            print(f"    {name} wrong: {p:.2f} {'same' if y else 'different'}: {a[:50]} | {b[:50]}")
    print(f"{name}: accuracy at {threshold} {acc:.3f}, log loss {loss:.3f}, lowest match {worst_same:.2f}, "
          f"highest non-match {worst_diff:.2f}  {coef}")


def main() -> None:
    from autofill.providers.local import MODELS, LocalEmbedder

    from autofill.providers.local import DEFAULT_MODEL

    reference = None
    for model in [DEFAULT_MODEL] + [m for m in MODELS if m != DEFAULT_MODEL]:
        embedder = LocalEmbedder(model)
        current = COEFS.get(embedder.name, COEF)
        print(f"== {embedder.name}")
        feats, labels = dataset(embedder)
        reference = reference or (current, feats)
        for (a, b, _), f in zip(labelled_pairs(), feats):
            print(f"  {f.cosine:.2f} {f.lexical:.2f} {','.join(f.conflicts) or '-':<12} {','.join(f.one_sided) or '-':<10} "
                  f"{a[:45]} | {b[:45]}")
        report("current", feats, labels, current, 0.8)
        fitted = fit(feats, labels, conflict=current["conflict"])
        if fitted["cosine"] <= 0:
            fitted = fit(feats, labels, conflict=current["conflict"], cosine=spread_weight(feats, *reference))
        report("fitted ", feats, labels, fitted, 0.8)
        for coef, name in ((current, "current"), (fitted, "fitted")):
            probs = [strength(f, coef) for f in feats]
            sweep = []
            for t in (0.5, 0.6, 0.7, 0.8, 0.9):
                hits = sum(p >= t for p, y in zip(probs, labels) if y)
                false = sum(p >= t for p, y in zip(probs, labels) if not y)
                sweep.append(f"{t}: {hits}/{sum(labels)} matches, {false}/{len(labels) - sum(labels)} false")
            print(f"{name} threshold sweep: " + "; ".join(sweep))


if __name__ == "__main__":
    main()
