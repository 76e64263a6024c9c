"""What the command line shows, decided in one place: logging configured once (-v/-q/--debug), the
Reporter the CLI hands to stages (click progress bars on a terminal, nothing under --json), and the
one stream summaries go to.

Streams: stdout carries a command's result (its summary, or the one JSON line under --json); stderr
carries progress bars, messages (`logging` INFO), warnings (`autofill: warning: ...`) and errors
(`autofill: ...`). Levels: default shows messages and warnings; -q only warnings and errors; -v adds
autofill's debug lines; --debug adds every library's log lines, Python warnings and the traceback of
an unexpected error. Under --json messages are hidden (unless -v): a script reads stdout, a person
still sees warnings."""

from __future__ import annotations

import logging
import sys
from typing import Any

import click

from autofill.redact import safe_text
from autofill.reporting import Bar, LogReporter, NullBar

LOGGER = "autofill"


class _State:
    """The one bar on screen, so a log line can clear it before printing and let it redraw."""

    bar: "_ClickBar | None" = None


def _clear_bar_line() -> None:
    if _State.bar is not None:
        _State.bar.clear_line()


class CliHandler(logging.Handler):
    """Log records to stderr as the CLI words them: `autofill: warning: ...`, plain messages; every line
    made safe (autofill/redact.py: a library's debug line with the endpoint's URL or headers included)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = record.getMessage()
            if record.levelno >= logging.ERROR:
                line = f"autofill: error: {text}"
            elif record.levelno >= logging.WARNING:
                line = f"autofill: warning: {text}"
            elif record.levelno >= logging.INFO:
                line = text
            else:
                line = f"autofill: debug: {record.name}: {text}"
            if record.exc_info and logging.getLogger(LOGGER).isEnabledFor(logging.DEBUG):
                line += "\n" + logging.Formatter().formatException(record.exc_info)
            _clear_bar_line()
            click.echo(safe_text(line), err=True)
        except Exception:  # noqa: BLE001 - logging must never break a command
            self.handleError(record)


def configure_logging(verbose: int = 0, quiet: bool = False, debug: bool = False) -> None:
    """Once per command, from the CLI group. autofill's logger prints through CliHandler at the chosen
    level. Other libraries' loggers and Python warnings (numpy's 'invalid value in divide', an SDK's
    retry notice) reach stderr only with --debug: without it a NullHandler on the root logger keeps
    Python's last-resort handler from printing them raw; stages say what matters in our own words."""
    ours, root = logging.getLogger(LOGGER), logging.getLogger()
    for logger in (ours, root):
        for handler in list(logger.handlers):
            if isinstance(handler, (CliHandler, _Silence)):
                logger.removeHandler(handler)
    logging.captureWarnings(True)
    if debug:
        ours.setLevel(logging.DEBUG)
        root.addHandler(CliHandler())  # autofill's records propagate here too: printed once
        root.setLevel(logging.DEBUG)
        return
    ours.addHandler(CliHandler())
    ours.setLevel(logging.DEBUG if verbose else logging.WARNING if quiet else logging.INFO)
    root.addHandler(_Silence())


class _Silence(logging.NullHandler):
    """Marks the root logger as handled (no last-resort printing) without showing anything."""


def json_mode_logging(verbose: int = 0) -> None:
    """Under --json: hide messages (stdout is for the JSON line), keep warnings; -v still shows all."""
    if not verbose:
        ours = logging.getLogger(LOGGER)
        ours.setLevel(max(ours.level, logging.WARNING))


# ------------------------------------------------------------------------------------ progress


class _ClickBar:
    """A click progress bar on stderr with position and ETA; `note` shows a short status beside it."""

    def __init__(self, label: str, total: int, unit: str = "") -> None:
        self._note = ""
        self._bar: Any = click.progressbar(
            length=max(1, total), label=label, file=sys.stderr, show_eta=True, show_pos=True,
            item_show_func=lambda _: self._note or None, width=24)
        self._bar.__enter__()
        self._unit = unit
        _State.bar = self

    def advance(self, n: int = 1) -> None:
        self._bar.update(n)

    def note(self, text: str) -> None:
        self._note = text if len(text) <= 50 else text[:47] + "..."
        self._bar.update(0)

    def clear_line(self) -> None:
        # Move to a fresh line so the log line does not land inside the bar; the bar redraws on
        # its next update.
        sys.stderr.write("\r\x1b[K")
        sys.stderr.flush()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)
            self._bar = None
        if _State.bar is self:
            _State.bar = None


class CliReporter(LogReporter):
    """The Reporter the CLI gives stages: messages and warnings through autofill's logger (so -q and
    --json decide what shows), progress as click bars only on an interactive stderr."""

    def __init__(self, bars: bool = True) -> None:
        super().__init__(logging.getLogger(LOGGER))
        self.bars = bars

    def bar(self, label: str, total: int, unit: str = "") -> Bar:
        if not self.bars or total <= 0:
            return NullBar()
        return _ClickBar(label, total, unit)


def make_reporter(as_json: bool = False, quiet: bool = False) -> CliReporter:
    """Bars only for a person watching a terminal: not under --json or -q, not into a log file."""
    interactive = bool(getattr(sys.stderr, "isatty", lambda: False)())
    return CliReporter(bars=interactive and not as_json and not quiet)


# ------------------------------------------------------------------------------------ results


def emit_result(text: str) -> None:
    """A command's human summary: always stdout, the stream the JSON line takes under --json."""
    _clear_bar_line()
    click.echo(safe_text(text, headers=False))


# ------------------------------------------------------------------------------------ errors


def fail(message: str, code: int) -> None:
    """An error as one line on stderr, then exit with `code`."""
    click.echo(f"autofill: {safe_text(message)}", err=True)
    sys.exit(code)


class OneLineErrorGroup(click.Group):
    """Usage errors (a missing option, a bad choice, a folder given as a file) as one line on stderr,
    like every other bad input, instead of click's usage block; still exit code 2."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.exceptions.NoArgsIsHelpError as exc:  # bare `autofill`: the help text, as before
            exc.show()
            sys.exit(exc.exit_code)
        except click.UsageError as exc:
            hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
            fail(f"{exc.format_message()}{hint}", exc.exit_code)
        except click.ClickException as exc:
            exc.show()
            sys.exit(exc.exit_code)
        except click.Abort:
            fail("aborted", 1)
        sys.exit(rv if isinstance(rv, int) else 0)



def describe_unexpected(exc: BaseException, debug: bool = False, settings: Any = None) -> tuple[str, int]:
    """The one line (and exit code) for an exception no stage turned into an InputError. Permission
    problems anywhere (an output folder, the workspace, a read-only file) are bad input: exit 2 with the
    path. Anything else is exit 1. With --debug the traceback is printed first."""
    from autofill.fileio import PERMISSION_ERRNOS

    if debug:
        import traceback

        sys.stderr.write(safe_text("".join(traceback.format_exception(type(exc), exc, exc.__traceback__))))
    if isinstance(exc, OSError) and exc.errno in PERMISSION_ERRNOS:
        where = exc.filename or "a file autofill needs"
        return f"permission denied: {where} (check who owns it, or choose another --workspace/--out)", 2
    text = str(exc).lower()
    if "readonly database" in text or "read-only file system" in text:
        # SQLite under Chroma says "attempt to write a readonly database" for a read-only workspace.
        where = getattr(settings, "vectordb_dir", None) or "the workspace's vectordb/ folder"
        return f"permission denied: cannot write the evidence stores in {where} (read-only)", 2
    if isinstance(exc, OSError) and exc.filename:
        return f"{exc.strerror or exc}: {exc.filename}", 1
    hint = "" if debug else " (run with --debug for the traceback)"
    return f"unexpected error: {type(exc).__name__}: {exc}{hint}", 1
