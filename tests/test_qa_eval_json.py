"""`autofill eval --json` keeps the gold-key warnings visible on stderr (stdout: the JSON line only);
they say when the figures cannot be trusted, e.g. a gold file name that never appears in the Evidence."""

from __future__ import annotations

import json

from click.testing import CliRunner

from autofill.cli import cli
from tests.test_eval_end_to_end import SAMPLE, write_output


def test_eval_json_prints_key_warnings_on_stderr(tmp_path):
    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps([
        {"no": 1, "question": "Net zero target?", "gold_answer": "Yes.", "answer_type": "yesno",
         "gold": [{"file": SAMPLE, "page": 2}]},
        {"no": 2, "question": "Water withdrawal?", "gold_answer": "12.4 GL", "answer_type": "number",
         "gold": [{"file": "Water report.pdf", "page": 5}]}]))
    output = write_output(tmp_path / "o.xlsx")
    result = CliRunner().invoke(cli, ["--workspace", str(tmp_path), "eval", "--company", "X", "--questionnaire",
                                      str(tmp_path / "unused.xlsx"), "--gold", str(gold), "--from", str(output),
                                      "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["questions"] == 2
    assert "'Water report.pdf' never appears" in result.stderr and "warning" in result.stderr
