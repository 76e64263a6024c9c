"""Which sentences or table rows of a cited passage the review report highlights, and the relevance
score reviewers read (autofill/review/highlights.py; pure functions)."""

from __future__ import annotations

from autofill.review.highlights import numbers, quotes, relevance, select_highlights, strip_citations, text_runs

PROSE = ("BHP reports its emissions every year. In FY2021 operational emissions were 10.2 Mt CO2-e, "
         "down from 11.1 Mt. We target net zero operational emissions by 2050. "
         "Our medium-term target is a 30 per cent reduction by FY2030 from FY2020 levels.")
TABLE = ("Emissions by year.\n"
         "| Year | Scope 1 (Mt) | Scope 2 (Mt) |\n| --- | --- | --- |\n"
         "| 2019 | 9.7 | 6.7 |\n| 2020 | 9.5 | 6.6 |\n| 2021 | 10.2 | 4.2 |")


def test_the_sentence_with_the_answers_figure_is_picked_not_the_whole_chunk():
    got = select_highlights(PROSE, "10.2 Mt CO2-e of operational emissions in FY2021 (Report.pdf p. 7).")
    assert got == ["In FY2021 operational emissions were 10.2 Mt CO2-e, down from 11.1 Mt."]
    got = select_highlights(PROSE, "Yes: a 30 per cent reduction by FY2030 against FY2020.")
    assert got == ["Our medium-term target is a 30 per cent reduction by FY2030 from FY2020 levels."]


def test_the_table_row_with_the_figure_is_picked():
    assert select_highlights(TABLE, "Scope 2 emissions were 4.2 Mt in 2021.") == ["| 2021 | 10.2 | 4.2 |"]
    # "1,120" in an answer is "1120" in a table, and the other way round
    assert select_highlights("| Site | kt |\n|---|---|\n| Alpha | 1120 |\n| Beta | 990 |",
                             "Alpha emitted 1,120 kt.") == ["| Alpha | 1120 |"]


def test_without_figures_the_wording_decides_and_page_numbers_do_not_count():
    got = select_highlights(PROSE, "Yes.", "The report states a target of net zero operational emissions by "
                                            "mid-century (Report.pdf p. 30).")
    assert got == ["We target net zero operational emissions by 2050."]
    # Only the citation carries a number: it must not pick the sentence with "30 per cent".
    assert numbers(strip_citations("See Report 2024.pdf p. 30 (printed 28) and pp. 4-5.")) == set()


def test_an_evidence_only_draft_highlights_its_quotes():
    draft = ("\u201cWe target net zero operational emissions by 2050.\u201d (Report.pdf p. 7)\n"
             "\u201cOur medium-term target is a 30 per cent reduction by FY2030\u2026\u201d (Report.pdf p. 7)")
    assert quotes(draft)[1] == "Our medium-term target is a 30 per cent reduction by FY2030"
    assert select_highlights(PROSE, draft) == [
        "We target net zero operational emissions by 2050.",
        "Our medium-term target is a 30 per cent reduction by FY2030 from FY2020 levels.",
    ]


def test_nothing_tied_to_the_answer_means_no_selection():
    assert select_highlights(PROSE, "No.") == []
    assert select_highlights(PROSE, "Water withdrawal was 3.1 GL.") == []
    assert select_highlights("", "10.2") == []


def test_text_runs_mark_each_occurrence_and_keep_all_text():
    runs = text_runs(PROSE, ["We target net zero operational emissions by 2050."])
    assert "".join(t for t, _ in runs) == PROSE
    assert [t for t, marked in runs if marked] == ["We target net zero operational emissions by 2050."]
    assert text_runs("abc", []) == [("abc", False)]


def test_relevance_is_relative_to_the_best_passage():
    assert relevance(["0.0328", "0.0164", "", "n/a"]) == [100, 50, None, None]
    assert relevance([0.91, 0.55]) == [100, 60]
    assert relevance(["0", "0"]) == [None, None]
