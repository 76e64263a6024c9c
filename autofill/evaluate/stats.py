"""Statistics for comparing configurations on the same questions.

Per-question metrics are bounded, skewed and often tied (many 0s and 1s), so they are not normal: two
configurations are compared with the paired Wilcoxon signed-rank test over the questions both scored,
and proportions (hit rate, yes/no accuracy) get 95% Wilson score intervals, which stay inside [0, 1]
and behave with few questions or rates near 0 or 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Interval:
    low: float
    high: float


@dataclass(frozen=True)
class Summary:
    n: int
    mean: float | None
    ci: Interval | None  # Wilson for 0/1 metrics, t interval otherwise; None below 2 values


@dataclass(frozen=True)
class PairedTest:
    n: int  # questions both configurations scored
    mean_a: float | None
    mean_b: float | None
    mean_diff: float | None  # mean of (b - a)
    wins: int  # questions where b > a
    losses: int  # questions where b < a
    ties: int
    statistic: float | None
    p_value: float | None
    note: str = ""


def wilson_interval(successes: float, n: int, z: float = Z95) -> Interval | None:
    """Wilson score interval for a proportion successes / n; None when n is 0."""
    if n <= 0:
        return None
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return Interval(max(0.0, centre - half), min(1.0, centre + half))


def mean_interval(values: Sequence[float], confidence: float = 0.95) -> Interval | None:
    """Student t interval for a mean; None for fewer than 2 values."""
    n = len(values)
    if n < 2:
        return None
    from scipy import stats as sps

    m = sum(values) / n
    sd = math.sqrt(sum((v - m) ** 2 for v in values) / (n - 1))
    half = float(sps.t.ppf(0.5 + confidence / 2, n - 1)) * sd / math.sqrt(n)
    return Interval(m - half, m + half)


def is_binary(values: Sequence[float]) -> bool:
    return all(v in (0, 1) for v in values)


def summarise(values: Sequence[float | None], proportion: bool | None = None) -> Summary:
    """Mean of the non-missing values with a 95% interval: Wilson for a proportion (a 0/1 metric such
    as hit@k), a Student t interval clipped to [0, 1] otherwise. `proportion` None: decided by whether
    every value is 0 or 1."""
    vals = [float(v) for v in values if v is not None]
    if not vals:
        return Summary(0, None, None)
    mean = sum(vals) / len(vals)
    if proportion is None:
        proportion = is_binary(vals)
    if proportion:
        return Summary(len(vals), mean, wilson_interval(sum(vals), len(vals)))
    ci = mean_interval(vals)
    if ci is not None:
        ci = Interval(max(0.0, ci.low), min(1.0, ci.high))  # every metric here lies in [0, 1]
    return Summary(len(vals), mean, ci)


def paired_test(a: Sequence[float | None], b: Sequence[float | None]) -> PairedTest:
    """Wilcoxon signed-rank test of b against a over the positions where both have a value.

    No pairs: p is None. All differences zero: p = 1.0 (nothing differs). Otherwise the test runs on
    the non-zero differences (Wilcoxon's own treatment of zeros) with the exact distribution when
    there are no ties among them; with fewer than 6 non-zero differences even a clean sweep cannot
    reach p < 0.05 (the smallest two-sided p is 2 / 2^n), which the note says."""
    if len(a) != len(b):
        raise ValueError("paired_test needs two sequences of the same length")
    pairs = [(float(x), float(y)) for x, y in zip(a, b) if x is not None and y is not None]
    n = len(pairs)
    if not n:
        return PairedTest(0, None, None, None, 0, 0, 0, None, None, "no question scored by both")
    diffs = [y - x for x, y in pairs]
    wins = sum(1 for d in diffs if d > 1e-12)
    losses = sum(1 for d in diffs if d < -1e-12)
    ties = n - wins - losses
    mean_a = sum(x for x, _ in pairs) / n
    mean_b = sum(y for _, y in pairs) / n
    mean_diff = sum(diffs) / n
    nonzero = [d for d in diffs if abs(d) > 1e-12]
    if not nonzero:
        return PairedTest(n, mean_a, mean_b, mean_diff, wins, losses, ties, 0.0, 1.0,
                          "all differences are zero")
    from scipy import stats as sps

    result = sps.wilcoxon(nonzero, zero_method="wilcox", alternative="two-sided")
    note = ""
    if len(nonzero) < 6:
        n_diff = len(nonzero)
        note = (f"only {n_diff} question{'s' if n_diff > 1 else ''} differ{'' if n_diff > 1 else 's'}; "
                f"smallest attainable p is {min(1.0, 2 / 2 ** n_diff):.3g}")
    return PairedTest(n, mean_a, mean_b, mean_diff, wins, losses, ties, float(result.statistic),
                      float(result.pvalue), note)
