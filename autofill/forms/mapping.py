"""A form's datapoints put beside framework requirements: a named range the VSME catalogue lists
(`frameworks/data/vsme.toml`, field `datapoints`) gets its VSME requirement, the most specific
requirement of every other framework sharing its concepts (ESRS, IFRS S2, GRI, TCFD, CDP) and the
topical requirements the file names (`also`); any other datapoint is mapped from its label and
section like a questionnaire row (rules only, no model): a form in another language (its `language`, the
template's label language) through its English words too, as a German or French questionnaire row is
(frameworks/crosslingual.py)."""

from __future__ import annotations

import tomllib
from functools import lru_cache
from typing import Any
from importlib import resources

from autofill.forms.model import Datapoint, Form
from autofill.frameworks.coverage import shown
from autofill.frameworks.crosslingual import map_texts
from autofill.frameworks.mapping import specific_requirements
from autofill.frameworks.coverage import mapper_for
from autofill.frameworks.crosslingual import english_words, needs_translation, translator_for


@lru_cache(maxsize=1)
def vsme_index() -> dict[str, tuple[str, tuple[str, ...]]]:
    """Named range -> (VSME requirement code, the `also` requirements), from the shipped vsme.toml."""
    text = (resources.files("autofill.frameworks") / "data" / "vsme.toml").read_text(encoding="utf-8")
    data = tomllib.loads(text)
    out: dict[str, tuple[str, tuple[str, ...]]] = {}
    for req in data.get("requirement", []):
        for name in req.get("datapoints", []):
            out.setdefault(name, (str(req["code"]), tuple(req.get("also", []))))
    return out


def _lookup_name(dp: Datapoint) -> str:
    index = vsme_index()
    if dp.key in index:
        return dp.key
    if dp.base and dp.base in index:
        return dp.base
    return ""


def label_question(dp: Datapoint, gate_label: str = "") -> str:
    """What a datapoint mapped from its label asks: its label without the column it was suffixed with,
    and the question of the boolean that opens it (`gate_label`: what a breakdown row is about)."""
    question = dp.label[: -len(dp.column) - 3] if dp.column and dp.label.endswith(" - " + dp.column) else dp.label
    return f"{question}: {gate_label}" if gate_label else question


def label_context(dp: Datapoint) -> str:
    return " ".join(x for x in (dp.section, dp.heading) if x)


def datapoint_requirements(cat, mapper, dp: Datapoint, gate_label: str = "", english: str = "",
                           language: str = "") -> list[str]:
    """The requirement ids a datapoint corresponds to, VSME first; `gate_label`: the question of the
    boolean that opens it (what a breakdown row is about); `english`: the label question in English words
    for a form in another language (crosslingual.english_words), "" for an English form; `language`: the
    form's (its negated asides left out of the label's own mapping)."""

    name = _lookup_name(dp)
    out: list[str] = []
    if name:
        code, also = vsme_index()[name]
        req_id = f"VSME {code}"
        req = cat.requirements.get(req_id)
        if req is not None:
            out.append(req_id)
            for concept in req.concepts:
                out += [r for r in specific_requirements(cat, concept) if not r.startswith("VSME ")]
        out += list(also)
    elif dp.label:
        (mapping,) = map_texts(mapper, [label_question(dp, gate_label)], [label_context(dp)], [english],
                               [language] if language else [])
        for m in shown(mapping):
            out += specific_requirements(cat, m.concept)
    return list(dict.fromkeys(out))


def form_mapping(settings, form: Form, translator: Any = "settings") -> dict[str, list[str]]:
    """Datapoint key -> requirement ids, for the datapoints that map; `translator`: what a form in another
    language is put into English words with (crosslingual.translator_for the settings unless given)."""

    mapper = mapper_for(settings)
    cat = mapper.catalogue
    out = {}
    labels = {dp.key: dp.label for dp in form.datapoints}
    gates = {dp.key: labels.get(dp.gate.key, "") if dp.gate else "" for dp in form.datapoints}
    english = dict.fromkeys(gates, "")
    if needs_translation(form.language):
        if translator == "settings":
            translator = translator_for(settings)
        todo = [dp for dp in form.datapoints if dp.label and not _lookup_name(dp)]
        words = english_words([(form.language, label_question(dp, gates[dp.key])) for dp in todo], translator)
        english.update({dp.key: w for dp, w in zip(todo, words)})
    for dp in form.datapoints:
        reqs = datapoint_requirements(cat, mapper, dp, gates[dp.key], english[dp.key], form.language or "")
        if reqs:
            out[dp.key] = reqs
    return out
