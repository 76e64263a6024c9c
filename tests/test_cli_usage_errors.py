"""Click's usage errors (missing option, bad choice, a folder where a file goes) come out as one line
on stderr with exit code 2, like every other bad input; help and --version are unchanged."""

from __future__ import annotations

from click.testing import CliRunner

from autofill.cli import cli


def invoke(*args):
    return CliRunner().invoke(cli, list(map(str, args)))


def test_usage_errors_are_one_line_with_exit_2(tmp_path):
    cases = [
        (["run", "--questionnaire", "q.xlsx"], "Missing option '--company'"),
        (["run", "--company", "X", "--questionnaire", tmp_path], "is a directory"),
        (["run", "--company", "X", "--questionnaire", "q.xlsx", "--retrieval", "bogus"], "'bogus' is not one of"),
        (["bogus"], "No such command 'bogus'"),
    ]
    for args, expected in cases:
        result = invoke(*args)
        assert result.exit_code == 2, (args, result.output)
        assert result.stdout == ""
        assert result.stderr.count("\n") == 1 and result.stderr.startswith("autofill: "), result.stderr
        assert expected in result.stderr and "--help" in result.stderr


def test_help_and_version_still_exit_0():
    for args in (["--help"], ["run", "--help"], ["--version"]):
        result = invoke(*args)
        assert result.exit_code == 0 and result.stdout and not result.stderr, args
