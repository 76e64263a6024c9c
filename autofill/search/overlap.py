"""The words two texts share, as the offline steps count them: a text's terms (lower case, stop words
and questionnaire instructions dropped, stemmed as the BM25 index stems, single digits kept so "Scope 1"
is not "Scope 3") and the weights of a row's parts (the question counts fully; form of answer and
explanation less, being long and full of generic instructions). Used by the evidence-only draft's quote
choice (answer/evidence_only.py) and the second stage's page signal (search/second_stage.py)."""

from __future__ import annotations

import re

from autofill.records import QuestionRow
from autofill.store.bm25_index import english_stemmer  # the BM25 index's stemmer: same terms

QUESTION_WEIGHT, CONTEXT_WEIGHT = 1.0, 0.4

_WORD = re.compile(r"[a-z0-9]+(?:[.,][0-9]+)*")
_STOPWORDS = frozenset("""
a about above after again against all also am an and any are as at be because been before being below
between both but by can could did do does doing down during each either few for from further had has have
having he her here hers how i if in into is it its itself just may me might more most must my no nor not of
off on once only or other our ours out over own same she should so some such than that the their theirs
them then there these they this those through to too under until up very was we were what when where which
while who whom why will with would you your yours company company's state states describe please provide
answer answers question whether e.g. eg etc short explanation yes no
""".split())


def terms(text: str) -> list[str]:
    # Single digits stay: "Scope 1" and "Scope 3" must not look alike.
    words = [w for w in _WORD.findall(text.lower()) if w not in _STOPWORDS and (len(w) > 1 or w.isdigit())]
    return english_stemmer().stemWords(words)


def term_weights(row: QuestionRow) -> dict[str, float]:
    """The row's search terms: the question's count fully, form of answer's and explanation's less."""
    weights: dict[str, float] = {}
    for term in terms(f"{row.form_of_answer} {row.explanation}"):
        weights[term] = max(weights.get(term, 0.0), CONTEXT_WEIGHT)
    for term in terms(row.question):
        weights[term] = QUESTION_WEIGHT
    return weights
