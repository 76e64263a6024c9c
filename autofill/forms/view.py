"""What `autofill inspect` shows of a form: per input sheet, each datapoint with its section, cell,
key, type (unit, drop-down values), gate and label; the open tables; what is never written. Text for
people, JSON for tools (every drop-down value listed). Pure: formats a `Form`."""

from __future__ import annotations

from collections import Counter

from autofill.forms.model import Datapoint, Form, FormSource

MAX_VALUES_SHOWN = 8


def _type_words(dp: Datapoint) -> str:
    words = dp.kind.value
    if dp.multiple:
        words = "choice of several"
    if dp.unit:
        words += f" ({dp.unit})"
    if dp.scale:
        words += f" x10^{dp.scale}"
    if dp.kind.value == "date_parts":
        words += " (" + "/".join(dp.parts) + ": " + ", ".join(c.ref for c in dp.cells) + ")"
    return words


def _values(dp: Datapoint) -> str:
    shown = list(dp.allowed[:MAX_VALUES_SHOWN])
    more = len(dp.allowed) - len(shown)
    return " | ".join(shown) + (f" | ... (+{more} more)" if more > 0 else "")


def datapoint_lines(dp: Datapoint, labels: dict[str, str] | None = None) -> list[str]:
    where = dp.cell.ref if len(dp.cells) == 1 or dp.kind.value == "date_parts" else \
        f"{dp.cells[0].ref}:{dp.cells[-1].ref}"
    head = f"  {dp.section or '-':4} {where:10} {dp.key}  [{_type_words(dp)}]"
    lines = [head, f"        {dp.label or '(no label)'}"]
    if dp.allowed:
        lines.append(f"        values: {_values(dp)}")
    for gate in dp.gates:
        asks = (labels or {}).get(gate.key, "")
        asks = f' ("{asks[:80]}{"..." if len(asks) > 80 else ""}")' if asks else ""
        via = f" ({gate.source})" if gate.source else ""
        lines.append(f"        applies when {gate.key}{asks} is {gate.opens.value}{via}")
    if dp.table:
        lines.append(f"        open table {dp.table}: one value a row, {len(dp.cells)} rows")
    if dp.alias_of:
        lines.append(f"        same cell as {dp.alias_of}")
    return lines


def form_text(form: Form, mapping: dict[str, list[str]] | None = None) -> str:
    """The form as inspect prints it; `mapping` gives framework requirements per datapoint key."""
    kinds = Counter(d.kind.value for d in form.datapoints)
    how = "named ranges" if form.source is FormSource.NAMED else "label and input cells (no names)"
    lang = f"; labels in {form.language}" if form.language else ""
    if form.languages:
        lang += f" (the form offers {', '.join(form.languages)})"
    gated = sum(1 for d in form.datapoints if d.gates)
    out = [f"Form: {form.path.name}, read by {how}{lang}",
           f"{len(form.datapoints)} datapoints on {len(form.sheets)} sheet(s): "
           + ", ".join(f"{k} {v}" for k, v in kinds.most_common())
           + (f"; {gated} behind a gate" if gated else ""),
           f"{len(form.tables)} open table(s); {len(form.computed)} computed cell(s) and "
           f"{len(form.formula_cells)} formula cell(s) are never written"]
    if form.reporting_period_keys:
        out.append("Reporting period: " + ", ".join(form.reporting_period_keys))
    for w in form.warnings:
        out.append(f"Note: {w}")
    for sheet in form.sheets:
        dps = [d for d in form.datapoints if d.sheet == sheet]
        if not dps:
            continue
        out += ["", f"{sheet} ({len(dps)} datapoints)"]
        labels = {d.key: d.label for d in form.datapoints}
        for dp in dps:
            out += datapoint_lines(dp, labels)
            if mapping and mapping.get(dp.key):
                out.append("        frameworks: " + "; ".join(mapping[dp.key]))
    if form.tables:
        from autofill.forms.tables import answerable_tables, table_columns

        answered = {t.name for t in answerable_tables(form)}
        out += ["", "Open tables (filled row by row)"]
        for t in form.tables:
            how = "answered row by row" if t.name in answered else "not answered (no heading: left to people)"
            out.append(f"  {t.section or '-':4} {t.sheet}!{t.first_row}-{t.last_row} {t.name}: {t.size} rows, {how}")
            if t.label:
                out.append(f"        {t.label}")
            typed = {c.key for c in table_columns(form, t)}
            for key in t.columns:
                dp = form.datapoint(key)
                if dp is None:
                    continue
                where = f"{dp.cells[0].ref}:{dp.cells[-1].ref}"
                note = "" if key in typed else " (the form's unit choice: not answered)"
                out.append(f"        column {where:10} {key}  [{_type_words(dp)}] {dp.label or '(no label)'}{note}")
                if dp.allowed:
                    out.append(f"            values: {_values(dp)}")
    return "\n".join(out)


def datapoint_json(dp: Datapoint) -> dict:
    out = {"key": dp.key, "sheet": dp.sheet, "cell": dp.cell.ref, "label": dp.label, "section": dp.section,
           "type": dp.kind.value}
    if len(dp.cells) > 1:
        out["cells"] = [c.ref for c in dp.cells]
    for name in ("unit", "scale", "table", "member", "base", "column", "reference", "alias_of"):
        value = getattr(dp, name)
        if value:
            out[name] = value
    if dp.allowed:
        out["allowed"] = list(dp.allowed)
    if dp.multiple:
        out["multiple"] = True
    if dp.parts:
        out["parts"] = list(dp.parts)
    if dp.unit_cell is not None:
        out["unit_cell"] = dp.unit_cell.ref
    if dp.gate is not None:
        out["gate"] = gate_json(dp.gate)
    if dp.more_gates:  # the template ties the datapoint to several gates (an AND): all must be open
        out["gates"] = [gate_json(g) for g in dp.gates]
    if dp.formula_cells:
        out["formula_cells"] = [str(c) for c in dp.formula_cells]
    return out


def table_json(form: Form, table) -> dict:
    """An open table: its rows, and each column with its type, unit, drop-down values and whether a run
    answers it (`answered`: not the form's unit choices)."""
    from autofill.forms.tables import answerable_tables, table_columns

    typed = {c.key for c in table_columns(form, table)}
    columns = []
    for key in table.columns:
        dp = form.datapoint(key)
        if dp is None:
            continue
        item = {"key": key, "label": dp.label, "type": dp.kind.value, "cells": f"{dp.cells[0].ref}:{dp.cells[-1].ref}",
                "answered": key in typed}
        for name in ("unit", "scale"):
            if getattr(dp, name):
                item[name] = getattr(dp, name)
        if dp.allowed:
            item["allowed"] = list(dp.allowed)
        columns.append(item)
    return {"name": table.name, "sheet": table.sheet, "first_row": table.first_row, "last_row": table.last_row,
            "rows": table.size, "label": table.label, "section": table.section, "columns": columns,
            "answered": table.name in {t.name for t in answerable_tables(form)}}


def gate_json(gate) -> dict:
    out = {"key": gate.key, "opens": gate.opens.value}
    if gate.source:
        out["via"] = gate.source
    return out


def form_json(form: Form, mapping: dict[str, list[str]] | None = None) -> dict:
    dps = []
    for dp in form.datapoints:
        item = datapoint_json(dp)
        if mapping and mapping.get(dp.key):
            item["frameworks"] = mapping[dp.key]
        dps.append(item)
    return {"form": {
        "path": str(form.path), "source": form.source.value, "language": form.language,
        "languages": list(form.languages), "sheets": list(form.sheets),
        "language_cell": str(form.language_cell) if form.language_cell else None,
        "reporting_period_keys": list(form.reporting_period_keys),
        "datapoints": dps,
        "tables": [table_json(form, t) for t in form.tables],
        "computed": [{"key": c.key, "sheet": c.sheet, "cell": c.cell.ref, "label": c.label} for c in form.computed],
        "formula_cells": len(form.formula_cells),
        "warnings": list(form.warnings),
    }}
