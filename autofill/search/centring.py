"""Questions searched across languages relative to their questionnaire (issue 33).

multilingual-e5-small puts every question of a German questionnaire near every other: what they share
(their language, a questionnaire's wording, "Form of answer") weighs as much as what each asks, and
English passages sit apart from all of them. Centring takes the shared part out: each of the
questionnaire's search texts minus the mean of its kind (the rows' texts, and their English
translations: translation/translator.py; the question alone, which `retrieval.query_parts = "both"` also
searches, is searched plainly, as measured), and the index's passages minus theirs
(store/multilingual.MultilingualIndex.centred_query), so that what is left is what this question asks
and what this passage says. The centred list is fused with the plain one (reciprocal rank fusion,
`retrieval.rrf_k`): a row keeps what the plain search found and gains what only the centred one finds.

A questionnaire whose rows are in several languages is centred language by language (`language_kinds`).
It needs a questionnaire: fewer than `MIN_ROWS` rows across languages (`ask`'s one question) are
searched plainly, since a mean of a few rows is mostly the row itself. A run, batch, eval and a
review's re-answer all centre on the whole questionnaire's rows (answer/opening.OpenedRun.centre_on),
so a row re-answered alone is searched as it was in its run. Texts not of the questionnaire (a HyDE
passage, multi-query's rewrites) are searched plainly. Measured in README, "Other languages".

`centre_of` is pure given the embedding function; `CentredSearch` is the multilingual index seen through
a centre."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

from autofill.records import Passage
from autofill.search.retrieval import dense_list, fuse

# Below this many rows across languages a questionnaire is not centred (see the module docstring).
MIN_ROWS = 5


@dataclass(frozen=True)
class Centre:
    """The mean vector each of the questionnaire's search texts is centred on, by text."""

    means: Mapping[str, Any]

    def mean_for(self, text: str) -> Any:
        return self.means.get(text)

    def __bool__(self) -> bool:
        return bool(self.means)


def centre_of(kinds: Iterable[Sequence[str]], embed: Callable[[str], Sequence[float]]) -> Centre:
    """Each kind's texts (one text per row, in row order: the rows' texts, their translations) mapped to
    the mean of that kind's vectors; a kind with fewer than MIN_ROWS texts is
    left out. A text found in two kinds keeps the first kind's mean."""
    import numpy as np

    means: dict[str, Any] = {}
    for texts in kinds:
        texts = [t for t in texts if t.strip()]
        if len(texts) < MIN_ROWS:
            continue
        mean = np.mean(np.asarray([embed(t) for t in texts], dtype=np.float32), axis=0)
        for text in texts:
            means.setdefault(text, mean)
    return Centre(means)


def language_kinds(languages: Sequence[str], texts: Sequence[str], translations: Sequence[str]) -> list[list[str]]:
    """The kinds `centre_of` takes for rows whose languages are `languages` (one per row, as `texts` and
    `translations`): per language, in first-seen order, its rows' texts, then their translations. A
    questionnaire whose rows are in several languages (language.row_languages) is centred within each
    language's rows, as a one-language questionnaire of those rows is (issue 43): a mean over Spanish and
    Italian rows together would centre each on the other language. One language: [texts, translations],
    as before. Pure."""
    kinds: list[list[str]] = []
    for language in dict.fromkeys(languages):
        rows = [i for i, code in enumerate(languages) if code == language]
        kinds += [[texts[i] for i in rows], [translations[i] for i in rows]]
    return kinds


class CentredSearch:
    """The multilingual index (store/multilingual.MultilingualIndex) searched with a questionnaire's
    centre: `search_text` fuses the plain and the centred dense lists of a text the centre knows, and
    is the plain search for any other; everything else is the index's."""

    def __init__(self, index: Any, centre: Centre, rrf_k: int) -> None:
        self.index, self.centre, self.rrf_k = index, centre, rrf_k

    def search_text(self, text: str, embedder: Any, n: int) -> list[Passage]:
        """The `n` best passages for `text`, as search/retrieval's dense search gives them."""
        import numpy as np


        vector = np.asarray(embedder.embed_query(text), dtype=np.float32)
        plain = dense_list(self.index.query, vector, n)
        mean = self.centre.mean_for(text)
        if mean is None:  # not one of the questionnaire's texts
            return plain
        centred = vector - mean
        norm = float(np.linalg.norm(centred))
        if norm == 0.0:
            return plain
        return fuse([plain, dense_list(self.index.centred_query, centred / norm, n)], k=self.rrf_k, n=n)

    def __getattr__(self, name: str) -> Any:  # query, bm25_search, get_passages, documents(), embedder...
        return getattr(self.index, name)
