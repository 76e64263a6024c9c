"""The model's help in mapping a row to datapoints: render `frameworks_map.j2` with the question and the
catalogue's concepts (the offline proposals first), call the chat model, parse the ids it names.

The contrast veto of the offline mapping still holds (a model that answers Scope 2 to a Scope 1
question is overruled), and a reply that cannot be parsed keeps the offline mapping."""

from __future__ import annotations

import logging
from typing import Sequence

from autofill.delimit import untrusted
from autofill.errors import ProviderError
from autofill.frameworks.catalogue import Catalogue
from autofill.frameworks.contrast import conflicts, question_labels
from autofill.frameworks.mapping import Mapping, Match
from autofill.replies import json_values

log = logging.getLogger(__name__)

MODEL_STRENGTH = 0.9  # the first id the model names; each further one a little less
TEMPLATE = "frameworks_map"


def render_prompt(templates_dir, cat: Catalogue, question: str, section: str, offline: Mapping) -> str:
    from autofill.templating import render

    first = [cat.concepts[c] for c in offline.concepts]
    rest = [c for c in cat.concepts.values() if c.id not in offline.concepts]
    candidates = [{"id": c.id, "label": c.label, "description": c.description} for c in first + rest]
    return render(templates_dir, TEMPLATE, question=untrusted(question), section=untrusted(section),
                  candidates=candidates)


def parse_ids(text: str, known: Sequence[str]) -> list[str] | None:
    """The known concept ids the reply names, in its order; None when no JSON list of ids is found."""
    known_set = set(known)
    for value in json_values(text):
        ids = value.get("datapoints") if isinstance(value, dict) else value
        if isinstance(ids, list):
            out = []
            for i in ids:
                i = str(i).strip() if isinstance(i, (str, int)) else ""
                if i in known_set and i not in out:
                    out.append(i)
            return out
    return None


def apply_reply(cat: Catalogue, question: str, offline: Mapping, ids: list[str] | None) -> Mapping:
    if ids is None:
        return offline
    labels = question_labels(question)
    quoted = {m.concept: m for m in offline.matches if m.how == "quoted"}
    matches = [quoted.pop(c) if c in quoted else Match(c, round(MODEL_STRENGTH - 0.05 * n, 3), "model")
               for n, c in enumerate(ids) if not conflicts(labels, cat.concepts[c].labels)]
    # A code the question quotes is kept even when the model leaves it out.
    return Mapping(tuple(matches + list(quoted.values())), offline.quoted)


def map_with_model(settings, chat, cat: Catalogue, question: str, section: str, offline: Mapping) -> Mapping:
    from autofill.providers.base import ChatMessage

    prompt = render_prompt(settings.templates_dir, cat, question, section, offline)
    try:
        reply = chat.complete([ChatMessage("user", prompt)], temperature=0.0, max_tokens=200, json_mode=True)
    except ProviderError as exc:  # a failed call keeps the offline mapping
        log.warning("datapoint mapping: the model call failed (%s); the offline mapping is kept", exc)
        return offline
    return apply_reply(cat, question, offline, parse_ids(reply.text, list(cat.concepts)))
