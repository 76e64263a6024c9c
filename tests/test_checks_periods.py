"""checks/periods.py: years against the reporting year, and older reports cited over newer ones."""

from __future__ import annotations

from autofill.checks.periods import check_newer_report, check_reporting_year, period_year
from autofill.records import Passage, Severity


def p(file, page=1):
    return Passage(chunk_id=f"{file}{page}", file_name=file, page_start=page, page_end=page, section="", text="x")


def failed(checks):
    return [c.reason for c in checks if not c.passed]


def test_period_year():
    assert (period_year("FY2022"), period_year("2021-22"), period_year("2023"), period_year("")) == (2022, 2022, 2023, None)


def test_a_year_before_the_reporting_year_is_flagged_softly():
    checks = check_reporting_year("Emissions were 9.5 Mt in FY2021.", 2023)
    assert failed(checks) == ["states FY2021, not the reporting year 2023"]
    assert checks[0].severity is Severity.SOFT


def test_targets_baselines_and_the_reporting_year_itself_pass():
    for answer in ("9.5 Mt in FY2023, down 12% from FY2020 levels; net zero by 2050.",
                   "30% below the 2019 baseline by 2030", "since 2015", "compared with 2022"):
        assert failed(check_reporting_year(answer, 2023)) == [], answer
    assert check_reporting_year("in FY2021", 0) == []  # no reporting year given: nothing to check


def test_citing_an_older_report_while_a_newer_one_covers_the_topic():
    periods = {"Climate 2020.pdf": "FY2020", "Climate 2022.pdf": "FY2022", "Other.pdf": ""}
    checks = check_newer_report([p("Climate 2020.pdf")], [p("Climate 2020.pdf"), p("Climate 2022.pdf", 4)], periods)
    assert failed(checks) == ["cites the FY2020 report (Climate 2020.pdf) while the newer FY2022 report "
                              "(Climate 2022.pdf) also covers this"]
    assert check_newer_report([p("Climate 2022.pdf")], [p("Climate 2020.pdf")], periods) == []
    assert check_newer_report([p("Other.pdf")], [p("Climate 2022.pdf")], periods) == []  # unknown period
