"""The human summaries commands end with, formatted in one place (the CLI prints them on stdout, the
stream the JSON line takes under --json). Pure functions of the reports stages return; the longer
per-stage descriptions (`WorkbookLayout.describe`, the eval report) stay with their records."""

from __future__ import annotations

from typing import Any, Callable, Iterable

from autofill.language import name as language_name
from autofill.records import LLM_STAGES
from autofill.translation.translator import target_language, translation_note
from autofill.store.multilingual import language_lines

STAGES = LLM_STAGES


def count(n: int, noun: str) -> str:
    """'1 document', '3 documents'."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def usd(cost: float | None) -> str:
    """"$0.0123", or "cost unknown" for None (a model or endpoint with no price: providers/cost.py)."""
    return "cost unknown" if cost is None else f"${cost:.4f}"


def llm_line(usage: Any, evidence_only: bool = False, cost_unknown: str = "") -> str:
    """The model-usage line of `run` and `ask`, from a StageUsage total. Without a model it says so
    instead of counting zeros; a cost with no price is "cost unknown" and why, never $0."""
    if evidence_only and not (usage.calls or usage.cached_calls):
        return "LLM: none configured (evidence-only drafts): no model calls, nothing to pay"
    cost = f"${usage.cost_usd:.4f}" if usage.cost_known else \
        "cost unknown" + (f" ({cost_unknown})" if cost_unknown else "")
    return (f"LLM: {usage.calls} calls ({usage.cached_calls} from cache), {usage.prompt_tokens} prompt + "
            f"{usage.completion_tokens} completion tokens, {cost}")


def ingest_summary(data: dict[str, Any], skipped_files: Iterable[Any] = ()) -> str:
    """From `IngestReport.to_json()`: a line per file met in a folder and not taken (`skipped_files`,
    with its reason), then one line of counts, naming how many files were skipped and how many
    stored documents may be incomplete (their warnings were logged as they were stored)."""
    lines = [f"  skipped  {s.path}: {s.reason}" for s in skipped_files]
    warned = len({w["file"] for w in data.get("warnings", ())})
    lines.append(
        f"{data['company']}: {count(data['documents'], 'document')} ({data['new_documents']} new, "
        f"{data['skipped_documents']} unchanged, {data['failed_documents']} failed), "
        f"{count(data['pages'], 'page')}"
        + (f" ({data['ocr_pages']} read by OCR)" if data.get("ocr_pages") else "")
        + f", {count(data['chunks'], 'chunk')} in {data['seconds']:.1f} s"
        + (f"; {count(data['skipped_files'], 'file')} skipped" if data.get("skipped_files") else "")
        + (f"; {warned} may be incomplete (see the warnings)" if warned else ""))
    for stage, u in (data.get("llm") or {}).items():  # ingest --contextualize
        lines.append(f"  {stage}: {u['calls']} calls ({u['cached_calls']} from cache), {u['prompt_tokens']} prompt + "
                     f"{u['completion_tokens']} completion tokens, {usd(u['cost_usd'])}")
    return "\n".join(lines)


def runtime_note(store: Any, runtime: str) -> str:
    """Which runtime made a local store's vectors, and whether queries now use another one."""
    built = getattr(store, "embedder_runtime", "")
    if not built:
        return ""
    if not runtime or built == runtime:
        return f" ({built})"
    return f" (built with {built}, queried with {runtime}: same model, vectors agree within 0.999 cosine)"


def stores_summary(stores: Iterable[Any], location: str, runtime: str = "",
                   library: Callable[[Any], int] | None = None) -> str:
    """`autofill companies`: a line per store, an indented line per document. `runtime`: the local
    embedder runtime queries use now (settings.embedding.runtime); `library`: a store's count of
    approved library answers."""
    stores = list(stores)
    if not stores:
        return (f"No evidence stores yet in {location}. Start with: autofill ingest --company NAME REPORT.pdf "
                f"(or use --workspace DIR for a workspace elsewhere)")
    lines = []
    for s in stores:
        lines.append(f"{s.company}: {count(len(s.documents), 'document')}, {count(s.pages, 'page')}, "
                     f"{count(s.chunks, 'chunk')}, embedder {s.embedder}{runtime_note(s, runtime)}, "
                     f"last ingest {s.last_ingest}"
                     + (f", {count(library(s), 'library answer')}" if library is not None else ""))
        for d in s.documents:
            lines.append(f"    {d.file_name}: {count(d.pages, 'page')}, {count(d.chunks, 'chunk')}"
                         + (f", {count(d.empty_pages, 'page')} without text" if d.empty_pages else "")
                         + (f", {d.ocr_pages} read by OCR" if getattr(d, "ocr_pages", 0) else "")
                         + f", period {getattr(d, 'period', '') or 'unknown'}"
                         + (f", {language_name(d.language)}" if getattr(d, "language", "") else ""))
            lines.extend(f"      warning: {why}" for why in getattr(d, "warnings", ()))
    return "\n".join(lines)


def document_details(d: Any) -> dict:
    """One document of `companies --json`: what it holds, its reporting period and why it may be incomplete."""
    return {"file": d.file_name, "pages": d.pages, "chunks": d.chunks, "period": d.period,
            "language": d.language, "warnings": list(d.warnings)}


def documents_languages(store: Any, company: str, questionnaire: str,
                        multilingual: bool = False, dictionaries: str = "", apertium: str = "") -> tuple[dict, list[str]]:
    """`inspect --company`: each document's language, and what a run does across languages
    (store/multilingual.language_lines: the multilingual index when `multilingual`, the plan's, serves them;
    else a warning when the store's embedder was not trained for the questionnaire's or a document's), with
    the query translation's line (translation/translator.py) when the plan translates from `dictionaries`."""
    docs = sorted(store.documents().values(), key=lambda d: d.file_name)
    note, warning = language_lines(multilingual, store.embedder_name, company, questionnaire,
                                   [d.language for d in docs if d.language])
    if note and dictionaries:
        translation = translation_note(dictionaries, questionnaire, target_language([d.language for d in docs]),
                                       apertium)
        note += f"; {translation}" if translation else ""
    lines = [f"Documents of {company} (embedder {store.embedder_name}):"]
    lines += [f"  {d.file_name}: {language_name(d.language)}" for d in docs]
    lines += [f"Note: {note}"] * bool(note) + [f"Warning: {warning}"] * bool(warning)
    data = {"company": company, "embedder": store.embedder_name,
            "documents": [{"file": d.file_name, "language": d.language} for d in docs],
            "language_note": note, "language_warning": warning}
    return data, lines


def row_counts(report: Any) -> str:
    """A run's rows in words, each count on its own (a draft is never called an answer): `run`'s summary
    and each company's line of `batch` (portfolio/outcome.CompanyOutcome carries RunReport's counts under
    the same names). Counts a report does not carry are left out."""
    drafted = getattr(report, "drafted", 0)
    if report.evidence_only and not drafted:
        counts = [f"{report.answered} drafted from evidence only (no model answered)"]
    else:
        counts = [f"{report.answered} answered"]
        if drafted or report.evidence_only:
            counts.append(f"{drafted} drafted from evidence only (no model answered)")
    if hasattr(report, "unparsed"):
        counts.append(f"{report.unparsed} unparsed")
    counts.append(f"{report.failed} failed")
    if getattr(report, "not_written", 0):
        counts.append(f"{report.not_written} answered but not written (see Status)")
    kept = [f"{n} {what}" for n, what in ((getattr(report, "approved", 0), "approved"),
                                          (getattr(report, "edited", 0), "edited by hand"),
                                          (getattr(report, "waiting", 0), "waiting for a model")) if n]
    counts.append(f"{report.skipped} skipped" + (f" ({', '.join(kept)})" if kept else ""))
    if getattr(report, "reused", 0):
        counts.append(f"{report.reused} reused from the library")
    if getattr(report, "pending", 0):  # a portfolio's cost cap held them back
        counts.append(f"{report.pending} pending")
    return ", ".join(counts)


def run_summary(report: Any, company: str) -> str:
    """`autofill run`: each count on its own (a draft is never called an answer), model usage and cost
    by stage, the rows that need another run and where the output is. Counts a RunReport does not
    carry are left out."""
    t = report.totals()
    lines = [
        f"{company}: {report.rows} question rows, {row_counts(report)} in {report.seconds:.1f} s",
        llm_line(t, report.evidence_only, getattr(report, "cost_unknown", "")),
    ]
    for stage in STAGES:
        u = report.usage.get(stage)
        if u and (u.calls or u.cached_calls):
            lines.append(f"  {stage}: {u.calls} calls, {u.prompt_tokens} + {u.completion_tokens} tokens, "
                         f"{usd(u.cost_usd if u.cost_known else None)}")
    tiers = getattr(report, "tiers", None)
    if tiers is not None:
        lines.append(tiers_line(tiers))
    if getattr(report, "uncited", 0):
        lines.append(f"  {report.uncited} answers cite no passage of the evidence: flagged in Status, check them first")
    problems = getattr(report, "problems", None) or []
    for outcome, key, why in problems:
        lines.append(f"  {outcome} {key}: {why}")
    if problems or report.failed:
        lines.append("  Re-run the same command to retry these rows; finished rows are kept.")
    if getattr(report, "history", None):
        lines.append(f"Previous version kept: {report.history}")
    lines.append(f"Output: {report.output}")
    if getattr(report, "report_html", None):
        lines.append(f"Review report: {report.report_html}")
    return "\n".join(lines)


def tiers_line(tiers: dict[str, int]) -> str:
    """Rows per trust tier, as `run` and `ask` print them."""
    return (f"Tiers: {tiers.get('ready', 0)} Ready, {tiers.get('check', 0)} Check, "
            f"{tiers.get('needs_work', 0)} Needs work"
            + (f", {tiers['approved']} Approved" if tiers.get("approved") else ""))


def report_summary(path: Any) -> str:
    return f"Review report: {path}"
