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


def lookup(*results: RowResult):
    """A store's get_passages over the passages of `results` (text, file, pages; scores are the row's)."""
    by_id = {p.chunk_id: Passage(p.chunk_id, p.file_name, p.page_start, p.page_end, p.section, p.text)
             for r in results for p in r.passages}
    return lambda ids: [by_id[i] for i in ids if i in by_id]


def test_round_trip_and_torn_line(tmp_path):
    cp = Checkpoint(tmp_path / "c.jsonl", passages=lookup(result(5)))
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


def test_records_are_compact_and_passage_text_comes_back_from_the_store(tmp_path):
    import json

    big = result(5)
    big.passages = [Passage(f"c{i}", "R.pdf", i, i, "S", "x" * 1200, 0.9 - i / 10, i) for i in range(1, 7)]
    cp = Checkpoint(tmp_path / "c.jsonl", passages=lookup(big))
    cp.append(big)
    line = cp.path.read_text(encoding="utf-8")
    assert "x" * 50 not in line and len(line) < 1500  # was ~8 KB a row with the passage text
    assert json.loads(line)["result"]["passages"][0] == {"id": "c1", "score": 0.8, "rank": 1}
    assert cp.load()[question_key(big.question)] == big


def test_a_row_whose_passages_left_the_store_is_answered_again(tmp_path):
    first, second = result(5), result(6, "Other?")
    second.passages = [Passage("gone", "Old.pdf", 1, 1, "", "old text", 0.3, 1)]
    cp = Checkpoint(tmp_path / "c.jsonl", passages=lookup(first))
    cp.append(first)
    cp.append(second)
    assert set(cp.load()) == {question_key(first.question)}
    assert Checkpoint(cp.path).load() == {}  # no store to look passages up in: nothing resumed half-empty


def test_format_1_checkpoints_with_passage_text_still_load(tmp_path):
    import dataclasses
    import json

    from autofill.answer.checkpoint import row_result_to_dict

    old = result(5)
    record = row_result_to_dict(old)
    record["passages"] = [dataclasses.asdict(p) for p in old.passages]
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps({"format": 1, "key": question_key(old.question), "result": record}) + "\n")
    assert Checkpoint(path).load()[question_key(old.question)] == old


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
