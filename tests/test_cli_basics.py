import subprocess
import sys

from click.testing import CliRunner

from autofill.cli import cli


def test_help_everywhere():
    runner = CliRunner()
    for args in ([], ["ingest"], ["companies"], ["forget"], ["run"], ["inspect"], ["report"], ["eval"]):
        result = runner.invoke(cli, [*args, "--help"])
        assert result.exit_code == 0, (args, result.output)
        assert "Usage:" in result.output


def test_help_does_not_import_heavy_libraries():
    code = ("import sys; from autofill.cli import cli\n"
            "try:\n    cli(['--help'])\nexcept SystemExit:\n    pass\n"
            "heavy = [m for m in ('torch', 'sentence_transformers', 'chromadb', 'openai', 'cohere', 'fitz', "
            "'matplotlib', 'openpyxl') if m in sys.modules]\n"
            "print('HEAVY', heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "HEAVY []" in out


def test_bad_settings_file_exits_2_with_one_line(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[retrieval]\nmode = 'magic'\n")
    result = CliRunner().invoke(cli, ["--workspace", str(tmp_path), "--config", str(bad), "companies"])
    assert result.exit_code == 2
    assert result.output.strip().count("\n") == 0
    assert "unknown retrieval mode" in result.output
