"""One declared run (autofill/run_identity.py, issue 44): every setting that changes answers is part of
it, and the checkpoint key, batch's run key, the Run info rows and their reader (the review page's
re-answer) and `autofill config` all follow a change of any one of them. The settings are enumerated
from the Settings dataclasses, so a setting added later is covered without touching this file; those
that do not change answers are the module's commented NOT_ANSWERS."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import time
from pathlib import Path

import pytest

from autofill.answer.pipeline import _RunPlan
from autofill.answer.run_report import build_run_info
from autofill.config_view import resolved_choices
from autofill.plan import resolve_plan
from autofill.portfolio.plan import run_key
from autofill.records import DocumentRecord
from autofill.run_identity import (_RESOLVED as RESOLVED, NOT_ANSWERS, SETTINGS_ROW, answer_settings, changes_answers, declare,
                                   recorded_settings, setting_names)
from autofill.settings import Secret, Settings
from tests import cli_process
from tests.llm_server import Reply, last_user_text
from tests.rows_helpers import cli, company_reports, env_for, questionnaire, responder

EMBEDDER = "local:bge-small-en-v1.5"
DOCS = {"r.pdf": DocumentRecord(file_name="r.pdf", sha256="a" * 64, pages=3, chunks=9, empty_pages=0,
                                ingested_at="2026-01-01T00:00:00+00:00", chunking="c1")}

# A value each kind of setting changes to; choices get another row of their table.
OTHER = {"llm.provider": "cohere", "llm.model": "gpt-4.1-mini", "llm.base_url": "http://127.0.0.1:9/v1",
         "llm.cohere_base_url": "http://127.0.0.1:8/v1", "retrieval.mode": "dense",
         "retrieval.reranker": "cross-encoder", "library.reuse": "approved"}


def changed(name: str, value):
    if name in OTHER:
        return OTHER[name]
    if name == "retrieval.second_stage":
        return "colbert" if value == "none" else "none"
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 7
    if isinstance(value, float):
        return value + 0.5
    if isinstance(value, str):
        return f"{value}-other" if value else "other"
    raise AssertionError(f"{name}: no changed value for {value!r} (add one to OTHER)")


def with_model(tmp_path: Path) -> Settings:
    """A run with a model (OpenAI, its default endpoint), as a review page's re-answer needs."""
    s = Settings(workspace=tmp_path)
    s.llm.provider, s.llm.api_key, s.llm.cohere_api_key = "openai", Secret("sk-test"), Secret("co-test")
    return s


def set_setting(s: Settings, name: str, value) -> Settings:
    section, field = name.split(".", 1)
    out = dataclasses.replace(s, **{section: dataclasses.replace(getattr(s, section))})
    setattr(getattr(out, section), field, value)
    return out


def identities(s: Settings) -> dict:
    plan = resolve_plan(s, embedder=EMBEDDER)
    info = build_run_info(s, "Co", plan, {}, [], "2026-01-01T00:00:00+00:00", 0, 0, documents=DOCS)
    return {"checkpoint": _RunPlan(plan, DOCS).fingerprint(s),
            "batch": run_key(s, "q" * 64, DOCS),
            "run info": {k: v for k, v in info.items() if k not in ("started", "finished")},
            "config": dict((n, v) for n, v, _ in resolved_choices(s))["run identity"]}


def test_every_setting_changes_answers_unless_said_otherwise():
    names = setting_names()
    # Nothing in NOT_ANSWERS names a setting that is not there (a renamed one would slip through).
    for entry in NOT_ANSWERS:
        assert entry in names or any(n.startswith(entry + ".") for n in names), entry
    declared = answer_settings()
    assert declared == [n for n in names if changes_answers(n)]
    for name in ("retrieval.second_stage", "retrieval.multilingual_index", "retrieval.translate_queries",
                 "retrieval.content_index", "retrieval.candidates", "llm.temperature", "run.reporting_year",
                 "verify.llm", "library.threshold"):
        assert name in declared
    for name in ("llm.api_key", "llm.concurrency", "store.chroma_url", "cost.prices"):
        assert name not in declared


@pytest.mark.parametrize("name", answer_settings())
def test_a_change_of_any_declared_setting_moves_every_identity_and_is_read_back(tmp_path, name):
    base = with_model(tmp_path)
    section, field = name.split(".", 1)
    value = changed(name, getattr(getattr(base, section), field))
    other = set_setting(base, name, value)
    if name in RESOLVED and dict(declare(base, resolve_plan(base, embedder=EMBEDDER)).settings)[name] == \
            dict(declare(other, resolve_plan(other, embedder=EMBEDDER)).settings)[name]:
        pytest.skip(f"{name}: the plan cannot run it on this machine (the same run either way)")
    before, after = identities(base), identities(other)
    assert before["checkpoint"] != after["checkpoint"], name
    assert before["batch"] != after["batch"], name
    assert before["run info"] != after["run info"], name
    assert before["config"] != after["config"], name
    if name == "llm.cohere_base_url":
        return  # another provider's endpoint: a re-answer with this run's model never takes it (nor a key)
    # The re-answer (review_app/reanswer.run_settings): the settings of today, the run's recorded plan laid over.
    read = recorded_settings(base, after["run info"])
    assert getattr(getattr(read, section), field) == value, name


def test_a_setting_named_on_the_command_line_wins_over_the_recorded_one(tmp_path):
    run = set_setting(with_model(tmp_path), "retrieval.candidates", 50)
    info = identities(run)["run info"]
    assert json.loads(info[SETTINGS_ROW])["retrieval.candidates"] == 50
    review = with_model(tmp_path)
    assert recorded_settings(review, info).retrieval.candidates == 50  # the probe of the issue: 50, not 30
    review.retrieval.candidates = 40
    review.origins["retrieval.candidates"] = ("flag", "--set")
    assert recorded_settings(review, info).retrieval.candidates == 40


# What a run before issue 44's retired choices recorded of them: its readable rows and its declared settings.
RETIRED_ROWS = {"keyword weight / passages per page": "1 / no limit", "keyword query": "full + synonyms",
                "context order": "peripheral", "rerank window / step": "30 / 10", "max passages per page": 2}
RETIRED_SETTINGS = {"retrieval.fusion_weights": "adaptive", "retrieval.lexical_query": "full",
                    "retrieval.context_order": "peripheral", "retrieval.page_chunks": 0,
                    "retrieval.max_per_page": 2, "retrieval.rerank_step": 10}


def old_run_info(info: dict) -> dict:
    """`info` as a run that still had the retired settings recorded it (all asking for the retired values)."""
    return {**info, **RETIRED_ROWS, SETTINGS_ROW: json.dumps({**json.loads(info[SETTINGS_ROW]), **RETIRED_SETTINGS})}


def test_retired_settings_leave_the_declared_run_and_an_old_run_info_is_read_as_today(tmp_path):
    from autofill.settings_files import RETIRED

    assert set(RETIRED_SETTINGS) == set(RETIRED)
    base = with_model(tmp_path)
    info = identities(base)["run info"]
    assert not set(RETIRED) & set(answer_settings()) and not set(RETIRED) & set(json.loads(info[SETTINGS_ROW]))
    assert not {"context order", "rerank window / step", "max passages per page"} & set(info)
    # A workbook written before: read without error, its retired choices not brought back (they cannot run).
    assert recorded_settings(base, old_run_info(info)) == recorded_settings(base, info)


def test_settings_that_do_not_change_answers_leave_the_run_as_it_is(tmp_path):
    base = with_model(tmp_path)
    for name in ("llm.concurrency", "llm.timeout_s", "store.lock_timeout_s", "portfolio.companies_at_once",
                 "embedding.batch_size", "workbook.history_versions"):
        section, field = name.split(".", 1)
        other = set_setting(base, name, changed(name, getattr(getattr(base, section), field)))
        a, b = identities(base), identities(other)
        assert (a["checkpoint"], a["batch"], a["config"]) == (b["checkpoint"], b["batch"], b["config"]), name


def test_no_secret_is_declared(tmp_path):
    s = with_model(tmp_path)
    s.llm.api_key = Secret("sk-very-secret-1234")
    s.llm.base_url = "https://user:pw-secret@proxy.example/v1?key=q-secret"
    declared = declare(s, resolve_plan(s, embedder=EMBEDDER))
    text = json.dumps(declared.run_info()) + repr(declared.settings)
    for secret in ("sk-very-secret-1234", "pw-secret", "q-secret"):
        assert secret not in text
    # Two URLs differing only in a secret part are two runs all the same.
    t = set_setting(s, "llm.base_url", "https://user:pw-other@proxy.example/v1?key=q-secret")
    assert declared.key(DOCS) != declare(t, resolve_plan(t, embedder=EMBEDDER)).key(DOCS)


def _run(ws: Path, env: dict, q: Path, out: str):
    return cli(ws, env, "run", "--company", "Acme", "--questionnaire", q, "--out", ws / out, "--no-cache")


def _killed_after_first_row(ws: Path, env: dict, q: Path) -> None:
    """`autofill run` killed (-9) once its first row is in the checkpoint, while the second row's answer
    is still on its way: nothing written but the checkpoint, as after a crash or a lost machine."""
    folder = ws / "reports_out" / ".checkpoints"
    cmd = ["--workspace", str(ws), "run", "--company", "Acme",
           "--questionnaire", str(q), "--out", str(ws / "out1"), "--no-cache"]
    proc = cli_process.popen(cmd, env=env, cwd=ws, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and proc.poll() is None:
            if any("renewable" in f.read_text(encoding="utf-8") for f in folder.glob("*.jsonl")):
                break
            time.sleep(0.2)
        assert proc.poll() is None, "the run ended before it could be killed"
    finally:
        proc.kill()
        proc.wait()
    assert not (ws / "out1").exists() or not list((ws / "out1").glob("*.xlsx"))


def test_a_resumed_run_after_a_settings_change_answers_its_rows_again(tmp_path, llm_server):
    """Through the CLI: a run killed after its first row leaves a checkpoint; run again with the content
    index off (one of the settings the checkpoint key used to leave out), the first row is answered again,
    not resumed from passages ranked the other way; run again as before the change, it resumes."""
    ws = tmp_path / "ws"
    env = env_for(llm_server, AUTOFILL_LLM__CONCURRENCY="1", AUTOFILL_RETRIEVAL__SECOND_STAGE="none")
    company_reports(ws / "docs", "Acme", 41, 1200)
    assert cli(ws, env, "ingest", "--company", "Acme", ws / "docs").returncode == 0
    q = questionnaire(ws / "q.xlsx")
    answer = responder()
    stall = {"on": True}

    def reply(req):
        text = last_user_text(req)
        if stall["on"] and "single JSON object" in text and "Question: How many employees" in text:
            return Reply(text=answer(req), delay_s=60)  # the second row's answer never arrives in time
        return answer(req)

    def answered(question: str) -> int:
        return sum(1 for r in llm_server.chat_requests()
                   if "single JSON object" in last_user_text(r.json) and f"Question: {question}" in last_user_text(r.json))

    llm_server.responder = reply
    _killed_after_first_row(ws, env, q)
    stall["on"] = False
    assert answered("What share") == 1

    off = {**env, "AUTOFILL_RETRIEVAL__CONTENT_INDEX": "false"}
    changed_run = _run(ws, off, q, "out2")
    assert changed_run.returncode == 0, changed_run.stderr
    assert "Resuming" not in changed_run.stderr + changed_run.stdout
    assert answered("What share") == 2  # the first row answered again under the new settings

    same = _run(ws, env, q, "out3")  # the settings of the killed run: its checkpoint applies
    assert same.returncode == 0, same.stderr
    assert "Resuming: 1 of 2 rows" in same.stderr + same.stdout
    assert answered("What share") == 2
