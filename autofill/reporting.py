"""The one channel for user output from stages: messages and warnings go through `logging` (the CLI
configures it once, with -v/-q/--debug), progress goes through a `Reporter` the CLI provides.

Stage functions take `reporter: Reporter | None = None` and call `as_reporter(reporter)`; with none
given (library use, tests) progress is silent and messages still reach `logging`. A stage never
prints: what the user sees, and in which form (bars on a terminal, nothing under --json), is the
CLI's choice alone."""

from __future__ import annotations

import logging
from typing import Protocol


class Bar(Protocol):
    """One progress bar: `advance` by finished units, `note` a short status beside it."""

    def advance(self, n: int = 1) -> None: ...

    def note(self, text: str) -> None: ...

    def close(self) -> None: ...


class Reporter(Protocol):
    def message(self, text: str) -> None:
        """A line for the user (progress notes, summaries)."""

    def warning(self, text: str) -> None:
        """Something the user should know; never silenced by --json."""

    def bar(self, label: str, total: int, unit: str = "") -> Bar:
        """A progress bar over `total` units (rows, chunks); close it when done."""


class NullBar:
    """A bar that shows nothing (library use, --json, -q)."""

    def advance(self, n: int = 1) -> None:
        pass

    def note(self, text: str) -> None:
        pass

    def close(self) -> None:
        pass


class LogReporter:
    """Messages and warnings to `logging` (logger `autofill`), no bars: the default for library use
    and for --json runs, where stdout carries one JSON line and stderr only what matters."""

    def __init__(self, logger: logging.Logger | None = None) -> None:
        self.log = logger or logging.getLogger("autofill")

    def message(self, text: str) -> None:
        self.log.info(text)

    def warning(self, text: str) -> None:
        self.log.warning(text)

    def bar(self, label: str, total: int, unit: str = "") -> Bar:
        return NullBar()


def as_reporter(reporter: Reporter | None) -> Reporter:
    return reporter if reporter is not None else LogReporter()
