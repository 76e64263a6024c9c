"""What `autofill inspect` adds about framework datapoints: the rows' mapping (offline, or with the
configured model's help) and the coverage summary, as text or JSON."""

from __future__ import annotations

from autofill.errors import InputError
from autofill.frameworks.coverage import Coverage, coverage, describe, mapper_for, row_context, to_json
from autofill.frameworks.model_map import map_with_model
from autofill.providers.factory import make_chat
from autofill.frameworks.crosslingual import map_rows

OFFLINE = "offline: quoted codes and wording rules"


def _coverage(settings, rows, with_model: bool) -> tuple[Coverage, str]:
    mapper = mapper_for(settings)
    if not with_model:
        return coverage(settings, rows, mapper), OFFLINE

    chat = make_chat(settings)
    if chat is None:
        raise InputError("--map-with-model needs a model: set llm.provider and its key (autofill config shows them)")

    offline = map_rows(settings, rows, mapper, [row_context(q) for q in rows])
    mapped = [map_with_model(settings, chat, mapper.catalogue, q.question, q.section, m) for q, m in zip(rows, offline)]
    return coverage(settings, rows, mapper, mapped), f"with model {getattr(chat, 'model', '')}"


def datapoints_text(settings, rows, with_model: bool = False) -> str:
    cov, how = _coverage(settings, rows, with_model)
    return describe(mapper_for(settings).catalogue, cov, how)


def datapoints_json(settings, rows, with_model: bool = False) -> dict:
    cov, how = _coverage(settings, rows, with_model)
    return to_json(mapper_for(settings).catalogue, cov, how)
