"""Every option a message names exists (issue 32: two errors told users to "pass another --output",
an option autofill never had). The options are read from the real click command tree; the messages
are every string in the package's source that reads as text (docstrings aside)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import click

import autofill
from autofill.cli import cli

PACKAGE = Path(autofill.__file__).resolve().parent
OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*)")


def _options(command: click.Command) -> set[str]:
    found = {o for p in command.params for o in (*p.opts, *p.secondary_opts)} | {"--help"}
    for sub in getattr(command, "commands", {}).values():
        found |= _options(sub)
    return found


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            out.add(id(body[0].value))
    return out


def _named_options() -> list[tuple[str, str]]:
    """(option, where) for each --option written in a message (a string with a space in it: a lone
    "--psm" is an argument of a subprocess command line, not a message)."""
    named = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
                if " " in node.value.strip():
                    named += [(o, f"{path.relative_to(PACKAGE)}:{node.lineno}") for o in OPTION.findall(node.value)]
    return named


def test_every_option_a_message_names_exists():
    options = _options(cli)
    named = _named_options()
    assert len(named) > 50  # the scan does find the messages
    assert [(o, where) for o, where in named if o not in options] == []
