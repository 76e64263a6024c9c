"""`autofill library ...`: the click wiring of the answer-library commands (the work is in manage.py).
Registered on the main group by autofill/cli.py; imports nothing heavy at module level."""

from __future__ import annotations

from pathlib import Path

import click

from autofill.cli_common import handle_errors as _handled
from autofill.cli_common import build_settings, emit_json


def _finish(ctx: click.Context, as_json: bool, work) -> None:

    done = work(build_settings(ctx))
    emit_json(done.data) if as_json else click.echo(done.text)


_company = click.option("--company", required=True, help="Company whose answer library to use.")
_json = click.option("--json", "as_json", is_flag=True, help="Print one JSON line.")


@click.group()
def library():
    """The answer library: approved answers that carry over to the next questionnaire."""


@library.command()
@_company
@click.argument("workbooks", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path))
@_json
@click.pass_context
@_handled
def add(ctx, company, workbooks, as_json):
    """Add the rows marked Approved in filled WORKBOOKS (autofill's output or the customer's layout)."""
    from autofill.library import manage

    _finish(ctx, as_json, lambda s: manage.add(s, company, list(workbooks)))


@library.command(name="list")
@_company
@_json
@click.pass_context
@_handled
def list_cmd(ctx, company, as_json):
    """List the approved answers in COMPANY's library, then its approved form values."""
    from autofill.library import manage

    _finish(ctx, as_json, lambda s: manage.list_entries(s, company))


@library.command()
@_company
@click.argument("out", type=click.Path(dir_okay=False, path_type=Path))
@_json
@click.pass_context
@_handled
def export(ctx, company, out, as_json):
    """Export the library to an .xlsx workbook OUT (to review, edit and share); form values on their own sheet."""
    from autofill.library import manage

    _finish(ctx, as_json, lambda s: manage.export(s, company, out))


@library.command(name="import")
@_company
@click.argument("workbook", type=click.Path(dir_okay=False, path_type=Path))
@_json
@click.pass_context
@_handled
def import_cmd(ctx, company, workbook, as_json):
    """Import a workbook written by `library export` (edited answers and form values update their entries)."""
    from autofill.library import manage

    _finish(ctx, as_json, lambda s: manage.import_(s, company, workbook))


@library.command()
@_company
@click.option("--id", "ids", type=int, multiple=True, help="Entry id (see `library list`); may be repeated.")
@click.option("--question", "questions", multiple=True, help="Question text (case and punctuation ignored).")
@click.option("--datapoint", "datapoints", multiple=True,
              help="A form value's datapoint (see `library list`), every period; may be repeated.")
@click.option("--period", default="", help="Only the --datapoint values of this reporting period (e.g. 2024).")
@click.option("--all", "everything", is_flag=True, help="Empty the library: answers and form values.")
@_json
@click.pass_context
@_handled
def remove(ctx, company, ids, questions, datapoints, period, everything, as_json):
    """Remove approved answers and form values from the library."""
    from autofill.library import manage

    _finish(ctx, as_json, lambda s: manage.remove(s, company, list(ids), list(questions), everything,
                                                   list(datapoints), period))
