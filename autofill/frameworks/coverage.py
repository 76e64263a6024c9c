"""A questionnaire's rows against the catalogue: each row's datapoints (the `Framework datapoints` cell
the filled workbook carries, and what `autofill inspect` lists) and the coverage summary (which
requirements of each framework the questionnaire asks for, in full or in part, and which rows map to
nothing). Pure apart from reading the workspace's catalogue files."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from autofill.frameworks.catalogue import Catalogue, load_catalogue
from autofill.frameworks.mapping import Mapper, Mapping, specific_requirements
from autofill.frameworks.content_index import load, pointed_pages
from autofill.frameworks.crosslingual import map_rows

CELL_HEADER = "Framework datapoints"
SHOWN = 0.6  # a concept weaker than this is not written into the workbook cell nor counted as covered
_CELL_LINE = re.compile(r"^(?P<label>.+?) \((?P<strength>[01]\.\d\d)(?:, [a-z]+)?\)(?::|$)")


@lru_cache(maxsize=4)
def _mapper(workspace: str) -> Mapper:
    return Mapper(load_catalogue(Path(workspace) if workspace else None))


def default_mapper() -> Mapper:
    """The offline mapper over the shipped catalogue (what the answer library compares questions with)."""
    return _mapper("")


def mapper_for(settings) -> Mapper:
    """The offline mapper with the workspace's own catalogue files merged in (cached per workspace)."""
    return _mapper(str(getattr(settings, "workspace", "") or ""))


def row_context(q) -> str:
    return " ".join(str(x) for x in (getattr(q, "number", ""), getattr(q, "section", "")) if x)


def shown(mapping: Mapping) -> list:
    return [m for m in mapping.matches if m.strength >= SHOWN]


def cell_text(cat: Catalogue, mapping: Mapping) -> str:
    """One line per datapoint: label (strength[, how]): the most specific requirement of each framework."""
    lines = []
    for m in shown(mapping):
        how = "" if m.how == "rules" else f", {m.how}"
        lines.append(f"{cat.concepts[m.concept].label} ({m.strength:.2f}{how}): "
                     + "; ".join(specific_requirements(cat, m.concept)))
    return "\n".join(lines)


def cell_labels(text: str) -> list[str]:
    """The datapoint labels a `Framework datapoints` cell names (for the review page's filter)."""
    out = []
    for line in str(text or "").splitlines():
        m = _CELL_LINE.match(line.strip())
        if m:
            out.append(m.group("label"))
    return out


def tag_rows(settings, rows) -> None:
    """Set each QuestionRow's `datapoints` cell text from the offline mapping (the hook at the end of
    workbook.layout.read_questions); a row in another language through its English words
    (frameworks/crosslingual.py)."""

    mapper = mapper_for(settings)
    for q, mapping in zip(rows, map_rows(settings, rows, mapper, [row_context(q) for q in rows])):
        q.datapoints = cell_text(mapper.catalogue, mapping)


INDEX_LINE = "The report's {frameworks} index points here: {pages}"


class ReportIndex:
    """The content indexes of a company's reports (frameworks/content_index.py), to tell the reviewer which
    pages a row's datapoints are answered on by the report's own account."""

    def __init__(self, settings, collection: str):
        self.settings, self.collection = settings, collection
        self.catalogue = mapper_for(settings).catalogue
        self.data = load(settings, collection) if collection else {}
        self._by_label = {c.label: c.id for c in self.catalogue.concepts.values()}

    def pages(self, cell: str) -> list[tuple[str, int, str]]:
        if not self.data:
            return []
        reqs = [r.id for label in cell_labels(cell) for r in self.catalogue.by_concept(self._by_label.get(label, ""))]
        return pointed_pages(self.settings, self.collection, reqs, self.data)

    def annotate(self, cell: str) -> str:
        """`cell` with a last line naming the pages the report's index points to ("" stays "")."""
        cell = "\n".join(l for l in str(cell or "").splitlines() if not l.startswith("The report's "))
        found = self.pages(cell)
        if not found:
            return cell
        frameworks = sorted({rid.split(" ")[0] for _, _, rid in found})
        by_file: dict[str, list[str]] = {}
        for f, p, _ in found:
            if str(p) not in by_file.setdefault(f, []):
                by_file[f].append(str(p))
        pages = "; ".join(f"{f} p. {', '.join(ps)}" for f, ps in by_file.items())
        return cell + "\n" + INDEX_LINE.format(frameworks="/".join(frameworks), pages=pages)


@dataclass
class Coverage:
    rows: list[tuple[object, Mapping]]  # (QuestionRow, mapping) in sheet order
    asked: dict[str, set[str]] = field(default_factory=dict)  # requirement id -> concepts asked
    unmapped: list[object] = field(default_factory=list)

    def framework_lines(self, cat: Catalogue) -> list[tuple[str, list[str], list[str], list[str]]]:
        """Per framework: (id, fully asked, partly asked, not asked) requirement ids."""
        out = []
        for fw in cat.frameworks:
            full, part, none = [], [], []
            for r in cat.of_framework(fw):
                got = self.asked.get(r.id, set())
                (full if got >= set(r.concepts) else part if got else none).append(r.code if not r.year
                                                                                     else f"{r.year} {r.code}")
            out.append((fw, full, part, none))
        return out


def coverage(settings, rows, mapper: Mapper | None = None, mappings: list[Mapping] | None = None) -> Coverage:
    mapper = mapper or mapper_for(settings)
    if mappings is None:

        mappings = map_rows(settings, rows, mapper, [row_context(q) for q in rows])
    cov = Coverage(rows=list(zip(rows, mappings)))
    for q, m in cov.rows:
        concepts = {x.concept for x in shown(m)}
        if not concepts:
            cov.unmapped.append(q)
        for c in concepts:
            for r in mapper.catalogue.by_concept(c):
                cov.asked.setdefault(r.id, set()).add(c)
    return cov


def describe(cat: Catalogue, cov: Coverage, how: str) -> str:
    """The block `autofill inspect` prints after the layout."""
    lines = ["", f"Framework datapoints ({how}):"]
    for q, m in cov.rows:
        num = f"[{q.number}] " if q.number else ""
        items = shown(m)
        if not items:
            lines.append(f"  row {q.row:>4}  {num}-")
            continue
        for i, x in enumerate(items):
            head = f"  row {q.row:>4}  {num}" if i == 0 else " " * (13 + len(num))
            how_ = "" if x.how == "rules" else f", {x.how}"
            lines.append(f"{head}{cat.concepts[x.concept].label} ({x.strength:.2f}{how_}): "
                         + "; ".join(specific_requirements(cat, x.concept)))
    lines += ["", "Coverage by framework (requirements asked in full / in part / not asked):"]
    for fw, full, part, none in cov.framework_lines(cat):
        total = len(full) + len(part) + len(none)
        lines.append(f"  {fw}: {len(full)} / {len(part)} / {len(none)} of {total}")
        if full:
            lines.append(f"    asked: {', '.join(full)}")
        if part:
            lines.append(f"    in part: {', '.join(part)}")
    unmapped = [q.row for q in cov.unmapped]
    lines.append(f"  rows mapped to no datapoint ({len(unmapped)}): "
                 + (", ".join(str(r) for r in unmapped) if unmapped else "none"))
    return "\n".join(lines)


def to_json(cat: Catalogue, cov: Coverage, how: str) -> dict:
    return {
        "how": how,
        "rows": [{"sheet": q.sheet, "row": q.row, "number": q.number, "datapoints": m.to_json(cat)}
                 for q, m in cov.rows],
        "coverage": {fw: {"asked": full, "in_part": part, "not_asked": none}
                     for fw, full, part, none in cov.framework_lines(cat)},
        "unmapped_rows": [q.row for q in cov.unmapped],
    }
