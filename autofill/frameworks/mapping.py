"""Which datapoints a question asks for: each question mapped to catalogue concepts with a strength
(0-1), strongest first, or to none.

Offline, in this order:
1. quoted codes: a question (or its number / section) that quotes a requirement ("E1-6 44(a)", "GRI
   305-1", "C6.1", "IFRS S2 29(a)(i)(1)", "TCFD Strategy (c)") maps to that requirement's concepts; the
   longest code wins (E1-6 44(a) over E1-6) and a code that needs its framework named (IFRS S2, TCFD,
   CDP 2024 numbers) counts only when it is;
2. rules: a concept is proposed when one of its `needs` patterns is in the question and scored by its
   cues and by the contrast labels both name;
3. the embedder (optional): cosine of question and concept description, one more signal.
Contrast labels veto: a question naming Scope 2 never maps to a Scope 1 concept, market-based never to
location-based, net never to gross, a target never to the figure achieved (contrast.py).

With a model (`model_map.py`) the offline candidates go to the model, which picks; the veto still holds.
Pure apart from the embedder call."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Sequence

from autofill.frameworks import loose
from autofill.frameworks.catalogue import Catalogue, Concept, Requirement
from autofill.frameworks.contrast import SPECIFIC, VETO_ONLY, conflicts, question_labels, unmatched, without_negations

CACHE_SIZE = 20_000
MIN_STRENGTH = 0.5  # below it a concept is not reported
MAX_MATCHES = 5
QUOTED = 1.0


@dataclass(frozen=True)
class Match:
    concept: str
    strength: float
    how: str  # "quoted", "rules", "embedder", "model"
    quoted: str = ""  # the requirement id the question quotes


@dataclass(frozen=True)
class Mapping:
    matches: tuple[Match, ...] = ()
    quoted: tuple[str, ...] = ()  # requirement ids quoted

    @property
    def concepts(self) -> tuple[str, ...]:
        return tuple(m.concept for m in self.matches)

    def strong(self, floor: float = 0.7) -> frozenset[str]:
        return frozenset(m.concept for m in self.matches if m.strength >= floor)

    def to_json(self, cat: Catalogue) -> list[dict]:
        return [{"concept": m.concept, "label": cat.concepts[m.concept].label, "strength": round(m.strength, 2),
                 "how": m.how, **({"quoted": m.quoted} if m.quoted else {}),
                 "requirements": specific_requirements(cat, m.concept)} for m in self.matches]


@dataclass
class Mapper:
    """Maps questions with one catalogue; `vectors` (concept id -> embedding) when an embedder is used."""

    catalogue: Catalogue
    embedder: object | None = None
    _vectors: dict[str, list[float]] = field(default_factory=dict)
    _quotes: list[tuple[Requirement, re.Pattern]] = field(default_factory=list)
    _cache: dict[tuple[str, str, bool], Mapping] = field(default_factory=dict)  # offline mappings (library entries recur)

    def __post_init__(self):
        self._quotes = [(r, code_pattern(r)) for r in self.catalogue.requirements.values()]

    def concept_vectors(self) -> dict[str, list[float]]:
        if self.embedder is not None and not self._vectors:
            concepts = list(self.catalogue.concepts.values())
            self._vectors = dict(zip([c.id for c in concepts],
                                     self.embedder.embed_documents([c.text for c in concepts])))
        return self._vectors

    def quoted(self, text: str) -> list[Requirement]:
        return quoted_requirements(self._quotes, text)

    def map_many(self, questions: Sequence[str], contexts: Sequence[str] | None = None) -> list[Mapping]:
        contexts = contexts or [""] * len(questions)
        cosines: list[dict[str, float]] = [{} for _ in questions]
        if self.embedder is not None and questions:
            import numpy as np

            vectors = self.concept_vectors()
            ids = list(vectors)
            m = np.asarray([vectors[i] for i in ids], dtype=np.float32)
            q = np.asarray(self.embedder.embed_documents(list(questions)), dtype=np.float32)
            m /= np.linalg.norm(m, axis=1, keepdims=True).clip(1e-9)
            q /= np.linalg.norm(q, axis=1, keepdims=True).clip(1e-9)
            cosines = [dict(zip(ids, row.tolist())) for row in q @ m.T]
        return [self.map(q, c, cos) for q, c, cos in zip(questions, contexts, cosines)]

    def map(self, question: str, context: str = "", cosine: dict[str, float] | None = None,
            loosely: bool = False) -> Mapping:
        if cosine:
            return map_question(self.catalogue, question, self.quoted(f"{question} {context}"), cosine, context,
                                loosely)
        key = (question, context, loosely)
        if key not in self._cache:
            if len(self._cache) >= CACHE_SIZE:
                self._cache.clear()
            self._cache[key] = map_question(self.catalogue, question, self.quoted(f"{question} {context}"), {},
                                            context, loosely)
        return self._cache[key]


def specific_requirements(cat: Catalogue, concept: str) -> list[str]:
    """Per framework, the requirement(s) naming `concept` with the fewest other concepts (E1-6 44(a)
    rather than E1-6), in catalogue order."""
    best: dict[str, list[Requirement]] = {}
    for r in cat.by_concept(concept):
        key = f"{r.framework} {r.year}" if r.year else r.framework
        have = best.get(key)
        if not have or len(r.concepts) < len(have[0].concepts):
            best[key] = [r]
        elif len(r.concepts) == len(have[0].concepts):
            have.append(r)
    return [r.id for group in best.values() for r in group]


# ------------------------------------------------------------------------------ quoted codes

_PARA = re.compile(r"\b(paragraphs?|paras?\.?|disclosure requirement|disclosure|dr)\s+|§\s*")


def normalise_code_text(text: str) -> str:
    t = str(text or "").lower().replace("&", " and ").replace("–", "-")
    t = _PARA.sub(" ", t)
    return " ".join(t.split())


def code_pattern(req: Requirement) -> re.Pattern:
    code = normalise_code_text(req.code)
    body = ""
    for part in re.split(r"(\([a-z0-9]+\))", code):
        if re.fullmatch(r"\([a-z0-9]+\)", part):
            body += r"\s?\(?" + re.escape(part[1:-1]) + r"\)?"
        elif part:
            body += re.escape(part).replace(r"\ ", r"\s?")
    return re.compile(r"(?<![\w.-])" + body + r"(?![a-z0-9]|\.\d|-[a-z0-9])")


def quoted_requirements(quotes: list[tuple[Requirement, re.Pattern]], text: str) -> list[Requirement]:
    """The requirements whose code `text` quotes, the longest code of each framework only."""
    t = normalise_code_text(text)
    found = []
    for req, pattern in quotes:
        if not (pattern.search(t) or any(a.search(t) for a in req.aliases)):
            continue
        if req.context and not re.search(req.context, t, re.IGNORECASE):
            continue
        found.append(req)
    codes = {(r.framework, normalise_code_text(r.code)) for r in found}
    return [r for r in found
            if not any(f == r.framework and c != normalise_code_text(r.code)
                       and c.startswith(normalise_code_text(r.code)) for f, c in codes)]


# ------------------------------------------------------------------------------ the mapping


def rule_score(concept: Concept, text: str, labels: dict[str, frozenset[str]], quoted: bool,
               context: str = "", words: Sequence[str] | None = None) -> float:
    """0 when the concept is not proposed; else about 0.5-1. A telling label both name (market-based,
    financed, net-zero) counts most: it is what sets a concept apart from its siblings. `words`: the
    text's stems when its patterns may also match in any word order (a translated row: loose.py)."""
    if conflicts(labels, concept.labels):
        return 0.0
    if (not quoted and not (concept.needs_any and concept.needs_any.search(text))
            and not names_scope(concept, labels) and not (words and loose.any_matches(concept.needs, words))):
        return 0.0
    if (not quoted and concept.within_any and not concept.within_any.search(f"{text} {context}")
            and not (words and loose.any_matches(concept.within, words))):
        return 0.0
    hits = sum(1 for p in concept.cues if p.search(text) or (words and loose.matches(p, words)))
    agree = [name for name, label in concept.labels if label in labels.get(name, ()) and name not in VETO_ONLY]
    telling = sum(1 for name in agree if name in SPECIFIC)
    score = (0.5 + 0.08 * min(hits, 4) + 0.06 * min(len(agree) - telling, 3) + 0.15 * telling
             - 0.1 * unmatched(labels, concept.labels))
    if ("scope", "total") in concept.labels and "total" in labels.get("scope", ()):
        score += 0.05  # "the combined total of Scope 1, 2 and 3" asks for the total before its parts
    if quoted:
        score = max(score, 0.8) + 0.2
    return max(0.0, min(1.0, score))


def names_scope(concept: Concept, labels: dict[str, frozenset[str]]) -> bool:
    """A question listing scopes ("Scope 1, 2 and 3 emissions") names each one's concept, though only
    the first is written out with its word."""
    return (any(name == "scope" and label in labels.get("scope", ()) for name, label in concept.labels)
            and not any(name == "scope3" for name, _ in concept.labels))  # financed: a part of Scope 3


def map_question(cat: Catalogue, question: str, quoted: Sequence[Requirement] = (),
                 cosine: dict[str, float] | None = None, context: str = "", loosely: bool = False) -> Mapping:
    """`loosely`: the catalogue's phrases also match in any word order (the English words of a row in
    another language: loose.py)."""
    text = without_negations(question)
    words = loose.text_stems(text) if loosely else None
    context = " ".join(str(context or "").lower().split())
    labels = question_labels(text)
    by_quote: dict[str, str] = {}
    for r in quoted:
        for c in r.concepts:
            by_quote.setdefault(c, r.id)
    # A quoted requirement naming one concept is that concept; one naming several (E1-6) is narrowed
    # by the wording, so each of its concepts must also pass the contrast veto.
    single = {c for r in quoted if len(r.concepts) == 1 for c in r.concepts}
    scored: list[Match] = []
    for concept in cat.concepts.values():
        if concept.id in single:
            scored.append(Match(concept.id, QUOTED, "quoted", by_quote[concept.id]))
            continue
        is_quoted = concept.id in by_quote
        s = rule_score(concept, text, labels, is_quoted, context, words)
        how = "quoted" if is_quoted else "rules"
        if cosine and concept.id in cosine and not conflicts(labels, concept.labels):
            e = embed_score(cosine[concept.id])
            if s:
                s = min(1.0, s + EMBED_WEIGHT * (e - 0.5))
            elif e >= EMBED_ALONE:
                s, how = 0.5 + 0.3 * (e - EMBED_ALONE) / (1 - EMBED_ALONE), "embedder"
        if s >= MIN_STRENGTH:
            scored.append(Match(concept.id, round(s, 3), how, by_quote.get(concept.id, "")))
    scored.sort(key=lambda m: -m.strength)
    # Every scope a question lists stays, past the usual number of matches.
    kept = scored[:MAX_MATCHES] + [m for m in scored[MAX_MATCHES:]
                                   if names_scope(cat.concepts[m.concept], labels)]
    return Mapping(tuple(kept), tuple(r.id for r in quoted))


EMBED_WEIGHT = 0.1  # the embedder as a tie-breaker between concepts the rules propose
# An embedder score above which a concept no rule proposed is still listed: never (at 0.8 it lowered
# top-1 on both development sets, benchmarks/frameworks_mapping.py --embedder).
EMBED_ALONE = 1.01
COS_LOW, COS_HIGH = 0.25, 0.7  # MiniLM cosines of unrelated and of matching question/description pairs


def embed_score(cos: float) -> float:
    return max(0.0, min(1.0, (cos - COS_LOW) / (COS_HIGH - COS_LOW)))
