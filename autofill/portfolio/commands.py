"""`autofill batch` and `autofill ask`: their click wiring, kept out of autofill/cli.py the way
autofill/library/commands.py keeps `library` (the work is in portfolio/runner.py and answer/ask.py).
Registered on the main group by autofill/cli.py; imports nothing heavy at module level."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from autofill.cli_common import build_settings, emit, emit_json, handle_errors as _handled, reporter_for
from autofill.errors import InputError


def confirm(reason: str, yes: bool) -> None:
    """Consent before a large paid run: ask on a terminal; elsewhere --yes is required (exit 2, nothing spent)."""
    if not reason or yes:
        return
    if sys.stdin.isatty() and sys.stderr.isatty():
        if click.confirm(f"autofill: {reason}. Continue?", default=False, err=True):
            return
        raise InputError("not confirmed; nothing was spent")
    raise InputError(f"{reason}; pass --yes to run it (nothing was spent)")


@click.command()
@click.argument("portfolio", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Output folder, as `run --out`: the companies' workbooks and the overview (default: workbooks "
                   "in reports_out/ as `run` writes them, overview in reports_out/PORTFOLIO_NAME/).")
@click.option("--estimate", "estimate_only", is_flag=True, help="Price the run and stop: no model call is made.")
@click.option("--max-cost", type=float, default=None,
              help="USD cap: rows are not started once spent plus in-flight estimate would exceed it; they stay "
                   "pending for the next run.")
@click.option("--companies", default=None, help="Only these companies (comma-separated, as in the portfolio).")
@click.option("--concurrency", type=int, default=None, help="Model calls in flight across all companies (default 4).")
@click.option("--engine", type=click.Choice(["local", "ray"]), default=None,
              help="Where the work runs: local (threads here, the default) or ray (Ray tasks; pip install "
                   "'autofill[ray]').")
@click.option("--ray-address", default=None, help="With --engine ray: the Ray cluster to join (default: start a "
                                                  "local Ray instance).")
@click.option("-y", "--yes", is_flag=True, help="Run a large or costly portfolio without asking.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON line.")
@click.pass_context
@_handled
def batch(ctx, portfolio, out_dir, estimate_only, max_cost, companies, concurrency, engine, ray_address, yes, as_json):
    """Ingest and answer every company of PORTFOLIO (.csv, .xlsx or .toml: company, reports, questionnaire)."""
    from autofill.portfolio.plan import consent_reason
    from autofill.portfolio.engine import make_engine
    from autofill.portfolio.runner import prepare, run_portfolio

    if max_cost is not None and max_cost < 0:
        raise InputError("--max-cost must be 0 or more (USD)")
    settings = build_settings(ctx, llm={"concurrency": concurrency},
                              portfolio={"engine": engine, "ray_address": ray_address})
    only = [c for c in companies.split(",")] if companies else None
    prepared = prepare(settings, portfolio, out_dir=out_dir, only=only)
    est = prepared.estimate
    if estimate_only:
        emit_json({**est.to_json(), "portfolio": str(portfolio)}) if as_json else emit(est.describe())
        return
    model = next((c.model for c in est.companies if c.model), "")
    if max_cost is not None and est.cost_unknown:
        # A cap needs prices: with none, every row would look free and the cap would never stop anything.
        raise InputError(f"--max-cost cannot be kept: {est.cost_unknown} (nothing was spent)")
    cost = None if est.cost_unknown else est.total("cost_usd")
    confirm(consent_reason(settings, est.total("rows"),
                           cost if max_cost is None or cost is None else min(cost, max_cost), model), yes)
    report = run_portfolio(settings, prepared, max_cost=max_cost, reporter=reporter_for(ctx, as_json),
                           engine=make_engine(settings))
    if as_json:  # why a company failed goes to stderr under --json too: the JSON line only counts failures
        for o in report.outcomes:
            if o.status == "failed":
                click.echo(f"autofill: {o.company} failed: {o.error}", err=True)
    emit_json(report.to_json()) if as_json else emit(report.describe())
    if not report.ok:  # a company failed, or rows failed or were unparsed: exit 1, as `run` does
        sys.exit(1)


@click.command()
@click.option("--company", required=True)
@click.argument("question")
@click.option("--form", "form_of_answer", default="", help="Form of answer, e.g. \"Yes/No and a short explanation\".")
@click.option("--model", default=None, help="Chat model name (as `run --model`).")
@click.option("-k", "--final-k", "final_k", type=int, default=None,
              help="Passages given to the answer step (as `run -k`; default 6).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON line.")
@click.pass_context
@_handled
def ask(ctx, company, question, form_of_answer, model, final_k, as_json):
    """Answer one QUESTION from COMPANY's evidence store, with its cited pages, trust tier and cost (no workbook)."""
    from autofill.answer.ask import ask as ask_question

    settings = build_settings(ctx, llm={"model": model}, retrieval={"final_k": final_k})
    result = ask_question(settings, company, question, form_of_answer=form_of_answer)
    emit_json(result.to_json()) if as_json else emit(result.describe())
    if result.result.failed:
        sys.exit(1)
