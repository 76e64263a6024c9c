"""The command line. Thin on purpose: each command builds settings once and calls one stage function.
Stage modules are imported inside the commands so `autofill --help` stays instant (sentence-transformers
alone takes seconds to import)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from autofill import choices
from autofill.cli_common import (build_settings, emit, emit_json, handle_errors,  # noqa: F401 - re-exported
                                 progress_kwargs, reporter_for)
from autofill.cli_output import OneLineErrorGroup, configure_logging
from autofill.errors import InputError


@click.group(cls=OneLineErrorGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--workspace", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder holding vectordb/, reports_out/ and templates/ (default: $AUTOFILL_WORKSPACE, else "
                   "the first folder from here upwards with autofill.toml or vectordb/, else here).")
@click.option("--config", "configs", multiple=True, type=click.Path(dir_okay=False, path_type=Path),
              help="TOML settings file; may be repeated, later files win.")
@click.option("--chroma-url", default=None, help="Use a Chroma server (chroma run) instead of the embedded store.")
@click.option("-v", "--verbose", count=True, help="Say more (each row as it finishes, debug notes).")
@click.option("-q", "--quiet", is_flag=True, help="Only warnings, errors and the final summary.")
@click.option("--debug", is_flag=True, help="Library log lines, Python warnings and tracebacks of unexpected errors.")
@click.version_option(package_name="autofill")
@click.pass_context
def cli(ctx, workspace, configs, chroma_url, verbose, quiet, debug):
    """Fill sustainability questionnaires from a company's own PDF reports, with cited evidence."""
    if verbose and quiet:
        raise click.UsageError("-v/--verbose and -q/--quiet contradict each other; give one")
    configure_logging(verbose=verbose, quiet=quiet, debug=debug)
    ctx.obj = {"workspace": workspace, "configs": configs, "chroma_url": chroma_url, "verbose": verbose,
               "quiet": quiet, "debug": debug}


# ------------------------------------------------------------------------------------ answering


def workbook_options(fn):
    for opt in reversed([
        click.option("--sheet", default=None, help="Only this sheet (default: every sheet with a question column)."),
        click.option("--header-row", type=int, default=None, help="Header row number, when detection gets it wrong."),
        click.option("--question-col", default=None, help="Question column (letter or header text)."),
        click.option("--answer-col", default=None, help="Answer column (letter or header text)."),
    ]):
        fn = opt(fn)
    return fn


def workbook_overrides(sheet, header_row, question_col, answer_col) -> dict:
    return {"sheet": sheet, "header_row": header_row, "question_col": question_col, "answer_col": answer_col}


@cli.command()
@click.option("--company", required=True)
@click.option("--questionnaire", required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Output folder (default: reports_out/ in the workspace).")
@click.option("--retrieval", type=click.Choice(choices.names(choices.RETRIEVAL_MODES)), default=None,
              help=f"auto: {choices.AUTO_MODE[True]} with a model, {choices.AUTO_MODE[False]} without. " + choices.help_text(choices.RETRIEVAL_MODES))
@click.option("--reranker", type=click.Choice(choices.names(choices.RERANKERS)), default=None,
              help=f"auto: {choices.AUTO_RERANKER[True]} with a model, {choices.AUTO_RERANKER[False]} without. " + choices.help_text(choices.RERANKERS))
@click.option("--candidates", type=int, default=None, help="Passages retrieved before reranking (default 30).")
@click.option("-k", "--final-k", type=int, default=None, help="Passages given to the answer step (default 6).")
@click.option("--context-order", default=None, hidden=True,
              help="Retired (issue 44): ranked is always used; peripheral is refused (settings_files.RETIRED).")
@click.option("--llm", "llm_provider", type=click.Choice([choices.AUTO, *choices.chat_providers(), choices.NONE]),
              default=None, help="auto: the first provider whose key (or URL) is set: "
                                 + ", ".join(f"{p.name} ({p.key_env})" for p in choices.PROVIDERS.values() if p.chats)
                                 + "; none: evidence-only drafts.")
@click.option("--model", default=None, help="Chat model name.")
@click.option("--concurrency", type=int, default=None, help="Rows answered at once (default 4).")
@click.option("--no-cache", is_flag=True, help="Do not use the on-disk LLM response cache.")
@click.option("--fresh", is_flag=True,
              help="Answer again the rows autofill answered before (approved, edited and pre-filled rows stay) "
                   "and ignore the checkpoint of an interrupted run.")
@click.option("--live", is_flag=True, help="Fill the open workbook in Excel through xlwings (Windows/macOS).")
@click.option("--year", "reporting_year", type=int, default=None,
              help="The questionnaire's reporting year: answers stating an earlier year are tiered Check.")
@click.option("--verify", is_flag=True, default=None,
              help="One extra model call per row checks each claim against the cited passages (verify.llm).")
@click.option("--reuse", type=click.Choice(["off", "approved"]), default=None,
              help="approved: reuse near-exact approved library answers whose documents are unchanged, no model call.")
@click.option("--multi-query/--no-multi-query", default=None,
              help="With a model: 2-3 search queries written from each question, searched and fused with it "
                   "(retrieval.multi_query; one more cached call per row).")
@click.option("-y", "--yes", is_flag=True, help="Run a large or costly questionnaire without asking (see run.confirm_*).")
@workbook_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON line.")
@click.pass_context
@handle_errors
def run(ctx, company, questionnaire, out_dir, retrieval, reranker, candidates, final_k, context_order,
        llm_provider, model, concurrency, no_cache, fresh, live, reporting_year, verify, reuse, multi_query, yes,
        sheet, header_row, question_col, answer_col, as_json):
    """Answer every question row of a questionnaire from COMPANY's evidence store."""
    from autofill.answer.pipeline import run_questionnaire

    settings = build_settings(
        ctx, flags={"retrieval.context_order": "--context-order"},
        retrieval={"mode": retrieval, "reranker": reranker, "candidates": candidates, "final_k": final_k,
                   "context_order": context_order, "multi_query": multi_query},
        llm={"provider": llm_provider, "model": model, "concurrency": concurrency,
             "cache": False if no_cache else None},
        workbook=workbook_overrides(sheet, header_row, question_col, answer_col),
        run={"reporting_year": reporting_year},
        verify={"llm": True if verify else None},
        library={"reuse": reuse},
    )
    from autofill.fileio import warn_if_open
    from autofill.summaries import run_summary

    from autofill.forms.run import form_of

    form = None if live else form_of(questionnaire, explicit=bool(sheet or header_row or question_col or answer_col),
                                     settings=settings)
    if form is not None:  # a form of named input cells (issue 45): each datapoint a typed question
        from autofill.answer.pipeline import output_path
        from autofill.portfolio.form_cost import estimate_run as estimate_form
        from autofill.forms.run import run_form
        from autofill.portfolio.plan import consent_reason

        out = output_path(settings, company, questionnaire, out_dir).with_suffix(questionnaire.suffix)
        form_estimate = estimate_form(settings, form, company, out, fresh)
        if form_estimate is not None:
            cost = form_estimate.cost_usd if form_estimate.cost_known else None
            confirm(consent_reason(settings, form_estimate.rows, cost, form_estimate.model, "datapoints"), yes)

        report = run_form(settings, company, questionnaire, out_dir=out_dir, form=form, fresh=fresh,
                          reporter=reporter_for(ctx, as_json))
        if form_estimate is not None:
            from autofill.portfolio.estimate import calibrate

            calibrate(settings, form_estimate, report.usage)
        emit_json(report.to_json()) if as_json else emit(report.summary())
        sys.exit(0 if report.ok else 1)
    estimate = None
    if settings.llm_configured and questionnaire.is_file():
        from autofill.portfolio.plan import consent_reason, estimate_run

        estimate = estimate_run(settings, company, questionnaire)

        confirm(consent_reason(settings, estimate.rows, estimate.cost_usd if estimate.cost_known else None,
                               estimate.model), yes)
    reporter = reporter_for(ctx, as_json)
    if not live:
        warn_if_open(questionnaire)
    report = run_questionnaire(settings, company, questionnaire, out_dir=out_dir, resume=not fresh, live=live,
                               **progress_kwargs(run_questionnaire, reporter, as_json))
    if estimate is not None:
        from autofill.usage_estimate import calibrate

        calibrate(settings, estimate, report.usage)
    emit_json(report.to_json()) if as_json else emit(run_summary(report, company))
    if not report.ok:  # failed or unparsed rows
        sys.exit(1)


@cli.command()
@click.argument("questionnaire", type=click.Path(dir_okay=False, path_type=Path))
@workbook_options
@click.option("--company", default=None, help="Also name the languages of this company's documents.")
@click.option("--json", "as_json", is_flag=True)
@click.option("--map-with-model", is_flag=True,
              help="Map rows to framework datapoints with the configured model's help (one call a row).")
@click.option("--form-language", default="",
              help="A form that offers translations (VSME Digital Template): show its labels in this language (fr, de ...).")
@click.pass_context
@handle_errors
def inspect(ctx, questionnaire, sheet, header_row, question_col, answer_col, company, as_json, map_with_model,
            form_language):
    """Show what would be answered in QUESTIONNAIRE (sheets, header row, columns, questions, language),
    the framework datapoints each row asks for with the questionnaire's coverage of each framework, and
    (with --company) the languages of that company's documents."""
    from autofill.frameworks.commands import datapoints_json, datapoints_text
    from autofill.workbook.layout import inspect_workbook

    settings = build_settings(ctx, writes=False, workbook=workbook_overrides(sheet, header_row, question_col, answer_col))
    from autofill.forms.commands import inspect_form

    if inspect_form(settings, questionnaire, explicit=bool(sheet or header_row or question_col or answer_col),
                    as_json=as_json, before_questions=True, language=form_language):
        return
    try:
        layout = inspect_workbook(settings, questionnaire)
    except InputError:
        if not inspect_form(settings, questionnaire, explicit=bool(sheet or header_row or question_col or answer_col),
                            as_json=as_json, before_questions=False):
            raise
        return
    data: dict = {}
    lines: list[str] = []
    if company is not None:
        from autofill.store.reading import open_for_reading
        from autofill.summaries import documents_languages

        store = open_for_reading(settings, company)
        from autofill.plan import resolve_plan

        plan = resolve_plan(settings, embedder=store.embedder_name)
        data, lines = documents_languages(store, company, layout.language, plan.multilingual_index,
                                          settings.retrieval.dictionaries if plan.query_translation else "",
                                          settings.retrieval.apertium if plan.query_translation else "")
    if as_json:
        emit_json({**layout.to_json(), **data,
                   "datapoints": datapoints_json(settings, layout.questions, map_with_model)})
    else:
        emit("\n".join([layout.describe(), *([""] + lines if lines else []),
                        datapoints_text(settings, layout.questions, map_with_model)]))


@cli.command()
@click.argument("output", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--company", default=None, help="Company whose PDFs the cited pages come from (default: from Run info).")
@click.option("--pack", is_flag=True,
              help="Write a self-contained review pack (folder and zip: report, page images, cited PDFs, workbook).")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@handle_errors
def report(ctx, output, company, pack, as_json):
    """Write the HTML review report for a filled OUTPUT workbook."""
    from autofill.review.report import write_review_report

    settings = build_settings(ctx, writes=False)  # writes beside OUTPUT, not in the workspace
    path = write_review_report(settings, output, company=company, pack=pack)
    from autofill.summaries import report_summary

    data = {"report": str(path)}
    if pack:
        data["pack"] = str(path.parent)
        data["zip"] = str(path.parent.with_name(f"{path.parent.name}.zip"))
    summary = report_summary(path) + (f"\nReview pack: {data['zip']}" if pack else "")
    emit_json(data) if as_json else emit(summary)


@cli.command(name="eval")
@click.option("--company", required=True)
@click.option("--questionnaire", required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--gold", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="Gold answer key (.xlsx or .json).")
@click.option("--config", "eval_configs", multiple=True, type=click.Path(dir_okay=False, path_type=Path),
              help="A configuration (TOML) to evaluate; two or more are compared pairwise.")
@click.option("--from", "from_output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Score an existing filled workbook instead of running the questionnaire.")
@click.option("-k", "k", type=int, default=6, help="Cut-off for the ranked metrics (default 6).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None)
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@handle_errors
def eval_cmd(ctx, company, questionnaire, gold, eval_configs, from_output, k, out_dir, as_json):
    """Measure retrieval and answer quality against a gold answer key."""
    from autofill.evaluate.runner import run_eval

    import logging

    settings = build_settings(ctx)
    reporter = reporter_for(ctx, as_json)
    result = run_eval(settings, company, questionnaire, gold, configs=list(eval_configs),
                      from_output=from_output, k=k, out_dir=out_dir,
                      **progress_kwargs(run_eval, reporter, as_json))
    if as_json:
        # The key-mismatch notes (file never retrieved, matched by number but the texts differ) are what
        # tell a user the figures cannot be trusted; they stay visible, as warnings, under --json too.
        for config in result.configs:
            for note in config.notes:
                logging.getLogger("autofill.eval").warning("%s: %s", config.name, note)
        emit_json(result.to_json())
    else:
        from autofill.evaluate.report import describe_text

        emit(describe_text(result))


@cli.command(name="config")
@click.option("--llm", "llm_provider", type=click.Choice([choices.AUTO, *choices.chat_providers(), choices.NONE]),
              default=None, help="As `run --llm`: show what a run with it would use.")
@click.option("--model", default=None, help="As `run --model`.")
@click.option("--retrieval", type=click.Choice(choices.names(choices.RETRIEVAL_MODES)), default=None,
              help="As `run --retrieval`.")
@click.option("--reranker", type=click.Choice(choices.names(choices.RERANKERS)), default=None,
              help="As `run --reranker`.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON line.")
@click.pass_context
@handle_errors
def config_cmd(ctx, llm_provider, model, retrieval, reranker, as_json):
    """Show every setting in effect and where it came from (keys masked), then what a run would use."""
    from autofill.config_view import config_json, config_text, resolved_choices, setting_lines, workspace_line

    settings = build_settings(ctx, writes=False, llm={"provider": llm_provider, "model": model},
                              retrieval={"mode": retrieval, "reranker": reranker},
                              flags={"llm.provider": "--llm", "llm.model": "--model", "retrieval.mode": "--retrieval",
                                     "retrieval.reranker": "--reranker"})
    lines = [workspace_line(settings, (ctx.find_root().obj or {}).get("workspace")), *setting_lines(settings)]
    resolved = resolved_choices(settings)
    emit_json(config_json(lines, resolved)) if as_json else emit(config_text(lines, resolved))


from autofill.evidence_commands import companies, forget, ingest  # noqa: E402 - the evidence store's commands
from autofill.library.commands import library  # noqa: E402 - the `library` group, wired in its package
from autofill.portfolio.commands import ask, batch, confirm  # noqa: E402 - wired in their package
from autofill.review_app.commands import review  # noqa: E402 - wired in its package

cli.add_command(ingest)
cli.add_command(companies)
cli.add_command(forget)
cli.add_command(library)
cli.add_command(batch)
cli.add_command(ask)
cli.add_command(review)


def main() -> None:
    cli(prog_name="autofill")


if __name__ == "__main__":
    main()
