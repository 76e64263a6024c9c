"""The model's help in mapping a row to datapoints: render `frameworks_map.j2` with the question and the
catalogue's concepts (the offline proposals first), call the chat model, parse the ids it names.

The contrast veto of the offline mapping still holds (a model that answers Scope 2 to a Scope 1
question is overruled), and a reply that cannot be parsed keeps the offline mapping.

Used by `inspect --map-with-model` (every row) and by `run` with `run.map_with_model = true` and a model
(`tag_unsure_rows`: only the rows the rules leave unsure)."""

from __future__ import annotations

import logging
from typing import Sequence

from autofill.delimit import untrusted
from autofill.errors import ProviderError
from autofill.frameworks.catalogue import Catalogue
from autofill.frameworks.contrast import conflicts, question_labels
from autofill.frameworks.mapping import Mapping, Match
from autofill.replies import json_values
from autofill.providers.base import ChatMessage
from autofill.frameworks.coverage import SHOWN, cell_text, mapper_for, row_context
from autofill.frameworks.crosslingual import map_rows

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


def map_with_model(settings, chat, cat: Catalogue, question: str, section: str, offline: Mapping,
                   meter=None) -> Mapping:
    """The model's pick among the catalogue's concepts (the offline proposals first); `meter` (a run's
    providers/cost.UsageMeter) records the call under the stage "datapoints"."""

    prompt = render_prompt(settings.templates_dir, cat, question, section, offline)
    try:
        reply = chat.complete([ChatMessage("user", prompt)], temperature=0.0, max_tokens=200, json_mode=True)
    except ProviderError as exc:  # a failed call keeps the offline mapping
        log.warning("datapoint mapping: the model call failed (%s); the offline mapping is kept", exc)
        return offline
    if meter is not None:
        meter.record(STAGE, reply)
    return apply_reply(cat, question, offline, parse_ids(reply.text, list(cat.concepts)))


STAGE = "datapoints"
# The rules leave a row unsure when none of its concepts reaches the strength the workbook cell shows
# (coverage.SHOWN), or when its first two concepts are this close; a quoted code is never unsure.
UNSURE_MARGIN = 0.05


def unsure(mapping: Mapping, shown: float) -> bool:
    matches = mapping.matches
    if any(m.how == "quoted" for m in matches):
        return False
    if not matches or matches[0].strength < shown:
        return True
    return len(matches) > 1 and matches[0].strength - matches[1].strength < UNSURE_MARGIN


def tag_unsure_rows(settings, chat, rows, meter=None) -> int:
    """`run` with `run.map_with_model` and a model: the rows the rules leave unsure (`unsure`) mapped again
    with the model's help, their `Framework datapoints` cell rewritten (one call a row, recorded under the
    stage "datapoints"). Returns how many rows were asked about."""

    if chat is None or not rows:
        return 0
    mapper = mapper_for(settings)
    asked = 0
    for q, offline in zip(rows, map_rows(settings, rows, mapper, [row_context(q) for q in rows])):
        if not str(q.question or "").strip() or not unsure(offline, SHOWN):
            continue
        asked += 1
        mapped = map_with_model(settings, chat, mapper.catalogue, q.question, q.section, offline, meter)
        q.datapoints = cell_text(mapper.catalogue, mapped)
    return asked
