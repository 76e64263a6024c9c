"""All development sets at once: every configuration's table per set (with the plain-fusion bar), paired
Wilcoxon tests against a baseline, the rule a change must pass (no set loses significantly on any
metric), and leave-one-set-out figures (the configuration chosen on the other sets, measured on the
set left out), from the per-question files `benchmarks/retrieval_dev.py --json` writes.

    python benchmarks/retrieval_sets.py SET=FILE.json [SET=FILE.json ...] [--baseline default] [--alpha 0.05]
                                        [--select mrr]

A configuration is kept only where no set shows a significant loss (p < alpha with more losses than wins)
on hit@6, recall@6, MRR or recall@30 against the baseline. Leave-one-set-out: for each set, the kept
configuration with the best mean `--select` metric over the other sets (ties: the baseline), then its
figures on the set left out, beside the baseline's and the bar's there. Pooled: every configuration's
means and paired tests against the baseline over all sets' questions at once."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from statistics import mean

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from retrieval_dev import METRICS, table  # noqa: E402

BAR = "plain-fusion"


def load(specs: list[str]) -> dict[str, dict[str, list[dict]]]:
    sets: dict[str, dict[str, list[dict]]] = {}
    for spec in specs:
        name, _, path = spec.partition("=")
        sets[name] = json.loads(Path(path).read_text())
    return sets


def aligned(rows: list[dict], order: list[tuple[str, str]]) -> list[dict] | None:
    by_key = {(r["company"], str(r["number"])): r for r in rows}
    return [by_key[k] for k in order] if all(k in by_key for k in order) else None


def significant_losses(sets: dict, config: str, baseline: str, alpha: float) -> list[str]:
    from autofill.evaluate.stats import paired_test

    out = []
    for set_name, results in sets.items():
        if config not in results or baseline not in results:
            out.append(f"{set_name}: not measured")
            continue
        order = sorted({(r["company"], str(r["number"])) for r in results[baseline]})
        a, b = aligned(results[baseline], order), aligned(results[config], order)
        if a is None or b is None:
            out.append(f"{set_name}: questions differ")
            continue
        for label, key in METRICS:
            t = paired_test([r[key] for r in a], [r[key] for r in b])
            if t.p_value is not None and t.p_value < alpha and t.losses > t.wins:
                out.append(f"{set_name} {label} p={t.p_value:.3g} ({t.wins}+/{t.losses}-)")
    return out


def pooled(sets: dict, config: str, baseline: str) -> str:
    """Means and paired Wilcoxon tests of `config` against `baseline` over every set's questions at once."""
    from autofill.evaluate.stats import paired_test

    a, b = [], []
    for results in sets.values():
        if config not in results or baseline not in results:
            continue
        order = sorted({(r["company"], str(r["number"])) for r in results[baseline]})
        x, y = aligned(results[baseline], order), aligned(results[config], order)
        if x is not None and y is not None:
            a, b = a + x, b + y
    if not b:  # not measured on these sets (the plain-fusion bar of files written without it)
        return f"| {config} (0) | " + " | ".join("-" for _ in METRICS) + " |"
    cells = []
    for _, key in METRICS:
        t = paired_test([r[key] for r in a], [r[key] for r in b])
        p = "n/a" if t.p_value is None else f"{t.p_value:.3g}"
        cells.append(f"{mean(r[key] for r in b):.3f} (p {p}, {t.wins}+/{t.losses}-)")
    return f"| {config} ({len(b)}) | " + " | ".join(cells) + " |"


def means(rows: list[dict]) -> dict[str, float]:
    return {key: mean(r[key] for r in rows) for _, key in METRICS}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sets", nargs="+", help="NAME=per-question JSON from retrieval_dev.py --json")
    ap.add_argument("--baseline", default="default")
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--select", default="mrr", choices=[key for _, key in METRICS])
    args = ap.parse_args()
    sets = load(args.sets)
    for name, results in sets.items():
        n = len(results.get(args.baseline, []))
        print(f"\n### {name} ({n} questions)\n")
        print(table(results, args.baseline))
    configs = [c for c in dict.fromkeys(c for r in sets.values() for c in r) if c not in (args.baseline, BAR)]
    print(f"\n### Pooled over every set's questions, against {args.baseline}\n")
    print("| configuration (questions) | " + " | ".join(label for label, _ in METRICS) + " |")
    print("|---|" + "---|" * len(METRICS))
    for config in [args.baseline, *configs, BAR]:
        print(pooled(sets, config, args.baseline))
    print("\n### The rule: no set loses significantly against", args.baseline)
    kept = []
    for config in configs:
        losses = significant_losses(sets, config, args.baseline, args.alpha)
        print(f"- {config}: " + ("kept" if not losses else "dropped: " + "; ".join(losses)))
        if not losses:
            kept.append(config)
    print(f"\n### Leave one set out (chosen on the other sets by mean {args.select} over their questions)\n")
    head = " / ".join(label for label, _ in METRICS)
    print(f"| set left out | chosen | chosen ({head}) | {args.baseline} | {BAR} |")
    print("|---|---|---|---|---|")
    for held in sets:
        others = [s for s in sets if s != held]
        best, best_score = args.baseline, None
        for config in [args.baseline, *kept]:
            rows = [r for s in others for r in sets[s].get(config, [])]
            if not rows or any(config not in sets[s] for s in others):
                continue
            score = means(rows)[args.select]
            if best_score is None or score > best_score + 1e-12:
                best, best_score = config, score
        cells = []
        for config in (best, args.baseline, BAR):
            rows = sets[held].get(config)
            cells.append(" / ".join(f"{v:.2f}" for v in means(rows).values()) if rows else "-")
        print(f"| {held} | {best} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
