"""Page-level evidence: rank pages, then the best chunks of the best pages. Pure functions.

Reviewers check pages, and a page answers a question as a whole: a financial statement is one page cut
into several table chunks, each of which alone matches a question weakly (the header in one, the line
item in another). Chunk-level fusion ranks those pieces apart; here every ranking (dense, BM25) is first
turned into a ranking of pages (a page is as good as its best chunk in that list), the page rankings are
fused by reciprocal rank fusion, and a page that several of its chunks support gains a little more
(`support`: the weight of each further chunk of the page in the fused chunk ranking, relative to
the first). Chunks come out page by page, best page first, and within a page by their fused chunk score.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from autofill.records import Passage

PageKey = tuple[str, int]


def page_of(p: Passage) -> PageKey:
    return (p.file_name, p.page_start)


def _rrf(rankings: Sequence[Sequence[str]], k: int) -> dict[str, float]:
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(dict.fromkeys(ranking), start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return scores


def page_fuse(lists: Sequence[Sequence[Passage]], k: int, n: int, support: float = 0.5,
              per_page: int = 0) -> list[Passage]:
    """The top `n` chunks of `lists` (each best first) ordered page by page, as described in the module
    docstring; `score` is the page's fused score, rank 1-based. `per_page` > 0: at most that many chunks
    of one page (its best), so that the `n` cover more pages. Deterministic: ties keep first-seen order."""
    by_id: dict[str, Passage] = {}
    order: dict[str, int] = {}
    for lst in lists:
        for p in lst:
            if p.chunk_id not in by_id:
                by_id[p.chunk_id] = p
                order[p.chunk_id] = len(order)
    chunk_score = _rrf([[p.chunk_id for p in lst] for lst in lists], k)
    page_rankings = [[page_of(p) for p in lst] for lst in lists]
    page_score: dict[PageKey, float] = {}
    for ranking in page_rankings:
        for rank, page in enumerate(dict.fromkeys(ranking), start=1):
            page_score[page] = page_score.get(page, 0.0) + 1.0 / (k + rank)
    # Further chunks of a page add `support` times their own fused chunk score.
    members: dict[PageKey, list[str]] = {}
    for cid in sorted(by_id, key=lambda c: (-chunk_score[c], order[c])):
        members.setdefault(page_of(by_id[cid]), []).append(cid)
    for page, cids in members.items():
        page_score[page] += support * sum(chunk_score[c] for c in cids[1:])
    first_seen = {page: min(order[c] for c in cids) for page, cids in members.items()}
    pages = sorted(members, key=lambda pg: (-page_score[pg], first_seen[pg]))
    out: list[Passage] = []
    for page in pages:
        for cid in members[page][:per_page] if per_page > 0 else members[page]:
            out.append(replace(by_id[cid], score=page_score[page], rank=len(out) + 1))
            if len(out) == n:
                return out
    return out
