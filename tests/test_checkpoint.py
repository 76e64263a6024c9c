"""Run checkpoints: round trip of RowResults, torn last lines, failed rows not recorded, keys."""

from __future__ import annotations

from autofill.answer.checkpoint import Checkpoint, checkpoint_path, question_key
from autofill.records import Answer, Citation, Passage, QuestionRow, RowResult, StageUsage


def result(row: int, question: str = "Q?") -> RowResult:
    q = QuestionRow("Sheet 1", row, question, allowed_values=["Yes", "No"], allowed_values_source="dropdown")
    a = Answer("Yes", "because", [Citation("R.pdf", 4), Citation("R.pdf", 2)], [2, 1], "high", "Answered",
               raw='{"answer": "Yes"}', flags=["dropped citation [9]"])
    ps = [Passage("c1", "R.pdf", 2, 2, "S", "text one", 0.5, 1), Passage("c2", "R.pdf", 3, 4, "S", "two", 0.4, 2)]
    return RowResult(q, a, ps, {"answer": StageUsage(1, 100, 20, 0, 0.001)}, seconds=1.5)


def test_round_trip_and_torn_line(tmp_path):
    cp = Checkpoint(tmp_path / "c.jsonl")
    assert cp.load() == {}
    first, second = result(5), result(6, "Other?")
    cp.append(first)
    with open(cp.path, "a", encoding="utf-8") as fh:
        fh.write('{"format": 1, "key": "torn')  # a run killed mid-write
    cp.append(second)
    cp.append(RowResult(QuestionRow("Sheet 1", 7, "Failed?"), None, error="ProviderError: 500"))
    loaded = cp.load()
    assert set(loaded) == {question_key(first.question), question_key(second.question)}
    assert loaded[question_key(first.question)] == first  # every field survives
    cp.remove()
    assert not cp.path.exists()


def test_keys_change_with_question_text_and_run_identity(tmp_path):
    assert question_key(result(5).question) != question_key(result(5, "Edited?").question)
    a = checkpoint_path(tmp_path, "BHP plc", "a" * 64, "b" * 64)
    assert a.parent == tmp_path / ".checkpoints" and a.name == "BHP_plc_aaaaaaaaaaaa_bbbbbbbbbbbb.jsonl"
    assert checkpoint_path(tmp_path, "BHP plc", "a" * 64, "c" * 64) != a


def test_checks_and_tier_survive_a_checkpoint(tmp_path):
    from autofill.records import CheckResult, Severity
    from autofill.states import Tier

    q = QuestionRow(sheet="S", row=2, question="Q?")
    checks = [CheckResult("figures", False, Severity.HARD, "987,654 tCO2e not in cited passages"),
              CheckResult("confidence", False, Severity.SOFT, "model confidence low")]
    cp = Checkpoint(tmp_path / "cp.jsonl")
    cp.append(RowResult(q, Answer(answer="987,654 tCO2e"), checks=checks, tier=Tier.NEEDS_WORK))
    (back,) = cp.load().values()
    assert back.checks == checks and back.tier is Tier.NEEDS_WORK
