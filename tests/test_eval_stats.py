"""Wilson intervals, t intervals and the paired Wilcoxon test, against hand figures and scipy."""

from __future__ import annotations

import math

import pytest

from autofill.evaluate.stats import mean_interval, paired_test, summarise, wilson_interval


def test_wilson_interval_by_hand():
    # 8 of 10, z = 1.96: centre (0.8 + 0.19208) / 1.38416, half 1.96 * sqrt(0.016 + 0.0096040) / 1.38416
    z = 1.959963984540054
    p, n = 0.8, 10
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    ci = wilson_interval(8, 10)
    assert ci.low == pytest.approx(centre - half) and ci.high == pytest.approx(centre + half)
    assert ci.low == pytest.approx(0.4902, abs=1e-4) and ci.high == pytest.approx(0.9433, abs=1e-4)


def test_wilson_interval_edges():
    assert wilson_interval(0, 0) is None
    zero = wilson_interval(0, 5)
    assert zero.low == 0.0 and 0 < zero.high < 0.5
    full = wilson_interval(5, 5)
    assert full.high == 1.0 and 0.5 < full.low < 1.0


def test_summarise_picks_wilson_for_rates_and_t_for_means():
    rate = summarise([1, 0, 1, 1, None])
    assert rate.n == 4 and rate.mean == 0.75
    assert rate.ci == wilson_interval(3, 4)
    mean = summarise([0.2, 0.4, 0.6])
    assert mean.mean == pytest.approx(0.4)
    # t(0.975, 2) = 4.3027; sd = 0.2; half = 4.3027 * 0.2 / sqrt(3)
    assert mean.ci.high - 0.4 == pytest.approx(4.302652729911275 * 0.2 / math.sqrt(3))
    assert mean_interval([0.5]) is None
    empty = summarise([None, None])
    assert (empty.n, empty.mean, empty.ci) == (0, None, None)


def test_paired_test_matches_scipy_and_counts_wins():
    from scipy.stats import wilcoxon

    a = [0.1, 0.5, 0.2, 0.9, 0.3, 0.4, 0.0, 0.6]
    b = [0.3, 0.9, 0.25, 1.0, 0.6, 0.35, 0.7, 0.6]  # last pair tied
    t = paired_test(a, b)
    assert (t.n, t.wins, t.losses, t.ties) == (8, 6, 1, 1)
    assert t.mean_diff == pytest.approx(sum(y - x for x, y in zip(a, b)) / 8)
    expected = wilcoxon([y - x for x, y in zip(a, b) if y != x])
    assert t.p_value == pytest.approx(expected.pvalue)
    assert t.p_value < 0.1
    assert t.note == ""


def test_paired_test_all_zero_differences():
    t = paired_test([1, 0, 1], [1, 0, 1])
    assert t.p_value == 1.0 and "zero" in t.note and t.ties == 3


def test_paired_test_few_pairs_and_missing_values():
    t = paired_test([0, 0, None, 0], [1, 1, 1, 1])  # the None pair is left out
    assert t.n == 3 and t.wins == 3
    assert t.p_value == pytest.approx(0.25)  # exact: 2 / 2^3
    assert "smallest attainable p" in t.note
    none = paired_test([None], [1.0])
    assert none.n == 0 and none.p_value is None
    with pytest.raises(ValueError):
        paired_test([1], [1, 2])


def test_summarise_can_be_told_the_kind_of_metric():
    assert summarise([1.0, 1.0], proportion=False).ci.high == 1.0  # t interval of zero spread, clipped
    told = summarise([0.2, 0.4, 0.6], proportion=True).ci
    assert (told.low, told.high) == pytest.approx((wilson_interval(1.2, 3).low, wilson_interval(1.2, 3).high))
    low = summarise([0.0, 0.05, 0.1], proportion=False)
    assert low.ci.low == 0.0  # clipped to the metric's range
