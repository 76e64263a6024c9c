"""The listwise rerank parser and the pure helpers around it: the window plan and the per-page cap."""

from __future__ import annotations

import pytest

from autofill.answer.rerank import LLMReranker, NoReranker, parse_ranking, window_starts, window_step
from autofill.records import Passage


@pytest.mark.parametrize("text, n, expected", [
    ("[4] > [2] > [1] > [3]", 4, [4, 2, 1, 3]),
    ("4 > 2 > 1 > 3", 4, [4, 2, 1, 3]),
    ("```\n[2] > [3]\n```", 3, [2, 3, 1]),
    ("Ranking: [3] > [1] > [2]\n\nPassage [3] states the target.", 3, [3, 1, 2]),
    ("[2] > [2] > [1] > [2]", 3, [2, 1, 3]),  # duplicates: first position wins
    ("[9] > [2] > [0] > [1]", 3, [2, 1, 3]),  # out of range dropped, missing appended
    ("Passage 5 is best, then Passage 2.", 5, [5, 2, 1, 3, 4]),
    ("4, 1, 2", 4, [4, 1, 2, 3]),
    ('{"ranking": [3, 1]}', 3, [3, 1, 2]),
    ("", 3, [1, 2, 3]),
    ("I cannot rank these.", 2, [1, 2]),
])
def test_parse_ranking(text, n, expected):
    assert parse_ranking(text, n) == expected


def test_chain_is_preferred_over_stray_numbers():
    # The 2050 and the "Scope 3" in the commentary must not enter the ranking.
    text = "Considering Scope 3 and 2050 targets: 5 > 4 > 1"
    assert parse_ranking(text, 5) == [5, 4, 1, 2, 3]


def test_result_is_always_a_permutation():
    for text in ["[1] > [1]", "99", "[3] > 2 > passage 1", "5 > 4 > 3 > 2 > 1 > 6"]:
        ranking = parse_ranking(text, 5)
        assert sorted(ranking) == [1, 2, 3, 4, 5]


def test_window_starts_bottom_up():
    assert window_starts(30, 20, 10) == [10, 0]
    assert window_starts(20, 20, 10) == [0]
    assert window_starts(12, 20, 10) == [0]
    assert window_starts(45, 20, 10) == [25, 15, 5, 0]


def _p(i: int) -> Passage:
    return Passage(chunk_id=f"c{i}", file_name="F.pdf", page_start=i, page_end=i, section="", text=f"t{i}", rank=i)


def test_windows_move_by_half_a_window():
    assert window_step(30) == 15  # the default window: the step the retired rerank_step defaulted to
    assert window_step(20) == 10 and window_step(3) == 1 and window_step(2) == 1


def test_sliding_windows_bubble_a_low_candidate_to_the_top(tmp_path):
    """30 candidates, window 20 (step 10): two calls (positions 11-30, then 1-20); the truly best
    passage, retrieved last, reaches rank 1 and the final list keeps final_k = 6."""
    import re

    from autofill.answer.rerank import rerank
    from autofill.providers.base import ChatResult
    from autofill.records import QuestionRow
    from autofill.settings import Settings

    relevance = {i: i % 7 for i in range(1, 31)}
    relevance[30] = 100
    passages = [Passage(chunk_id=f"c{i}", file_name="F.pdf", page_start=i, page_end=i, section="",
                        text=f"relevance {relevance[i]} id {i}", rank=i) for i in range(1, 31)]
    prompts: list[str] = []

    def call(messages, json_mode):
        prompt = messages[-1].content
        prompts.append(prompt)
        shown = re.findall(r"^\[(\d+)\] \(F\.pdf p\. \d+\)\nrelevance (\d+)", prompt, re.MULTILINE)
        order = sorted(shown, key=lambda t: -int(t[1]))
        return ChatResult(text=" > ".join(f"[{n}]" for n, _ in order), model="m")

    settings = Settings(workspace=tmp_path)
    settings.retrieval.rerank_window = 20
    top = rerank(settings, LLMReranker(settings), QuestionRow(sheet="S", row=1, question="q"), passages, call=call)
    assert len(prompts) == 2
    assert "Rank them" in prompts[0] and prompts[0].count("\nrelevance ") == 20
    assert "id 11\n" in prompts[0] and "id 30\n" in prompts[0]
    assert [p.chunk_id for p in top][0] == "c30"
    assert [p.rank for p in top] == [1, 2, 3, 4, 5, 6]
    assert all(relevance[int(p.chunk_id[1:])] >= 5 for p in top[1:])


def test_page_diversity_caps_passages_per_page_and_fills_up():
    from autofill.answer.rerank import diverse

    pages = [1, 1, 2, 1, 3, 2, 4]
    ps = [Passage(chunk_id=f"c{i}", file_name="F.pdf", page_start=pg, page_end=pg, section="", text="t")
          for i, pg in enumerate(pages)]
    ids = lambda xs: [p.chunk_id for p in xs]  # noqa: E731
    assert ids(diverse(ps, 4, 1)) == ["c0", "c2", "c4", "c6"]  # one per page
    assert ids(diverse(ps, 6, 1)) == ["c0", "c2", "c4", "c6", "c1", "c3"]  # too few pages: fill up after
    assert ids(diverse(ps, 4, 2)) == ["c0", "c1", "c2", "c4"]
    assert ids(diverse(ps, 3, 0)) == ["c0", "c1", "c2"]  # no cap


def test_one_passage_per_page_applies_only_without_a_reranker(tmp_path):
    from autofill.answer.rerank import rerank
    from autofill.providers.base import ChatResult
    from autofill.records import QuestionRow
    from autofill.settings import Settings

    ps = [Passage(chunk_id=f"c{i}", file_name="F.pdf", page_start=1 + i // 3, page_end=1 + i // 3, section="",
                  text=f"t{i}", rank=i + 1) for i in range(12)]
    s = Settings(workspace=tmp_path)
    row = QuestionRow("S", 1, "q")
    assert [p.page_start for p in rerank(s, NoReranker(), row, ps)] == [1, 2, 3, 4, 1, 1]
    keep_order = lambda messages, json_mode: ChatResult(text="[1] > [2] > [3]", model="m")  # noqa: E731
    assert [p.page_start for p in rerank(s, LLMReranker(s), row, ps, call=keep_order)] == [1, 1, 1, 2, 2, 2]


def test_default_settings_rank_all_thirty_candidates_in_one_call(tmp_path):
    from autofill.answer.rerank import rerank
    from autofill.providers.base import ChatResult
    from autofill.records import QuestionRow
    from autofill.settings import Settings

    passages = [Passage(chunk_id=f"c{i}", file_name="F.pdf", page_start=i, page_end=i, section="",
                        text=f"passage {i}", rank=i) for i in range(1, 31)]
    prompts: list[str] = []

    def call(messages, json_mode):
        prompts.append(messages[-1].content)
        return ChatResult(text="[30] > [1]", model="m")

    top = rerank(Settings(workspace=tmp_path), LLMReranker(Settings(workspace=tmp_path)), QuestionRow(sheet="S", row=1, question="q"), passages, call=call)
    assert len(prompts) == 1 and prompts[0].count("passage ") >= 30
    assert [p.chunk_id for p in top] == ["c30", "c1", "c2", "c3", "c4", "c5"]
