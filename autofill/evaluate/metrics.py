"""Quality metrics for one question, pure and small enough to check by hand.

Retrieval is scored over the ranked passages given to the answer step (the output's Evidence sheet).

Ordering and ties. Passages are sorted by their `Rank`; passages with equal ranks keep their order in
the Evidence sheet (a stable sort), so a tie never depends on chance. From then on a passage's
position (1, 2, ...) is what counts, not the number in its Rank cell.

Page level, against the distinct gold (file, page) pairs G. A passage "covers" a page when its file
matches (case, folder and a trailing ".pdf" ignored) and the page is one of its pages (a passage that
runs over pages 12-13 covers both). Within the top k positions:
  hit@k        1 if any passage covers a gold page, else 0;
  recall@k     |gold pages covered| / |G|;
  precision@k  share of the top-k passages that cover at least one gold page, over the number of
               passages actually there (min(k, n)), so two chunks from one gold page both count;
  MRR          1 / position of the first passage covering a gold page (0 if none in the top k);
  nDCG@k       binary gain with each gold page counted once, at its first position: position i has
               gain 1 when its passage covers a gold page no earlier passage covered, else 0 (a second
               chunk of an already found page adds nothing); DCG = sum gain_i / log2(i + 1), divided by
               the ideal DCG of min(|G|, k) gains of 1 at the top.
Questions without gold pages get no page metrics (None; the runner counts them). A question with gold
pages but nothing retrieved scores 0 everywhere.

Passage level, against the gold evidence texts (see `evidence_overlap`): a retrieved passage is
relevant when it covers at least one gold evidence text with overlap >= the threshold (0.7);
precision = relevant passages / passages in the top k, recall = gold evidence texts covered by some
top-k passage / all gold evidence texts, F1 their harmonic mean (0 when both are 0). Evidence is
matched on text alone, not on its stated page.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass
from pathlib import PurePath
from typing import Iterable, Sequence

from autofill.evaluate.gold import GoldEvidence, GoldPage, parse_verdict  # noqa: F401 - re-exported
from autofill.evaluate.numbers import NumberMatch, number_match  # noqa: F401 - re-exported


@dataclass(frozen=True)
class RetrievedPassage:
    """One row of an Evidence sheet."""

    rank: int
    file: str
    pages: tuple[int, ...]  # usually one page; (12, 13) for a passage running over two
    text: str = ""
    cited: bool = False
    score: float | None = None


@dataclass(frozen=True)
class PageMetrics:
    hit: float
    recall: float
    precision: float
    mrr: float
    ndcg: float


@dataclass(frozen=True)
class PassageMetrics:
    precision: float
    recall: float
    f1: float


# --------------------------------------------------------------------------- page level


def file_key(name: str) -> str:
    """"Reports/BHP Report.PDF" and "bhp report" name the same file."""
    base = PurePath(str(name).replace("\\", "/")).name.strip().lower()
    base = re.sub(r"\.pdf$", "", base)
    return " ".join(base.split())


def ordered(passages: Iterable[RetrievedPassage]) -> list[RetrievedPassage]:
    """By rank; equal ranks keep their sheet order (Python's sort is stable)."""
    return sorted(passages, key=lambda p: p.rank)


def covered_pages(passage: RetrievedPassage, gold: set[tuple[str, int]]) -> set[tuple[str, int]]:
    key = file_key(passage.file)
    return {(key, page) for page in passage.pages} & gold


def page_metrics(passages: Sequence[RetrievedPassage], gold_pages: Sequence[GoldPage], k: int) -> PageMetrics | None:
    """Page-level hit@k, recall@k, precision@k, MRR and nDCG@k (definitions in the module docstring)."""
    gold = {(file_key(g.file), g.page) for g in gold_pages}
    if not gold:
        return None
    top = ordered(passages)[:k]
    if not top:
        return PageMetrics(0.0, 0.0, 0.0, 0.0, 0.0)
    found: set[tuple[str, int]] = set()
    relevant_passages = 0
    first = 0
    dcg = 0.0
    for position, passage in enumerate(top, start=1):
        pages = covered_pages(passage, gold)
        if pages:
            relevant_passages += 1
            first = first or position
        if pages - found:
            dcg += 1.0 / math.log2(position + 1)
        found |= pages
    ideal = sum(1.0 / math.log2(i + 1) for i in range(1, min(len(gold), k) + 1))
    return PageMetrics(
        hit=1.0 if found else 0.0,
        recall=len(found) / len(gold),
        precision=relevant_passages / len(top),
        mrr=1.0 / first if first else 0.0,
        ndcg=dcg / ideal,
    )


# --------------------------------------------------------------------------- passage level

_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\n+|\s+[•▪●]\s+|\s\|\s")
_GLUED_FOOTNOTE = re.compile(r"\b([a-z]{2,})\d{1,2}\b")


def tokens(text: str) -> list[str]:
    """Lower-case word tokens after Unicode normalisation, with footnote digits glued to a word
    ("zero19" -> "zero") removed; hyphens and punctuation separate words ("five- year" and
    "five-year" both give "five", "year")."""
    text = unicodedata.normalize("NFKC", str(text or "")).lower()
    text = _GLUED_FOOTNOTE.sub(r"\1", text)
    return re.findall(r"[a-z0-9]+", text)


def sentences(text: str) -> list[str]:
    """Split on sentence ends (. ! ? ;), line breaks, bullets and table cell bars."""
    return [s for s in (p.strip() for p in _SENTENCE_END.split(str(text or ""))) if tokens(s)]


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


def evidence_overlap(evidence: str, passage: str) -> float:
    """Sentence-level Jaccard overlap of a gold evidence text with a passage, in [0, 1].

    Both texts are tokenised by `tokens`. The score is the best Jaccard similarity |E & S| / |E | S|
    between the evidence's token set E and the token set S of either
      (a) a run of one or more consecutive whole sentences of the passage (`sentences`), or
      (b) a window of consecutive passage tokens exactly as long as the evidence (as many tokens).
    (a) is the sentence-level match; (b) makes an evidence fragment that sits verbatim inside a longer
    sentence or a table row score 1.0, so a passage containing the evidence word for word always counts,
    while a passage holding only part of it (cut at a chunk boundary) does not."""
    ev_tokens = tokens(evidence)
    if not ev_tokens:
        return 0.0
    ev = set(ev_tokens)
    best = 0.0
    sent_sets = [set(tokens(s)) for s in sentences(passage)]
    for i in range(len(sent_sets)):
        span: set[str] = set()
        for j in range(i, len(sent_sets)):
            span |= sent_sets[j]
            best = max(best, jaccard(ev, span))
            if len(span) > 3 * len(ev):
                break  # longer runs only dilute the overlap
    words = tokens(passage)
    width = len(ev_tokens)
    for start in range(0, max(1, len(words) - width + 1)):
        if best >= 1.0:
            break
        window = words[start:start + width]
        if len(ev & set(window)) / len(ev) > best:  # cheap bound: Jaccard <= share of E inside
            best = max(best, jaccard(ev, set(window)))
    return best


def passage_metrics(passages: Sequence[RetrievedPassage], evidence: Sequence[GoldEvidence], k: int,
                    threshold: float = 0.7) -> PassageMetrics | None:
    """Passage-level precision, recall and F1 of the top-k passages against the gold evidence texts;
    None when the key gives no evidence text for the question."""
    texts = [e.text for e in evidence if tokens(e.text)]
    if not texts:
        return None
    top = ordered(passages)[:k]
    if not top:
        return PassageMetrics(0.0, 0.0, 0.0)
    covered = [[evidence_overlap(t, p.text) >= threshold for t in texts] for p in top]
    relevant = sum(1 for row in covered if any(row))
    found = sum(1 for j in range(len(texts)) if any(row[j] for row in covered))
    precision = relevant / len(top)
    recall = found / len(texts)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return PassageMetrics(precision, recall, f1)




# --------------------------------------------------------------------------- cited pages (issue 47)


def cited_page_hit(cited: Iterable[tuple[str, int]], gold_pages: Sequence[GoldPage]) -> float | None:
    """1 if any page the answer cites (its Sources: (file, PDF page)) is a gold page, else 0; None without
    gold pages. What a reviewer checks first: the six Evidence passages may hold the gold page while the
    cited Sources do not."""
    gold = {(file_key(g.file), g.page) for g in gold_pages}
    if not gold:
        return None
    return 1.0 if {(file_key(f), p) for f, p in cited} & gold else 0.0


def cites_page_of(cited: Iterable[tuple[str, int]], pages: Iterable[tuple[str, int]]) -> float:
    """1 if any cited (file, PDF page) is one of `pages` (e.g. the hand-labelled boilerplate pages of a set:
    covers, contents, disclaimers, glossaries, indexes), else 0. Averaged over rows: the share of rows that
    cite such a page."""
    marked = {(file_key(f), p) for f, p in pages}
    return 1.0 if {(file_key(f), p) for f, p in cited} & marked else 0.0


def verdict_match(answer: str, gold: str) -> bool | None:
    """True when the answer's leading verdict agrees with the gold answer's (any shared verdict);
    None when the gold answer opens with no verdict. An answer without a verdict does not match."""
    expected = parse_verdict(gold)
    if not expected:
        return None
    return bool(parse_verdict(answer) & expected)
