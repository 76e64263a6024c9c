"""Page-level fusion (answer/page_rank.py) worked by hand."""

from __future__ import annotations

import pytest

from autofill.answer.page_rank import page_fuse
from autofill.records import Passage


def _p(cid: str, page: int, file: str = "R.pdf") -> Passage:
    return Passage(cid, file, page, page, "", f"text {cid}")


def test_a_page_that_several_chunks_support_rises_above_a_single_strong_chunk():
    dense = [_p("a", 1), _p("b1", 2), _p("c", 3), _p("b2", 2)]
    lexical = [_p("c", 3), _p("a", 1), _p("b2", 2), _p("b1", 2)]
    # pages by first appearance: dense 1,2,3; lexical 3,1,2 -> page 1 = 1/61 + 1/62, page 3 = 1/63 + 1/61,
    # page 2 = 1/62 + 1/63 plus half of its second chunk's fused score.
    with_support = page_fuse([dense, lexical], k=60, n=10, support=0.5)
    without = page_fuse([dense, lexical], k=60, n=10, support=0.0)
    assert [p.chunk_id for p in without] == ["a", "c", "b1", "b2"]
    assert [p.chunk_id for p in with_support] == ["b1", "b2", "a", "c"]
    b2_chunk = 1 / 64 + 1 / 63  # b2: 4th in dense, 3rd in lexical (b1, 1/62 + 1/64, is the page's best)
    assert with_support[0].score == pytest.approx(1 / 62 + 1 / 63 + 0.5 * b2_chunk)
    assert with_support[2].score == pytest.approx(1 / 61 + 1 / 62)


def test_chunks_of_a_page_come_together_best_chunk_first_and_ranks_renumber():
    dense = [_p("x1", 5), _p("y", 6), _p("x2", 5)]
    lexical = [_p("x2", 5), _p("y", 6)]
    out = page_fuse([dense, lexical], k=60, n=3)
    assert [p.chunk_id for p in out] == ["x2", "x1", "y"]  # x2 is in both lists: the page's best chunk
    assert [p.rank for p in out] == [1, 2, 3]
    assert out[0].score == out[1].score  # a page's chunks carry the page's score


def test_cut_at_n_and_same_page_number_in_another_file_is_another_page():
    dense = [_p("a", 1, "A.pdf"), _p("b", 1, "B.pdf"), _p("c", 2, "A.pdf")]
    out = page_fuse([dense, []], k=60, n=2)
    assert [p.chunk_id for p in out] == ["a", "b"]
    assert page_fuse([[], []], k=60, n=5) == []


def test_ties_keep_first_seen_order():
    out = page_fuse([[_p("a", 1), _p("b", 2)], [_p("b", 2), _p("a", 1)]], k=60, n=5)
    assert [p.chunk_id for p in out] == ["a", "b"]
