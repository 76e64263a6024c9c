"""The human summaries commands end with, formatted in one place (the CLI prints them on stdout, the
stream the JSON line takes under --json). Pure functions of the reports stages return; the longer
per-stage descriptions (`WorkbookLayout.describe`, the eval report) stay with their records."""

from __future__ import annotations

from typing import Any, Iterable

STAGES = ("hyde", "rerank", "answer")


def count(n: int, noun: str) -> str:
    """'1 document', '3 documents'."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def ingest_summary(data: dict[str, Any]) -> str:
    """One line from `IngestReport.to_json()`."""
    return (f"{data['company']}: {count(data['documents'], 'document')} ({data['new_documents']} new, "
            f"{data['skipped_documents']} unchanged, {data['failed_documents']} failed), "
            f"{count(data['pages'], 'page')}, {count(data['chunks'], 'chunk')} in {data['seconds']:.1f} s")


def runtime_note(store: Any, runtime: str) -> str:
    """Which runtime made a local store's vectors, and whether queries now use another one."""
    built = getattr(store, "embedder_runtime", "")
    if not built:
        return ""
    if not runtime or built == runtime:
        return f" ({built})"
    return f" (built with {built}, queried with {runtime}: same model, vectors agree within 0.999 cosine)"


def stores_summary(stores: Iterable[Any], location: str, runtime: str = "") -> str:
    """`autofill companies`: a line per store, an indented line per document. `runtime`: the local
    embedder runtime queries use now (settings.embedding.runtime)."""
    stores = list(stores)
    if not stores:
        return (f"No evidence stores yet in {location}. Start with: autofill ingest --company NAME REPORT.pdf "
                f"(or use --workspace DIR for a workspace elsewhere)")
    lines = []
    for s in stores:
        lines.append(f"{s.company}: {count(len(s.documents), 'document')}, {count(s.pages, 'page')}, "
                     f"{count(s.chunks, 'chunk')}, embedder {s.embedder}{runtime_note(s, runtime)}, "
                     f"last ingest {s.last_ingest}")
        for d in s.documents:
            lines.append(f"    {d.file_name}: {count(d.pages, 'page')}, {count(d.chunks, 'chunk')}"
                         + (f", {count(d.empty_pages, 'page')} without text" if d.empty_pages else ""))
    return "\n".join(lines)


def run_summary(report: Any, company: str) -> str:
    """`autofill run`: rows, model usage and cost by stage, failures and where the output is."""
    t = report.totals()
    done = "drafted from evidence only (no model answered)" if report.evidence_only else "answered"
    lines = [
        f"{company}: {report.rows} question rows, {report.answered} {done}, {report.failed} failed, "
        f"{report.skipped} skipped in {report.seconds:.1f} s",
        f"LLM: {t.calls} calls ({t.cached_calls} from cache), {t.prompt_tokens} prompt + "
        f"{t.completion_tokens} completion tokens, ${t.cost_usd:.4f}",
    ]
    for stage in STAGES:
        u = report.usage.get(stage)
        if u and (u.calls or u.cached_calls):
            lines.append(f"  {stage}: {u.calls} calls, {u.prompt_tokens} + {u.completion_tokens} tokens, "
                         f"${u.cost_usd:.4f}")
    failures = getattr(report, "failures", None) or {}
    for key, error in failures.items():
        lines.append(f"  failed {key}: {error}")
    if report.failed:
        lines.append("  Re-run the same command to retry the failed rows; finished rows are kept.")
    lines.append(f"Output: {report.output}")
    if getattr(report, "report_html", None):
        lines.append(f"Review report: {report.report_html}")
    return "\n".join(lines)


def report_summary(path: Any) -> str:
    return f"Review report: {path}"
