"""The portfolio's HTML index: one page linking every company's review report and filled workbook,
with the rows of each workbook by how they ended (the same counts and columns as the overview's
Companies sheet, portfolio/workbook.COUNT_COLUMNS), so a reviewer starts from one place. Links are
relative: the output folder can be moved or shared as a whole. All text is escaped by Jinja's autoescape."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import Any, Sequence

from autofill.fileio import atomic_write_bytes
from autofill.portfolio.workbook import COUNT_COLUMNS

_TEMPLATE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{ title }}: portfolio review index</title>
<style>
body{font-family:system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse}th,td{border:1px solid #ccc;padding:.3em .6em;text-align:left}
th{background:#1F4E78;color:#fff}.failed{background:#FFC7CE}.incomplete{background:#FFEB9C}.pending{background:#EDEDED}
td.n{text-align:right}
</style></head><body>
<h1>{{ title }}</h1>
<p>{{ totals.companies }} companies ({{ totals.succeeded }} succeeded, {{ totals.incomplete }} incomplete,
{{ totals.failed }} failed); {{ rows }} question rows in their workbooks: {{ summary }}.
{% if totals.cost_usd is none %}Cost unknown ({{ totals.cost_unknown_reason }}).{% else %}This run cost ${{ '%.4f'|format(totals.cost_usd) }}.{% endif %}
{% if workbook %}Portfolio workbook: <a href="{{ workbook }}">{{ workbook }}</a>.{% endif %}</p>
<table><thead><tr><th>Company</th><th>Status</th>{% for h in headers %}<th>{{ h }}</th>{% endfor %}
<th>Review report</th><th>Filled workbook</th><th>Note</th></tr></thead><tbody>
{% for c in companies %}<tr class="{{ c.css }}"><td>{{ c.company }}</td><td>{{ c.status }}</td>
{% for n in c.counts %}<td class="n">{{ n }}</td>{% endfor %}
<td>{% if c.report %}<a href="{{ c.report }}">review report</a>{% endif %}</td>
<td>{% if c.output %}<a href="{{ c.output }}">{{ c.output_name }}</a>{% endif %}</td><td>{{ c.error }}</td></tr>
{% endfor %}</tbody></table></body></html>
"""


def _rel(target: str, base: Path) -> str:
    return os.path.relpath(target, base).replace(os.sep, "/") if target else ""


def write_index(path: Path, title: str, outcomes: Sequence[Any], totals: dict[str, Any],
                counts: Sequence[Counter]) -> Path:
    """`counts`: per company in order, the rows of its workbook by outcome (write_portfolio_workbook's)."""
    import jinja2


    base = path.parent
    companies = [{
        "company": o.company, "status": o.status, "error": o.error,
        "counts": [n[outcome] for outcome in COUNT_COLUMNS],
        "css": o.status if o.status in ("failed", "pending", "incomplete") else "",
        "report": _rel(o.report, base) if o.report and Path(o.report).exists() else "",
        "output": _rel(o.output, base) if o.output and Path(o.output).exists() else "",
        "output_name": Path(o.output).name if o.output else "",
    } for o, n in zip(outcomes, counts)]
    every = sum(counts, Counter())
    summary = ", ".join(f"{every[outcome]} {name.lower()}" for outcome, name in COUNT_COLUMNS.items())
    workbook = Path(totals["portfolio"]).name if totals.get("portfolio") else ""
    html = jinja2.Environment(autoescape=True).from_string(_TEMPLATE).render(
        title=title, totals=totals, companies=companies, workbook=workbook, headers=list(COUNT_COLUMNS.values()),
        rows=sum(every.values()), summary=summary)
    atomic_write_bytes(path, html.encode("utf-8"))
    return path
