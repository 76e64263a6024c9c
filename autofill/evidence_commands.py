"""The commands that fill, list and empty a company's evidence store: `autofill ingest`, `companies` and
`forget` (registered on the command group by cli.py). Thin like every command: settings built once, one
stage function called; stage modules imported inside the commands so `autofill --help` stays instant."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from autofill import choices
from autofill.cli_common import build_settings, emit, emit_json, handle_errors, reporter_for
from autofill.cli_output import fail as _fail
from autofill.errors import InputError
from autofill.portfolio.commands import confirm


@click.command()
@click.option("--company", required=True, help="Company name; one evidence store per company.")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--embedder", type=click.Choice(choices.embed_providers()), default=None,
              help="Embedder for a new store (an existing store keeps the one it was built with).")
@click.option("--embedding-model", default=None, help="Embedding model name for the chosen embedder.")
@click.option("--chunk-chars", type=int, default=None, help="Target chunk size in characters (default 1000).")
@click.option("--force", is_flag=True,
              help="Re-ingest every file, even those stored unchanged with the same chunking settings.")
@click.option("--recursive/--no-recursive", default=True,
              help="Search the subfolders of the folders given (default), or only their top level.")
@click.option("--ocr/--no-ocr", default=None,
              help="Read image-only pages and charts by OCR (default on: ingest.ocr).")
@click.option("--contextualize/--no-contextualize", default=None,
              help="The chat model writes a line per chunk situating it in its document, searched with it "
                   "(ingest.contextualize; one cached call per chunk, priced before it runs).")
@click.option("-y", "--yes", is_flag=True, help="Contextualize without asking when the estimate is above "
                                               "run.confirm_above_usd.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON line instead of progress and a summary.")
@click.pass_context
@handle_errors
def ingest(ctx, company, paths, embedder, embedding_model, chunk_chars, force, recursive, ocr, contextualize, yes,
           as_json):
    """Ingest PDF reports (files or folders, searched recursively) into COMPANY's evidence store."""
    from autofill.ingest.pipeline import ingest_paths
    from autofill.summaries import ingest_summary

    settings = build_settings(ctx, embedding={"provider": embedder, "model": embedding_model},
                              ingest={"chunk_chars": chunk_chars, "ocr": ocr, "contextualize": contextualize})
    reporter = reporter_for(ctx, as_json)
    contextualizer = estimate = None
    if settings.ingest.contextualize:  # priced, and consented to, before any model call
        from autofill.ingest.context_estimate import estimate_contextualize
        from autofill.ingest.contextualize import make_contextualizer

        contextualizer = make_contextualizer(settings, reporter=reporter)
        estimate = estimate_contextualize(settings, company, list(paths), force=force, recursive=recursive,
                                          model=contextualizer.chat.model)
        if not as_json:
            click.echo(f"autofill: {estimate.describe()}", err=True)

        confirm(estimate.consent_reason(settings), yes)
    report = ingest_paths(settings, company, list(paths), reporter=reporter, force=force, recursive=recursive,
                          contextualizer=contextualizer)
    if estimate is not None:
        estimate.calibrate(settings, report.usage)
    data = report.to_json()
    if estimate is not None:
        data["contextualize_estimate"] = estimate.to_json()
    # Why a file failed goes to stderr under --json too: the JSON line only counts failures.
    for f in report.files:
        if f.status == "failed":
            click.echo(f"  failed   {f.path}: {f.error}", err=True)
    emit_json(data) if as_json else emit(ingest_summary(data, report.skipped_files))
    if report.count("failed"):
        sys.exit(2)


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print one JSON line.")
@click.pass_context
@handle_errors
def companies(ctx, as_json):
    """List the evidence stores: documents, pages, chunks, embedder, last ingest."""
    from autofill.library.store import library_size
    from autofill.store.chroma_store import list_stores, store_location
    from autofill.summaries import document_details, stores_summary

    settings = build_settings(ctx)
    stores = list_stores(settings)
    if as_json:
        emit_json({"companies": [
            {"company": s.company, "documents": len(s.documents), "pages": s.pages, "chunks": s.chunks,
             "embedder": s.embedder, "embedder_runtime": s.embedder_runtime, "last_ingest": s.last_ingest,
             "library": library_size(settings, s.company),
             "files": [d.file_name for d in s.documents],
             "document_details": [document_details(d) for d in s.documents]} for s in stores]})
        return
    emit(stores_summary(stores, store_location(settings), runtime=settings.embedding.runtime,
                        library=lambda s: library_size(settings, s.company)))


@click.command()
@click.option("--company", required=True)
@click.option("--doc", default=None, help="Forget one document (its file name) instead of the whole store.")
@click.option("-y", "--yes", is_flag=True, help="Do not ask (the answer library goes too); needed when there is "
                                                "no terminal to ask on.")
@click.option("--keep-library", is_flag=True, help="Keep the company's answer library (approved answers).")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@handle_errors
def forget(ctx, company, doc, yes, keep_library, as_json):
    """Delete a company's evidence store, or one document from it, and everything autofill keeps of it
    (keyword index, search, response and query caches, run checkpoints, answer library); asks first on
    a terminal. The database is rebuilt so the text cannot be read back from its free pages."""
    from autofill.forget import forget as forget_all
    from autofill.library.store import library_size
    from autofill.store.chroma_store import open_store
    from autofill.store.deleting import check_document
    from autofill.summaries import count

    settings = build_settings(ctx)
    store = open_store(settings, company)  # not found: the error names the folder it looked in
    from autofill.companylock import EXCLUSIVE, CompanyTurn

    with CompanyTurn(settings, store.company, EXCLUSIVE, "forget", wait_s=0, collection=store.collection):
        pass  # in use by a run, ask or re-answer: refused before asking (forget asks the lock again)
    check_document(store, doc)  # "no document ...": deletes nothing
    docs = store.documents()
    what = (f"{doc} ({count(docs[doc].chunks, 'chunk')}) from the evidence store for {store.company}" if doc
            else f"the evidence store for {store.company} ({count(len(docs), 'document')}, "
                 f"{count(sum(d.chunks for d in docs.values()), 'chunk')}) in {settings.vectordb_dir}")
    what += (", its run checkpoints and the model response, query and translation caches (shared: other "
             "companies' next runs ask again)")
    entries = 0 if doc or keep_library else library_size(settings, company)
    library = not keep_library
    if not yes:
        if not (sys.stdin.isatty() and not as_json):
            raise InputError(f"forget would delete {what}; add --yes to confirm (no terminal to ask on)")
        if not click.confirm(f"Delete {what}?", default=False, err=True):
            _fail("not confirmed; nothing deleted", 1)
        if entries:
            library = click.confirm(f"Also delete the answer library of {store.company} "
                                    f"({count(entries, 'approved answer')})?", default=False, err=True)
    report = forget_all(settings, company, doc, library=library)
    emit_json(report.to_json()) if as_json else emit(report.text())
