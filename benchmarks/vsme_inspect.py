"""How much of EFRAG's VSME Digital Template `autofill inspect` reads (issue 45), checked against
EFRAG's own converter data. Skips when ../shared/vsme is absent.

    python benchmarks/vsme_inspect.py [TEMPLATE.xlsx] [--language fr]

The set measured: every defined name the converter turns into a fact (not its `enum_` / `template_`
names), that points at one cell (or one merged block) on the four disclosure sheets and is not a
formula: 99 in template 1.3.0. For each: is it a datapoint of the form, with a label, with the right
type. "Right type" is the concept's data type in the XBRL taxonomy the converter ships
(`mireport/data/taxonomies/vsme-*.json`, the one the template's schemaRef names): text / string ->
text, boolean -> boolean, enumeration -> enumeration, gYear -> year, date -> date (or date_parts),
percent -> percent, every other numeric type (decimal, monetary, energy, GHG, volume, mass, area) ->
number; "Concept_Member" names take the concept's type; "Concept_unit" names are the unit drop-downs
(enumeration); the breakdown members BaselineYearMember / TargetYearMember point at the year cells
(year). Drop-downs: the enumerations' values must be listed. Units: a number whose concept's measurement
guidance names units ("[utr:m3]") must show one of them, or have a unit drop-down offering it.
Prints the figures and every miss.

Measured on template 1.3.0 (blank and EFRAG's filled sample alike): 99/99 single-cell input names (104/104
with the five merged blocks) read at the right cell, with a label and the right type; units 15/19 read,
the other 4 chosen in the form's own unit drop-down; the same with --language fr."""

from __future__ import annotations

import json
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SHARED = ROOT.parent / "shared" / "vsme"
if not SHARED.exists():
    SHARED = Path("/work/shared/vsme")
TEMPLATE = SHARED / "VSME-Digital-Template-1.3.0.xlsx"
TAXONOMIES = SHARED / "converter" / "src" / "mireport" / "data" / "taxonomies"
SHEETS = ("General Information", "Environmental Disclosures", "Social Disclosures", "Governance Disclosures")
NUMERIC = {"decimal", "monetary", "energy", "ghgEmissions", "volume", "mass", "area", "ghgEmissionsPerMonetary",
           "integer", "nonNegativeInteger"}


def expected_kind(name: str, concepts: dict) -> str:
    if name.endswith("_unit"):
        return "enumeration"
    base = name.split("_", 1)[0]
    concept = concepts.get(f"vsme:{name}") or concepts.get(f"vsme:{base}")
    if concept is None:
        return ""
    dt = concept["dataType"].split(":")[-1].replace("ItemType", "")
    if dt == "domain":
        return "year" if "Year" in name else ""
    return {"textBlock": "text", "string": "text", "boolean": "boolean", "enumeration": "enumeration",
            "enumerationSet": "enumeration", "gYear": "year", "date": "date", "percent": "percent"}.get(
        dt, "number" if dt in NUMERIC else dt)


def unit_tokens(text: str) -> set[str]:
    import re

    return set(re.split(r"[^a-z0-9]+", (text or "").lower().replace("³", "3").replace("²", "2"))) - {""}


def expected_units(name: str, concepts: dict) -> set[str]:
    """The units the taxonomy's measurement guidance names for a concept ("[utr:m3]" -> {"m3"})."""
    import re

    concept = concepts.get(f"vsme:{name}") or concepts.get(f"vsme:{name.split('_', 1)[0]}")
    guide = ((concept or {}).get("labels", {}).get("en", {})
             .get("http://www.xbrl.org/2003/role/measurementGuidance", ""))
    return {u.lower() for u in re.findall(r"utr:(\w+)", guide)}


def oracle(path: Path) -> tuple[dict[str, tuple[str, str]], dict]:
    import openpyxl

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wb = openpyxl.load_workbook(path)
    schema = wb["Introduction"]["C10"].value or ""
    version = schema.rstrip("/").split("/")[-2] if "/" in schema else ""
    tax_file = TAXONOMIES / f"vsme-{version}.json"
    if not tax_file.exists():
        tax_file = sorted(TAXONOMIES.glob("vsme-*.json"))[-1]
    concepts = json.loads(tax_file.read_text())["concepts"]
    out = {}
    for name, dn in wb.defined_names.items():
        if name.startswith(("enum_", "template_", "_xlnm")):
            continue
        try:
            dests = list(dn.destinations)
        except Exception:  # noqa: BLE001
            continue
        if len(dests) != 1 or dests[0][0] not in SHEETS:
            continue
        sheet, ref = dests[0]
        ws = wb[sheet]
        ref = ref.replace("$", "")
        merged_block = ":" in ref
        if ":" in ref:
            merged = [str(r) for r in ws.merged_cells.ranges]
            if ref not in merged:
                continue
            ref = ref.split(":")[0]
        value = ws[ref].value
        if isinstance(value, str) and value.startswith("="):
            continue
        out[name] = (f"{sheet}!{ref}", expected_kind(name, concepts), merged_block)
    return out, concepts


def main(argv: list[str]) -> int:
    language = ""
    if "--language" in argv:
        i = argv.index("--language")
        language = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    path = Path(argv[0]) if argv else TEMPLATE
    if not path.exists():
        print(f"skipped: {path} not found")
        return 0
    from autofill.forms.reader import read_form

    expected, _ = oracle(path)
    t0 = time.perf_counter()
    form = read_form(path, language=language)
    seconds = time.perf_counter() - t0
    if form is None:
        print("not read as a form")
        return 1
    found = {d.key: d for d in form.datapoints}
    n = len(expected)
    present = labelled = typed = cell_ok = 0
    misses = []
    for name, (where, kind, _) in sorted(expected.items()):
        d = found.get(name)
        if d is None:
            misses.append(f"missing  {name} ({where})")
            continue
        present += 1
        cell_ok += str(d.cell) == where
        if d.label.strip():
            labelled += 1
        else:
            misses.append(f"no label {name}")
        got = "date" if d.kind.value == "date_parts" else d.kind.value
        if got == kind and (kind != "enumeration" or d.allowed):
            typed += 1
        else:
            misses.append(f"type     {name}: {got} (allowed {len(d.allowed)}), expected {kind}")
    both = sum(1 for name in expected if name in found and found[name].label.strip()
               and (found[name].kind.value == expected[name][1]) and (expected[name][1] != "enumeration"
                                                                      or found[name].allowed))
    print(f"template: {path.name}; language {form.language or '?'}"
          f" (offered: {', '.join(form.languages)}); read in {seconds:.1f} s")
    strict = [k for k, v in expected.items() if not v[2]]
    strict_ok = sum(1 for name in strict if name in found and found[name].label.strip()
                    and found[name].kind.value == expected[name][1]
                    and (expected[name][1] != "enumeration" or found[name].allowed))
    print(f"single-cell input named ranges (one cell, not merged): {strict_ok}/{len(strict)} with label and right type")
    print(f"single-cell or one merged block input named ranges on the disclosure sheets: {n}")
    print(f"  read as datapoints: {present}/{n} (at the right cell: {cell_ok})")
    print(f"  with a label:       {labelled}/{n}")
    print(f"  with the right type (drop-downs with their values): {typed}/{n}")
    print(f"  label and right type: {both}/{n} = {100 * both / max(n, 1):.1f} %")
    _, concepts = oracle(path)
    with_guide = [(n, expected_units(n, concepts)) for n in expected if not n.endswith("_unit")]
    with_guide = [(n, u) for n, u in with_guide if u and n in found]
    def offered(n: str) -> set[str]:
        unit_dp = found.get(f"{n}_unit")
        return set().union(*(unit_tokens(a) for a in unit_dp.allowed)) if unit_dp and found[n].unit_cell else set()

    unit_ok = [n for n, u in with_guide if u & unit_tokens(found[n].unit)]
    chosen = [n for n, u in with_guide if n not in unit_ok and u & offered(n)]
    print(f"  numbers whose taxonomy names a unit (measurement guidance): {len(unit_ok)}/{len(with_guide)} "
          f"with that unit read from the form, {len(chosen)} more with a unit drop-down that offers it")
    for n, u in with_guide:
        if n not in unit_ok and n not in chosen:
            misses.append(f"unit     {n}: {found[n].unit!r}, taxonomy {sorted(u)}")
    kinds: dict[str, int] = {}
    for d in form.datapoints:
        kinds[d.kind.value] = kinds.get(d.kind.value, 0) + 1
    print(f"all datapoints: {len(form.datapoints)} ({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))}); "
          f"open tables {len(form.tables)}; computed cells {len(form.computed)}; formula cells "
          f"{len(form.formula_cells)}; gated {sum(1 for d in form.datapoints if d.gate)}")
    for m in misses:
        print("  " + m)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
