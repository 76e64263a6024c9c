"""`autofill config`: every setting in effect, where each came from, and what it resolves to.

Like `git config --list --show-origin`: one line per setting, `origin  section.key=value`, the origin
being `default`, `file:<workspace>/autofill.toml`, `--config:<file>`, `env:<VARIABLE>` or
`flag:<option>` (recorded by settings.load_settings as it applies each layer: settings.origins).
Keys are never shown: a secret prints as its last four characters at most, and a URL loses its user
and password and the values of its query (autofill/redact.py). Then the choices a run would make from
them (`resolved_choices`: the resolved plan, autofill/plan.py, with where each setting came from) and
the price that applies (or why the cost would be unknown, providers/cost.py). Pure functions of the
Settings; the CLI prints them."""

from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from autofill.plan import resolve_plan
from autofill.providers.cost import chat_endpoint, listed_price, pricing_for
from autofill.redact import mask_secret, safe_url
from autofill.run_identity import answer_settings, changes_answers, declare
from autofill.settings import SECTIONS, Secret, Settings

@dataclass(frozen=True)
class SettingLine:
    key: str  # "llm.model", "cost.prices.gpt-4o-mini"
    value: str  # as printed: masked when secret
    origin: str  # "default", "autofill.toml", "--config", "environment", "flag"
    source: str = ""  # the file, variable or option it came from

    @property
    def label(self) -> str:
        """The origin column, git style: default, file:PATH, --config:PATH, env:NAME, flag:OPTION."""
        prefix = {"autofill.toml": "file", "environment": "env"}.get(self.origin, self.origin)
        return self.origin if self.origin == "default" else f"{prefix}:{self.source}"

    def to_json(self) -> dict[str, Any]:
        name = ".".join(self.key.split(".")[:2])  # a price's line ("cost.prices.gpt-4o-mini") is its setting's
        return {"key": self.key, "value": self.value, "origin": self.origin, "source": self.source or None,
                "changes_answers": changes_answers(name)}


def show_value(key: str, value: Any) -> str:
    """A setting's value as printed: secrets masked, URLs cleaned, the rest as TOML would write it."""
    name = key.rsplit(".", 1)[-1]
    if isinstance(value, Secret) or name.endswith("api_key") or name.endswith("_key"):
        return mask_secret(str(value))
    if isinstance(value, str):
        return safe_url(value) if name.endswith("url") else value
    if isinstance(value, (bool, int, float, list, dict)):
        return json.dumps(value)
    return str(value)


def setting_lines(settings: Settings) -> list[SettingLine]:
    """Every setting of every section, in the order the sections and fields are declared; each price
    of cost.prices on its own line (it has its own origin)."""
    origins: Mapping[str, tuple[str, str]] = settings.origins
    lines = []
    for section in SECTIONS:
        for f in dataclasses.fields(getattr(settings, section)):
            key = f"{section}.{f.name}"
            value = getattr(getattr(settings, section), f.name)
            if isinstance(value, dict) and value:
                for name, item in value.items():
                    leaf = f"{key}.{name}"
                    origin, source = origins.get(leaf, ("default", ""))
                    lines.append(SettingLine(leaf, show_value(leaf, item), origin, source))
                continue
            origin, source = origins.get(key, ("default", ""))
            lines.append(SettingLine(key, show_value(key, value), origin, source))
    return lines


def workspace_line(settings: Settings, explicit: Path | str | None,
                   environ: Mapping[str, str] | None = None) -> SettingLine:
    """Where the workspace came from: --workspace, $AUTOFILL_WORKSPACE, found upwards from here (the
    folder with autofill.toml or vectordb/), or the current folder (settings.discover_workspace)."""
    environ = os.environ if environ is None else environ
    where = str(settings.workspace)
    if explicit:
        return SettingLine("workspace", where, "flag", "--workspace")
    if environ.get("AUTOFILL_WORKSPACE"):
        return SettingLine("workspace", where, "environment", "AUTOFILL_WORKSPACE")
    for marker in ("autofill.toml", "vectordb"):
        if (settings.workspace / marker).exists():
            return SettingLine("workspace", where, "found", marker)
    return SettingLine("workspace", where, "default", "")


# The setting behind each row of the plan, to name where it came from when the plan gives no other reason.
PLAN_SETTINGS = {"model": "llm.model", "retrieval": "retrieval.mode", "reranker": "retrieval.reranker",
                 "second stage": "retrieval.second_stage",
                 "embedder": "embedding.provider", "multi-query": "retrieval.multi_query",
                 "content index": "retrieval.content_index", "multilingual index": "retrieval.multilingual_index",
                 "query translation": "retrieval.translate_queries", "query centring": "retrieval.centre_queries"}


def resolved_choices(settings: Settings) -> list[tuple[str, str, str]]:
    """(choice, value, why) for what a run with these settings uses: the resolved plan's rows
    (autofill/plan.py `Plan.describe`: model, endpoint host, retrieval, reranker, embedder, multi-query, content index),
    each setting given as it is named with where it came from, then the price that applies."""
    plan = resolve_plan(settings)
    out = []
    for name, value, why in plan.describe():
        key = PLAN_SETTINGS.get(name, "")
        if key and key in settings.origins:  # given: say where (the plan says why when it chose)
            why = "; ".join(w for w in (why, _set_by(settings, key)) if w)
        if name == "endpoint" and plan.has_model and not chat_endpoint(settings)[1]:
            why = "not the provider's own endpoint: its list prices do not apply"
        out.append((name, value, why))
    if plan.has_model:
        pricing = pricing_for(settings)
        price = pricing.price(plan.model)
        if price is None:
            out.append(("price", "unknown", pricing.unknown_reason([plan.model])))
        else:
            mine = [k for k, v in settings.cost.prices.items() if listed_price({k: v}, plan.model) is not None]
            why = _set_by(settings, f"cost.prices.{max(mine, key=len)}") if mine else "the provider's list price"
            out.append(("price", f"${price[0]:g} in, ${price[1]:g} out per million tokens", why))
    else:
        out.append(("price", "nothing to pay", "no model: rows are evidence-only drafts"))
    out.append(run_identity_row(settings, plan))
    out += search_rows(settings, plan)
    return out


SEARCHES_WHY = {"searches": "a row in its reports' language, fused in this order (retrieval.mode, query_parts, "
                            "keyword_weight, multi_query)",
                "searches across languages": "a row searched with the multilingual index (retrieval."
                                             "multilingual_index, translate_queries, centre_queries; terms: a row "
                                             "naming known terms)"}


def search_rows(settings: Settings, plan: Any) -> list[tuple[str, str, str]]:
    """One row a search of the first stage (search/searches.py, run_identity.DeclaredRun.searches):
    "search 1" ... for a row in its reports' language, "search 1 across languages" ... with the
    multilingual index; the first of each list says which rows it is for."""
    out = []
    for name, searches in declare(settings, plan).searches():
        suffix = "" if name == "searches" else " across languages"
        out += [(f"search {i}{suffix}", s.line(), SEARCHES_WHY[name] if i == 1 else "")
                for i, s in enumerate(searches, start=1)]
    return out


def run_identity_row(settings: Settings, plan: Any) -> tuple[str, str, str]:
    """The declared run's key (autofill/run_identity.py: what a run's checkpoint and batch's key are made
    of, less the store's documents): two settings files that give the same key give the same answers."""
    n = len(answer_settings(settings))
    return ("run identity", declare(settings, plan).key()[:12],
            f"changes with any of the {n} settings that change answers, the model or the prompts")


def _set_by(settings: Settings, key: str) -> str:
    """"llm.model from env:AUTOFILL_LLM__MODEL": the setting that decided, and where it was set."""
    origin, source = settings.origins.get(key, ("default", ""))
    return key if origin == "default" else f"{key} from {SettingLine(key, '', origin, source).label}"


def config_json(lines: list[SettingLine], choices: list[tuple[str, str, str]]) -> dict[str, Any]:
    return {"settings": [line.to_json() for line in lines],
            "resolved": {name: {"value": value, "why": why} for name, value, why in choices}}


def config_text(lines: list[SettingLine], choices: list[tuple[str, str, str]]) -> str:
    width = max(len(line.label) for line in lines)
    out = [f"{line.label:<{width}}  {line.key}={line.value}" for line in lines]
    out.append("")
    out.append("In effect:")
    name_width = max(len(name) for name, _, _ in choices)
    out += [f"  {name:<{name_width}}  {value}" + (f"  ({why})" if why else "") for name, value, why in choices]
    return "\n".join(out)
