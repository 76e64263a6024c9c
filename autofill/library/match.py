"""Matching a question against the library: which approved answer, if any, answers the same question.

Two signals, combined into one calibrated match strength (0-1, about the chance that the two questions
ask the same thing):

- dense similarity: cosine of the two questions' embeddings, by the evidence store's embedder;
- lexical overlap: Dice coefficient of their stemmed content words.

Embeddings see "Does the company reference the Paris Agreement?" and "Are its targets aligned with the
Paris Agreement?" as near-identical, and "Scope 1 emissions" as near "Scope 3 emissions". So before the
score is used, contrast terms are compared: questions that name different members of one contrast set
(Scope 1 vs Scope 3; reference vs align with; short- vs long-term; absolute vs intensity; water vs
energy; another year; location- vs market-based; policy vs target; adaptation vs mitigation; identify
vs manage risks; physical vs transition; withdrawal vs consumption; ISO 14001 vs 50001 ...) are marked
as conflicting, which the calibration weighs heavily; a set named on one side only (a target, a
definition, a business model, categories ...) weighs less, and not at all for the sets in TWO_SIDED. A
conflict never allows reuse without a model call.

The combination is a logistic function of the features, fitted per bundled embedder on hand-labelled
question pairs (`benchmarks/library_calibration.py`: paraphrases as matches; near-duplicates, other
questions on one topic and unrelated questions as non-matches). `benchmarks/library_pairs.py` measures
precision and recall at library.threshold on those and on pairs of wording we did not write (framework
development sets, report-analyst question sets, BHP gold questions): at 0.8 the default bge embedder
offers none of 5,674 different questions (57 before the topic contrasts and the datapoint rule below)
and 399 of 622 same ones (402 before). Pure functions; the embeddings come from the caller."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Sequence

from autofill.library.contrasts import OVERLAP_OK, TWO_SIDED, contrast_labels
from autofill.store.bm25_index import english_stemmer
from autofill.frameworks.coverage import default_mapper

# Fitted by benchmarks/library_calibration.py on its labelled pairs, once per bundled local embedder
# (the conflict weight is fixed, see there): cosines of different models live on different scales (bge
# puts unrelated questions near 0.7, MiniLM near 0.3). MiniLM's and bge's were fitted on 48 pairs; on
# the 137 of today (with benchmarks/devsets/library/pairs.tsv) and today's contrasts they offer none of
# the 78 non-matches at 0.8 and a refit gains nothing. Other embedders (OpenAI, Cohere) use MiniLM's.
COEFS: dict[str, dict[str, float]] = {
    "local:all-MiniLM-L6-v2": {"bias": -1.43, "cosine": 2.61, "lexical": 2.68, "conflict": -6.0, "one_sided": -2.75},
    "local:bge-small-en-v1.5": {"bias": -6.51, "cosine": 9.17, "lexical": 1.35, "conflict": -6.0, "one_sided": -2.71},
    # multilingual-e5's cosines sit near 0.8-1.0 for any two ESG questions: on MiniLM's coefficients it
    # offered "adjust its business model" for "definitions for climate change adaptation" at 0.88. Its
    # free fit weighs the cosine below 0, so its weight is bge's scaled to the cosines' spread.
    "local:multilingual-e5-small": {"bias": -22.96, "cosine": 25.47, "lexical": 2.43, "conflict": -6.0,
                                    "one_sided": -3.43},
}
COEF = COEFS["local:all-MiniLM-L6-v2"]
TOP_K = 8  # library entries (by cosine) whose full match strength is computed per question


def coefficients(embedder_name: str) -> dict[str, float]:
    """The calibration for the embedder whose cosines are scored (MiniLM's for one never calibrated)."""
    return COEFS.get(embedder_name, COEF)


_WORD = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_STOP = set("""a an the and or of to in on for by with from at as is are was were be been being has have had do does
did doing this that these those it its it's their them they there which what who whom whose when where why how
any all each every some such than then so if not no yes can could should would will shall may might must our
we you your company company's organisation organization organisation's firm business group please describe
provide explain state give list detail details indicate specify whether your
""".split())


@dataclass(frozen=True)
class Features:
    cosine: float
    lexical: float
    conflicts: tuple[str, ...]  # contrast sets whose labels differ on both sides ("datapoint": see below)
    one_sided: tuple[str, ...]  # contrast sets named on one side only
    same_datapoints: bool = False  # both ask for the same framework datapoints (autofill/frameworks)


@dataclass(frozen=True)
class Scored:
    index: int  # into the candidate list
    strength: float
    features: Features


def _stem_all(words: list[str]) -> list[str]:

    return english_stemmer().stemWords(words)


def content_words(text: str) -> frozenset[str]:
    words = [w for w in _WORD.findall(str(text or "").lower()) if w not in _STOP]
    words = [p for w in words for p in w.split("-") if p and p not in _STOP]
    return frozenset(_stem_all(words))


def dice(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 0.0
    return 2.0 * len(a & b) / (len(a) + len(b))


@dataclass(frozen=True)
class Prepared:
    """A question's text features, computed once."""

    text: str
    words: frozenset[str]
    labels: dict[str, frozenset[str]]
    datapoints: tuple[str, ...] = ()  # the framework concepts it asks for, strongest first
    datapoint_strength: float = 0.0  # the mapping's strength of the first


# Matching by datapoint before wording: two questions that ask for the same framework datapoints
# (autofill/frameworks, offline mapping at DATAPOINT_FLOOR or more, as the workbook shows them) match at
# DATAPOINT_MATCH at least, however differently worded, unless a contrast set conflicts (another year,
# another scope); two whose strongest datapoints differ conflict ("datapoint"), so are never reused
# without a model call. Below the reuse threshold: a datapoint match is shown and given to the prompt,
# never reused on its own.
DATAPOINT_MATCH = 0.9
DATAPOINT_FLOOR = 0.6  # the floor of the Framework datapoints cell (frameworks/coverage.SHOWN)
# Both strongest datapoints this sure for a "datapoint" conflict (at 0.6 a weakly mapped BHP rewording
# lost its approved answer in benchmarks/library.py; benchmarks/frameworks_library.py).
DATAPOINT_SURE = 0.65


# One-sided contrasts that ask for more than the shared datapoint (a target of it, its categories).
ASKS_MORE = frozenset({"instrument", "breakdown"})
QUOTED = 0.99  # the mapping's strength of a quoted framework code


def question_datapoints(text: str) -> tuple[tuple[str, ...], float]:

    matches = [m for m in default_mapper().map(text).matches if m.strength >= DATAPOINT_FLOOR]
    return tuple(m.concept for m in matches), (matches[0].strength if matches else 0.0)


# The scopes a GHG datapoint is: a question that names no scope but is surely mapped to one ("direct
# emissions from sources the company owns") names it, so it conflicts with another scope's question.
SCOPE_OF = {"ghg.scope1": "1", "ghg.scope2-location": "2", "ghg.scope2-market": "2", "ghg.scope3": "3",
            "ghg.financed": "3", "ghg.total": "123"}


def prepare(text: str, datapoints: bool = True) -> Prepared:
    concepts, sure = question_datapoints(text) if datapoints else ((), 0.0)
    labels = contrast_labels(text)
    if concepts and concepts[0] in SCOPE_OF and "scope" not in labels and sure >= DATAPOINT_SURE:
        labels["scope"] = frozenset(SCOPE_OF[concepts[0]])
    return Prepared(text, content_words(text), labels, concepts, sure)


def features(cosine: float, a: Prepared, b: Prepared) -> Features:
    conflicts, one_sided = [], []
    for name in sorted(set(a.labels) | set(b.labels)):
        la, lb = a.labels.get(name), b.labels.get(name)
        if la and lb:
            if la != lb and not (name in OVERLAP_OK and la & lb):
                conflicts.append(name)
        elif name not in TWO_SIDED:
            # A year named on one side only is ordinary rewording ("in FY2024" vs "the latest year").
            one_sided.append(name)
    same = bool(a.datapoints) and set(a.datapoints) == set(b.datapoints) and not any(
        # "What share of electricity ... aim for?" and "... was renewable last year?" share a datapoint;
        # the target, or the categories, asked on one side make it another question (a target's,
        # unless the other side is a quoted code: its words name nothing).
        (a.labels.get(name) and (b.datapoint_strength < QUOTED or name != "instrument"))
        or (b.labels.get(name) and (a.datapoint_strength < QUOTED or name != "instrument"))
        for name in one_sided if name in ASKS_MORE)
    if (a.datapoints and b.datapoints and a.datapoints[0] != b.datapoints[0] and not same
            and min(a.datapoint_strength, b.datapoint_strength) >= DATAPOINT_SURE):
        conflicts.append("datapoint")
    return Features(cosine=float(cosine), lexical=dice(a.words, b.words), conflicts=tuple(conflicts),
                    one_sided=tuple(one_sided), same_datapoints=same)


def strength(f: Features, coef: dict[str, float] = COEF) -> float:
    """The calibrated match strength of two questions, 0-1."""
    z = (coef["bias"] + coef["cosine"] * f.cosine + coef["lexical"] * f.lexical
         + coef["conflict"] * len(f.conflicts) + coef["one_sided"] * len(f.one_sided))
    s = 1.0 / (1.0 + math.exp(-z))
    return max(s, DATAPOINT_MATCH) if f.same_datapoints and not f.conflicts else s


def same_question(a: str, b: str) -> bool:
    """The one rule of autofill/questions.py."""
    from autofill.questions import same_question as same

    return same(a, b)


def cosines(query: Sequence[float], vectors: Sequence[Sequence[float]]) -> list[float]:
    """Cosine similarity of `query` with each vector (vectors need not be normalised)."""
    import numpy as np

    if not len(vectors):
        return []
    m = np.asarray(vectors, dtype=np.float32)
    q = np.asarray(query, dtype=np.float32)
    norms = np.linalg.norm(m, axis=1) * (np.linalg.norm(q) or 1.0)
    norms[norms == 0] = 1.0
    return (m @ q / norms).tolist()


def best_match(question: Prepared, vector: Sequence[float], candidates: Sequence[Prepared],
               vectors: Sequence[Sequence[float]], top_k: int = TOP_K, coef: dict[str, float] = COEF) -> Scored | None:
    """The candidate that most likely asks the same question (highest strength), or None without any.
    The same question (normalised text) is a match of strength 1."""
    if not candidates:
        return None
    cos = cosines(vector, vectors)
    order = sorted(range(len(candidates)), key=lambda i: -cos[i])[:top_k]
    best: Scored | None = None
    for i in order:
        f = features(cos[i], question, candidates[i])
        s = 1.0 if same_question(question.text, candidates[i].text) else strength(f, coef)
        if best is None or s > best.strength:
            best = Scored(i, s, f)
    return best
