"""Every eval metric on small cases computed by hand (see the numbers in the comments)."""

from __future__ import annotations

import math

import pytest

from autofill.evaluate.gold import GoldEvidence, GoldPage
from autofill.evaluate.metrics import (RetrievedPassage, evidence_overlap, page_metrics, parse_verdict,
                                       passage_metrics, sentences, tokens, verdict_match)
from autofill.evaluate.numbers import extract_quantities, number_match


def P(rank, file, *pages, text="", cited=False):
    return RetrievedPassage(rank, file, tuple(pages), text, cited)


GOLD = [GoldPage("A.pdf", 1), GoldPage("A.pdf", 3)]


# --------------------------------------------------------------------------- page level


def test_page_metrics_with_a_duplicate_page():
    # positions: 1 = A p2 (miss), 2 = A p3 (gold, new), 3 = A p3 again (gold, already found), 4 = A p1 (gold, new)
    ranked = [P(1, "A.pdf", 2), P(2, "A.pdf", 3), P(3, "A.pdf", 3), P(4, "A.pdf", 1)]
    m3 = page_metrics(ranked, GOLD, k=3)
    assert m3.hit == 1.0
    assert m3.recall == 0.5  # page 3 of {1, 3}
    assert m3.precision == pytest.approx(2 / 3)  # both chunks of page 3 lie on a gold page
    assert m3.mrr == 0.5
    ideal = 1 + 1 / math.log2(3)  # two gold pages -> two ideal gains at positions 1 and 2
    assert m3.ndcg == pytest.approx((1 / math.log2(3)) / ideal)  # the duplicate at 3 adds nothing
    m4 = page_metrics(ranked, GOLD, k=4)
    assert m4.recall == 1.0
    assert m4.precision == 0.75
    assert m4.ndcg == pytest.approx((1 / math.log2(3) + 1 / math.log2(5)) / ideal)


def test_perfect_ranking_scores_one():
    m = page_metrics([P(1, "A.pdf", 1), P(2, "A.pdf", 3)], GOLD, k=6)
    assert (m.hit, m.recall, m.precision, m.mrr, m.ndcg) == (1.0, 1.0, 1.0, 1.0, pytest.approx(1.0))


def test_k_cuts_the_list():
    m = page_metrics([P(1, "A.pdf", 7), P(2, "A.pdf", 1)], GOLD, k=1)
    assert (m.hit, m.recall, m.precision, m.mrr, m.ndcg) == (0.0, 0.0, 0.0, 0.0, 0.0)


def test_ties_keep_sheet_order_and_rank_sorts():
    tied = [P(1, "A.pdf", 2), P(1, "A.pdf", 3)]
    assert page_metrics(tied, GOLD, k=6).mrr == 0.5
    assert page_metrics(list(reversed(tied)), GOLD, k=6).mrr == 1.0
    # Rank, not the sheet order, decides: the gold page has rank 1 here although it comes second.
    assert page_metrics([P(2, "A.pdf", 9), P(1, "A.pdf", 1)], GOLD, k=6).mrr == 1.0


def test_empty_retrieval_scores_zero_and_no_gold_pages_is_none():
    m = page_metrics([], GOLD, k=6)
    assert (m.hit, m.recall, m.precision, m.mrr, m.ndcg) == (0.0, 0.0, 0.0, 0.0, 0.0)
    assert page_metrics([P(1, "A.pdf", 1)], [], k=6) is None


def test_file_names_match_loosely_and_multi_page_passages_cover_each_page():
    m = page_metrics([P(1, "reports/a.PDF", 1, 2, 3)], GOLD, k=6)
    assert m.recall == 1.0 and m.ndcg == pytest.approx(1 / (1 + 1 / math.log2(3)))  # one position, gain 1
    assert page_metrics([P(1, "B.pdf", 1)], GOLD, k=6).hit == 0.0  # right page, wrong file


# --------------------------------------------------------------------------- passage level


def test_tokens_drop_glued_footnote_digits_and_split_hyphens():
    assert tokens("Net zero19 by 2050, five- year plan") == ["net", "zero", "by", "2050", "five", "year", "plan"]
    assert tokens("five-year") == tokens("five- year")
    assert sentences("One. Two!\nThree; four") == ["One.", "Two!", "Three;", "four"]


def test_evidence_overlap_by_hand():
    # E = {a b c d}; best span "a b c e" -> |{a,b,c}| / |{a,b,c,d,e}| = 3/5
    assert evidence_overlap("a b c d", "a b c e. f g.") == pytest.approx(0.6)
    # verbatim inside a long sentence: the token window gives 1.0 although the sentence is longer
    long = "Intro words here and more of them, we target net zero by 2050 for shipping, among other things."
    assert evidence_overlap("we target net zero by 2050 for shipping", long) == 1.0
    # 9 of 10 words, one differs: 9 / 11
    e = "alpha beta gamma delta epsilon zeta eta theta iota kappa"
    assert evidence_overlap(e, "alpha beta gamma delta epsilon zeta eta theta iota lambda.") == pytest.approx(9 / 11)
    # half of the evidence (cut at a chunk boundary) is not enough
    assert evidence_overlap(e, "alpha beta gamma delta epsilon.") == pytest.approx(0.5)
    assert evidence_overlap("", "anything") == 0.0


def test_passage_metrics_by_hand():
    evidence = [GoldEvidence("Scope 1 emissions were 9.5 Mt CO2-e in FY2020.", "A.pdf", 3),
                GoldEvidence("The Board approved a target of 30 per cent.", "A.pdf", 5)]
    ranked = [P(1, "A.pdf", 3, text="Other text. Scope 1 emissions were 9.5 Mt CO2-e in FY2020. More."),
              P(2, "A.pdf", 4, text="Nothing to see here at all.")]
    m = passage_metrics(ranked, evidence, k=6)
    assert (m.precision, m.recall, m.f1) == (0.5, 0.5, 0.5)
    assert passage_metrics(ranked, evidence, k=1).precision == 1.0
    empty = passage_metrics([], evidence, k=6)
    assert (empty.precision, empty.recall, empty.f1) == (0.0, 0.0, 0.0)
    assert passage_metrics(ranked, [], k=6) is None
    none_found = passage_metrics(ranked[1:], evidence, k=6)
    assert none_found.f1 == 0.0


def test_threshold_is_respected():
    evidence = [GoldEvidence("a b c d")]
    ranked = [P(1, "A.pdf", 1, text="a b c e.")]
    assert passage_metrics(ranked, evidence, k=6, threshold=0.7).precision == 0.0
    assert passage_metrics(ranked, evidence, k=6, threshold=0.6).precision == 1.0


# --------------------------------------------------------------------------- verdicts


@pytest.mark.parametrize("text, expected", [
    ("Yes. BHP has a goal", {"yes"}),
    ("**Yes** - it does", {"yes"}),
    ("Answer: No.", {"no"}),
    ("No / not disclosed. Neither document", {"no", "not disclosed"}),
    ("Not disclosed.", {"not disclosed"}),
    ("Partially: only for shipping", {"partially"}),
    ("N/A", {"not disclosed"}),
    ("Yes/No and a short explanation", set()),
    ("Nothing here", set()),
    ("Notably, yes", set()),
    ("", set()),
])
def test_parse_verdict(text, expected):
    assert set(parse_verdict(text)) == expected


def test_verdict_match():
    gold = "No / not disclosed. Neither document mentions it."
    assert verdict_match("No.", gold) is True
    assert verdict_match("Not disclosed: nothing found", gold) is True
    assert verdict_match("Yes, validated", gold) is False
    assert verdict_match("Partially.", "Yes. Four scenarios") is False
    assert verdict_match("The passages say ...", "Yes.") is False  # no verdict: counted wrong
    assert verdict_match("Yes", "Scope 1+2: reduce by 30%") is None  # gold has no verdict


# --------------------------------------------------------------------------- numbers


def test_units_are_normalised():
    (q,) = extract_quantities("16.2 Mt CO2-e")
    assert (q.value, q.dim) == (16.2e6, "mass")
    (q,) = extract_quantities("US$0.4 billion")
    assert (q.value, q.dim) == (4e8, "money")
    (q,) = extract_quantities("5,100 ML")
    assert (q.value, q.dim) == (5.1e9, "volume")
    assert [(q.value, q.dim) for q in extract_quantities("US$10-40/tCO2e")] == [(10, "money/t"), (40, "money/t")]
    # years, fiscal years, scope numbers, dates and glued footnotes are not figures
    assert extract_quantities("by 2030 for Scope 1+2 and Scope 3 in FY2021 (30 June 2021), net zero19") == []


@pytest.mark.parametrize("answer, gold, matched", [
    ("Emissions were 16,200,000 tonnes CO2e", "16.2 Mt CO2-e", True),
    ("Emissions were 16.5 Mt", "16.2 Mt CO2-e", True),  # 1.9% off, inside 2%
    ("Emissions were 17 Mt", "16.2 Mt CO2-e", False),  # 4.9% off
    ("US$0.4 billion", "at least US$400 million", True),
    ("a 30% cut", "at least 30 per cent", True),
    ("5.1 GL", "5,100 ML of water", True),
    ("16.2", "16.2 Mt", True),  # no unit in the answer: numerals compared as written
    ("16.2%", "16.2 Mt", False),  # different dimensions
    ("nothing stated", "16.2 Mt", False),
])
def test_number_match(answer, gold, matched):
    assert number_match(answer, gold, 0.02).matched is matched


def test_number_match_counts_each_gold_figure_once_and_skips_figure_free_gold():
    m = number_match("9.5 Mt and nothing else", "Scope 1 9.5 Mt, Scope 2 6.3 Mt; total 15.8 Mt; again 9.5 Mt", 0.02)
    assert (m.gold_numbers, m.matched_numbers) == (3, 1)
    assert m.recall == pytest.approx(1 / 3)
    assert number_match("16.2", "Not disclosed by 2030", 0.02) is None


def test_cited_page_hit_and_the_share_of_rows_citing_a_marked_page():
    from autofill.evaluate.metrics import cited_page_hit, cites_page_of

    gold = [GoldPage("Reports/BHP Report.PDF", 25)]
    assert cited_page_hit([("bhp report.pdf", 25), ("bhp report.pdf", 2)], gold) == 1.0
    assert cited_page_hit([("bhp report.pdf", 24)], gold) == 0.0
    assert cited_page_hit([], gold) == 0.0
    assert cited_page_hit([("bhp report.pdf", 25)], []) is None
    marked = [("BHP Report.pdf", 2), ("BHP Report.pdf", 3)]
    assert cites_page_of([("bhp report", 25), ("BHP REPORT.pdf", 2)], marked) == 1.0
    assert cites_page_of([("bhp report", 25)], marked) == 0.0
