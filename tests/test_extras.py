"""extras.py: a command that needs an optional extra which is not installed says which one, in one line,
with exit code 2, before it does any work. The extras are hidden by putting None in sys.modules, which
makes `import` (and importlib's find_spec) fail exactly as when the package is absent."""

from __future__ import annotations

import sys

import pytest
from click.testing import CliRunner

from autofill.cli import cli
from autofill.errors import InputError
from autofill.extras import EXTRAS, missing_modules, require
from autofill.providers.cohere_provider import make_client
from autofill.settings import LLMSettings, Secret


def hide(monkeypatch, *modules: str) -> None:
    for name in modules:
        monkeypatch.setitem(sys.modules, name, None)


def test_installed_extras_are_not_missing():
    # The test install has every extra but live (scripts/test.sh).
    for extra in ("eval", "cohere", "torch"):
        assert missing_modules(extra) == [], extra


def test_a_hidden_module_is_missing_and_named_with_its_install_command(monkeypatch):
    hide(monkeypatch, "scipy")
    assert missing_modules("eval") == ["scipy"]
    with pytest.raises(InputError) as err:
        require("eval", "autofill eval")
    message = str(err.value)
    assert "autofill eval needs scipy" in message and "pip install 'autofill[eval]'" in message
    assert "\n" not in message


def test_every_extra_is_declared_in_pyproject():
    import tomllib
    from pathlib import Path

    declared = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())
    optional = declared["project"]["optional-dependencies"]
    assert set(EXTRAS) <= set(optional)
    default = " ".join(declared["project"]["dependencies"])
    for name in ("scipy", "matplotlib", "cohere", "torch"):
        assert f'"{name}' not in default, f"{name} is back in the default install"


def test_eval_without_its_extra_is_one_line_and_exit_2(monkeypatch, tmp_path):
    hide(monkeypatch, "matplotlib")
    questionnaire = tmp_path / "q.xlsx"
    gold = tmp_path / "gold.json"
    result = CliRunner().invoke(cli, ["--workspace", str(tmp_path / "ws"), "eval", "--company", "Acme",
                                      "--questionnaire", str(questionnaire), "--gold", str(gold)])
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "pip install 'autofill[eval]'" in lines[0], result.output
    assert not (tmp_path / "ws").exists() or not any((tmp_path / "ws").rglob("*.xlsx"))


def test_cohere_provider_without_its_extra(monkeypatch):
    hide(monkeypatch, "cohere")
    llm = LLMSettings(provider="cohere", cohere_api_key=Secret("k"))
    with pytest.raises(InputError, match=r"pip install 'autofill\[cohere\]'"):
        make_client(llm)
