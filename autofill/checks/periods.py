"""Reporting periods in the checks: a year stated in the answer that is not the questionnaire's
reporting year, and an answer citing an older report while a newer one in the store covers the same
topic (it appears among the row's retrieved passages). Both are soft: there are good reasons for
either (a baseline year, a policy only the older report describes), but a reviewer should look."""

from __future__ import annotations

import re
from typing import Mapping, Sequence

from autofill.checks.numbers import extract_years
from autofill.records import CheckResult, Passage, Severity

# Words around a year that make it a baseline or a comparison, not the year being reported on.
_BASELINE_BEFORE = re.compile(
    r"(?:baseline|base year|base-year|from|since|against|relative to|compared (?:to|with)|versus|vs\.?|"
    r"below|above|than|between|in line with)\s+(?:the\s+|its\s+|our\s+)?(?:fy\s?|cy\s?)?$", re.IGNORECASE)
_BASELINE_AFTER = re.compile(r"^\s*(?:\)|'s|levels?|baseline|base(?:\s|-)?year)", re.IGNORECASE)


def period_year(period: str) -> int | None:
    """The year a period label ends in: "FY2022" -> 2022, "2021-22" -> 2022, "" -> None."""
    years = [y for y, _ in extract_years(period or "")]
    return max(years) if years else None


def check_reporting_year(answer: str, reporting_year: int) -> list[CheckResult]:
    """Years the answer reports on that are before the reporting year. Later years are targets
    ("by 2030") and baseline or comparison years ("from FY2020 levels", "since 2015") are skipped."""
    if not reporting_year:
        return []
    text = str(answer or "")
    flagged: dict[int, str] = {}
    for year, label in extract_years(text):
        if year >= reporting_year:
            continue
        at = text.find(label)
        before, after = text[max(0, at - 40):at], text[at + len(label):at + len(label) + 20]
        if _BASELINE_BEFORE.search(before) or _BASELINE_AFTER.match(after):
            continue
        flagged.setdefault(year, label)
    if not flagged:
        return [CheckResult("period", True, Severity.SOFT, f"no year before the reporting year {reporting_year}")]
    return [CheckResult("period", False, Severity.SOFT, f"states {label}, not the reporting year {reporting_year}")
            for label in flagged.values()]


def check_newer_report(cited: Sequence[Passage], retrieved: Sequence[Passage],
                       periods: Mapping[str, str]) -> list[CheckResult]:
    """The answer cites only reports older than another report among the row's retrieved passages."""
    cited_years = {p.file_name: period_year(periods.get(p.file_name, "")) for p in cited}
    if not cited_years or any(y is None for y in cited_years.values()):
        return []
    newest_cited = max(y for y in cited_years.values() if y is not None)
    newer = {}
    for p in retrieved:
        y = period_year(periods.get(p.file_name, ""))
        if y is not None and y > newest_cited and p.file_name not in cited_years:
            newer.setdefault(p.file_name, (y, periods[p.file_name]))
    if not newer:
        return []
    old_file = max(cited_years, key=lambda f: cited_years[f] or 0)
    new_file, (_, new_period) = max(newer.items(), key=lambda kv: kv[1][0])
    return [CheckResult("period", False, Severity.SOFT,
                        f"cites the {periods[old_file]} report ({old_file}) while the newer {new_period} report "
                        f"({new_file}) also covers this")]
