"""What every command module needs from the command line: error handling (one line, exit 2 for bad
input), settings built once from the global options, the Reporter, and stdout output. Lives apart from
cli.py so that sub-commands registered from other modules (library/commands.py, portfolio/commands.py)
import it without importing cli.py back."""

from __future__ import annotations

import functools
import json

import click

from autofill.cli_output import emit_result, fail as _fail, json_mode_logging, make_reporter
from autofill.errors import AutofillError, InputError
from autofill.redact import safe_text
from autofill.cli_output import describe_unexpected


def handle_errors(fn):
    """Exit 2 with one line for bad input (a permission problem included: it names the path), 1 with
    one line for anything unexpected; --debug adds the traceback of an unexpected error."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except InputError as exc:
            _fail(str(exc), 2)
        except AutofillError as exc:
            _fail(str(exc), 1)
        except KeyboardInterrupt:
            _fail("interrupted; finished work is saved and the next run continues from there", 130)
        except (click.exceptions.Exit, click.ClickException, click.Abort, SystemExit):
            raise
        except Exception as exc:  # noqa: BLE001 - the last line of defence, one line not a traceback

            obj = click.get_current_context().find_root().obj or {}
            _fail(*describe_unexpected(exc, debug=bool(obj.get("debug")), settings=obj.get("settings")))

    return wrapper


def build_settings(ctx: click.Context, flags: dict | None = None, writes: bool = True, **sections):
    """Settings for a command; `flags` ("llm.model" -> "--model") names the options in settings.origins.
    `writes`: the command writes the workspace (all but config, inspect and report), so a read-only one is
    refused here in one line (workspace_access.py), before anything is read or any model called."""
    from autofill.settings import load_settings, remember_secrets

    obj = ctx.find_root().obj or {}
    overrides = {name: values for name, values in sections.items()}
    if obj.get("chroma_url"):
        overrides.setdefault("store", {})["chroma_url"] = obj["chroma_url"]
    settings = load_settings(obj.get("workspace"), obj.get("configs", ()), overrides,
                             flags={"store.chroma_url": "--chroma-url", **(flags or {})})
    obj["settings"] = settings  # for error messages that name the workspace

    remember_secrets(settings)  # a log line or error that carries a key or the URL's credentials prints them masked
    if writes:
        from autofill.workspace_access import ensure_workspace_writable

        ensure_workspace_writable(settings)
    return settings


def reporter_for(ctx: click.Context, as_json: bool):
    """The Reporter this command hands its stage: bars on a terminal, none under --json or -q."""
    obj = ctx.find_root().obj or {}
    if as_json:
        json_mode_logging(obj.get("verbose", 0))
    return make_reporter(as_json=as_json, quiet=obj.get("quiet", False))


def progress_kwargs(fn, reporter, as_json: bool) -> dict:
    """`reporter=` for a stage that takes one, `progress=` for one not yet converted."""
    import inspect

    return {"reporter": reporter} if "reporter" in inspect.signature(fn).parameters else {"progress": not as_json}


def emit_json(data: dict) -> None:
    click.echo(safe_text(json.dumps(data, ensure_ascii=False, default=str), headers=False))


def emit(text: str) -> None:
    emit_result(text)
