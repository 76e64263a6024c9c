"""The datapoint catalogue: what climate questions ask for (concepts) and where each framework asks for
it (requirements, numbered as the framework numbers them), read from the TOML files shipped in
`autofill/frameworks/data/` and, merged in, any `<workspace>/frameworks/*.toml` (a team's own
framework or a customer's question codes, in the same format).

A requirement names the concepts it covers; two requirements of different frameworks that share a
concept are crosswalked (E1-6 44(a) = GRI 305-1 = IFRS S2 29(a)(i)(1): all `ghg.scope1`). The crosswalk
is therefore symmetric by construction, and `relation` says whether two requirements ask for the same
concepts, one within the other, or overlap.

Bad files fail with one line naming the file and what is wrong (InputError, exit 2)."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path

from autofill import value_types as vt
from autofill.errors import InputError
from autofill.frameworks.contrast import KNOWN_SETS

FORMS = ("figure", "yes/no", "narrative", "list")
DATA_FILES = ("concepts.toml", "topics.toml", "esrs.toml", "esrs_topics.toml", "ifrs_s2.toml", "gri.toml",
              "gri_topics.toml", "tcfd.toml", "cdp.toml", "cdp_water.toml", "vsme.toml")
WORKSPACE_FOLDER = "frameworks"
# What each key of a file must be (value_types.py): a key of another type, or one not listed, is refused
# in one line naming the file, the entry and the key, before any pattern is compiled.
FILE_KEYS = {"concept": vt.TABLES, "requirement": vt.TABLES, "framework": vt.TABLE}
FRAMEWORK_KEYS = {"id": vt.TEXT, "name": vt.TEXT, "context": vt.TEXT}
CONCEPT_KEYS = {"id": vt.TEXT, "label": vt.TEXT, "form": vt.TEXT, "description": vt.TEXT, "unit": vt.TEXT,
                "cues": vt.TEXTS, "needs": vt.TEXTS, "within": vt.TEXTS, "labels": vt.TEXT_TABLE}
REQUIREMENT_KEYS = {"code": vt.TEXT_OR_NUMBER, "year": vt.INTEGER, "description": vt.TEXT, "concepts": vt.TEXT_LIST,
                    "form": vt.TEXT, "context": vt.TEXT, "aliases": vt.TEXTS,
                    "datapoints": vt.TEXT_LIST, "also": vt.TEXT_LIST}  # a form's named ranges and the requirements outside the catalogue it answers too (vsme.toml; forms/mapping.py)


@dataclass(frozen=True)
class Concept:
    id: str
    label: str
    form: str
    description: str
    unit: str = ""
    cues: tuple[re.Pattern, ...] = ()
    needs: tuple[re.Pattern, ...] = ()
    within: tuple[re.Pattern, ...] = ()  # one must be in the question or its section (climate context)
    labels: tuple[tuple[str, str], ...] = ()  # (contrast set, label)
    needs_any: re.Pattern | None = None  # `needs` as one pattern (the mapper's first test of every concept)
    within_any: re.Pattern | None = None

    @property
    def text(self) -> str:
        """What the embedder compares a question with."""
        return f"{self.label}. {self.description}"


@dataclass(frozen=True)
class Requirement:
    framework: str
    code: str
    description: str
    concepts: tuple[str, ...]
    year: int = 0
    form: str = ""  # empty: the form of its first concept
    context: str = ""  # a pattern the question must also contain for a quoted code to count
    aliases: tuple[re.Pattern, ...] = ()
    source: str = ""  # the file it came from

    @property
    def id(self) -> str:
        return f"{self.framework} {self.year} {self.code}" if self.year else f"{self.framework} {self.code}"


@dataclass(frozen=True)
class Framework:
    id: str
    name: str
    context: str = ""


@dataclass
class Catalogue:
    concepts: dict[str, Concept] = field(default_factory=dict)
    requirements: dict[str, Requirement] = field(default_factory=dict)
    frameworks: dict[str, Framework] = field(default_factory=dict)

    def by_concept(self, concept: str) -> list[Requirement]:
        return [r for r in self.requirements.values() if concept in r.concepts]

    def of_framework(self, framework: str) -> list[Requirement]:
        return [r for r in self.requirements.values() if r.framework == framework]

    def form(self, req: Requirement) -> str:
        return req.form or self.concepts[req.concepts[0]].form

    def crosswalk(self, req_id: str) -> list[tuple[str, str]]:
        """(requirement id, relation) for every requirement of another framework sharing a concept with
        `req_id`; relation is "same", "within" (it asks for part of what req_id asks), "covers" or
        "overlaps"."""
        req = self.requirements[req_id]
        mine = set(req.concepts)
        out = []
        for other in self.requirements.values():
            if other.framework == req.framework or not mine & set(other.concepts):
                continue
            out.append((other.id, relation(mine, set(other.concepts))))
        return out


def relation(mine: set[str], theirs: set[str]) -> str:
    if mine == theirs:
        return "same"
    if theirs < mine:
        return "within"
    if mine < theirs:
        return "covers"
    return "overlaps"


def _compile(patterns, where: str) -> tuple[re.Pattern, ...]:
    if isinstance(patterns, str):
        patterns = [patterns]
    out = []
    for p in patterns or ():
        try:
            out.append(re.compile(str(p), re.IGNORECASE))
        except re.error as exc:
            raise InputError(f"{where}: pattern {p!r} is not a valid regular expression ({exc})") from None
    return tuple(out)


def _either(patterns) -> re.Pattern | None:
    """Patterns already checked one by one (`_compile`), as one alternation."""
    patterns = [patterns] if isinstance(patterns, str) else list(patterns or ())
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE) if patterns else None


def _text(entry: dict, key: str, where: str, required: bool = True) -> str:
    value = entry.get(key, "")
    if not isinstance(value, (str, int)) or (required and not str(value).strip()):
        raise InputError(f"{where}: {key!r} is missing or not text")
    return str(value).strip()


def _concept(entry: dict, where: str) -> Concept:
    cid = _text(entry, "id", where)
    where = f"{where}: concept {cid!r}"
    vt.check_keys(entry, CONCEPT_KEYS, where, "a [[concept]]")
    form = _text(entry, "form", where)
    if form not in FORMS:
        raise InputError(f"{where}: form {form!r} is not one of {', '.join(FORMS)}")
    labels = entry.get("labels", {}) or {}
    if not isinstance(labels, dict):
        raise InputError(f"{where}: labels must be a table such as {{ scope = \"1\" }}")
    unknown = sorted(set(labels) - KNOWN_SETS)
    if unknown:
        raise InputError(f"{where}: label set {unknown[0]!r} is not one the mapper knows "
                         f"({', '.join(sorted(KNOWN_SETS))})")
    return Concept(id=cid, label=_text(entry, "label", where), form=form,
                   description=_text(entry, "description", where), unit=_text(entry, "unit", where, False),
                   cues=_compile(entry.get("cues"), where), needs=_compile(entry.get("needs"), where),
                   within=_compile(entry.get("within"), where),
                   needs_any=_either(entry.get("needs")), within_any=_either(entry.get("within")),
                   labels=tuple(sorted((str(k), str(v).lower()) for k, v in labels.items())))


def _requirement(entry: dict, framework: Framework, where: str, source: str) -> Requirement:
    code = _text(entry, "code", where)
    where = f"{where}: requirement {framework.id} {code!r}"
    vt.check_keys(entry, REQUIREMENT_KEYS, where, "a [[requirement]]")
    concepts = entry.get("concepts")
    if not isinstance(concepts, list) or not concepts or not all(isinstance(c, str) for c in concepts):
        raise InputError(f"{where}: concepts must be a non-empty list of concept ids")
    form = _text(entry, "form", where, False)
    if form and form not in FORMS:
        raise InputError(f"{where}: form {form!r} is not one of {', '.join(FORMS)}")
    year = entry.get("year", 0)
    if not isinstance(year, int):
        raise InputError(f"{where}: year must be a number such as 2023")
    context = _text(entry, "context", where, False) or framework.context
    _compile(context, where)
    return Requirement(framework=framework.id, code=code, description=_text(entry, "description", where),
                       concepts=tuple(concepts), year=year, form=form, context=context,
                       aliases=_compile(entry.get("aliases"), where), source=source)


def merge_text(cat: Catalogue, text: str, name: str) -> None:
    """Add the concepts, framework and requirements of one TOML file to `cat` (checked afterwards by
    `validate`)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{name}: not valid TOML ({exc})") from None
    vt.check_keys(data, FILE_KEYS, name, "the file")
    for entry in data.get("concept", []):
        c = _concept(entry, name)
        if c.id in cat.concepts:
            raise InputError(f"{name}: concept {c.id!r} is defined twice")
        cat.concepts[c.id] = c
    reqs = data.get("requirement", [])
    if not reqs:
        return
    fw_entry = data.get("framework")
    if not isinstance(fw_entry, dict):
        raise InputError(f"{name}: requirements need a [framework] table with its id")
    vt.check_keys(fw_entry, FRAMEWORK_KEYS, name, "[framework]")
    fid = _text(fw_entry, "id", name)
    framework = cat.frameworks.get(fid) or Framework(fid, _text(fw_entry, "name", name, False) or fid,
                                                     _text(fw_entry, "context", name, False))
    cat.frameworks.setdefault(fid, framework)
    for entry in reqs:
        r = _requirement(entry, framework, name, name)
        if r.id in cat.requirements:
            raise InputError(f"{name}: requirement {r.id!r} is already defined"
                             f" (in {cat.requirements[r.id].source})")
        cat.requirements[r.id] = r


def validate(cat: Catalogue) -> None:
    for r in cat.requirements.values():
        unknown = [c for c in r.concepts if c not in cat.concepts]
        if unknown:
            raise InputError(f"{r.source}: requirement {r.id!r} names unknown concept {unknown[0]!r}; "
                             f"the concepts are listed in autofill/frameworks/data/concepts.toml")


@lru_cache(maxsize=1)
def _builtin_texts() -> tuple[tuple[str, str], ...]:
    folder = resources.files("autofill.frameworks") / "data"
    return tuple((name, (folder / name).read_text(encoding="utf-8")) for name in DATA_FILES)


def workspace_files(workspace: Path | None) -> list[Path]:
    if workspace is None:
        return []
    folder = Path(workspace) / WORKSPACE_FOLDER
    return sorted(folder.glob("*.toml")) if folder.is_dir() else []


def _build(extra: tuple[tuple[str, str], ...]) -> Catalogue:
    cat = Catalogue()
    for name, text in _builtin_texts() + extra:
        merge_text(cat, text, name)
    validate(cat)
    return cat


@lru_cache(maxsize=8)
def _cached(extra: tuple[tuple[str, str], ...]) -> Catalogue:
    return _build(extra)


def load_catalogue(workspace: Path | None = None) -> Catalogue:
    """The shipped catalogue with the workspace's `frameworks/*.toml` merged in (cached by content)."""
    extra = []
    for path in workspace_files(workspace):
        try:
            extra.append((str(path), path.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"{path}: cannot be read ({exc})") from None
    return _cached(tuple(extra))
