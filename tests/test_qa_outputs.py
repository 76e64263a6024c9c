"""Findings from using the CLI as a sustainability team would: an output folder that cannot be
written is a bad-input error found before any model call, and the files handed to people get the
mode of any other new file (mkstemp alone gives 0600)."""

from __future__ import annotations

import os
import stat

import pytest

from autofill.answer.pipeline import run_questionnaire
from autofill.errors import InputError
from autofill.fileio import ensure_writable_dir
from autofill.providers.base import Providers
from autofill.settings import Settings
from tests.answer_helpers import COMPANY, FACTS, make_questionnaire, copied_workspace


@pytest.fixture(scope="module")
def ingested(tmp_path_factory):
    root = tmp_path_factory.mktemp("ws")
    _, emb = copied_workspace(root)
    return root, emb, make_questionnaire(root / "questionnaire.xlsx", FACTS[:2])


def test_unwritable_output_folder_is_bad_input_before_any_llm_call(ingested, tmp_path, llm_server):
    root, emb, questionnaire = ingested
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    s = Settings(workspace=root)
    s.llm.base_url, s.llm.api_key = llm_server.base_url, "sk-test"
    with pytest.raises(InputError, match="output folder"):
        run_questionnaire(s, COMPANY, questionnaire, out_dir=blocker / "out", providers=Providers(embedder=emb))
    assert llm_server.chat_requests() == []


def test_ensure_writable_dir(tmp_path):
    assert ensure_writable_dir(tmp_path / "new" / "deeper").is_dir()
    (tmp_path / "file").write_text("x")
    with pytest.raises(InputError, match="is a file"):
        ensure_writable_dir(tmp_path / "file")
    if os.geteuid() != 0:  # root writes anywhere
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o555)
        with pytest.raises(InputError, match="cannot write"):
            ensure_writable_dir(ro)


def test_outputs_get_the_mode_of_an_ordinary_new_file(ingested, tmp_path):
    root, emb, questionnaire = ingested
    mask = os.umask(0o022)
    os.umask(mask)
    report = run_questionnaire(Settings(workspace=root), COMPANY, questionnaire, out_dir=tmp_path,
                               providers=Providers(embedder=emb))
    assert stat.S_IMODE(report.output.stat().st_mode) == 0o666 & ~mask  # mkstemp alone gives 0600


def test_explicit_llm_options_without_an_llm_warn(ingested, tmp_path, caplog):
    import logging

    root, emb, questionnaire = ingested
    s = Settings(workspace=root)
    s.retrieval.mode, s.retrieval.reranker = "hyde+hybrid", "llm"
    with caplog.at_level(logging.WARNING, logger="autofill"):
        report = run_questionnaire(s, COMPANY, questionnaire, out_dir=tmp_path, providers=Providers(embedder=emb))
    assert report.failed == 0
    warned = "\n".join(r.getMessage() for r in caplog.records if r.levelno == logging.WARNING)
    assert "retrieval 'hyde+hybrid' needs an LLM" in warned and "using 'hybrid'" in warned
    assert "reranker 'llm' needs an LLM" in warned and "using 'none'" in warned
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="autofill"):
        run_questionnaire(Settings(workspace=root), COMPANY, questionnaire, out_dir=tmp_path,
                          providers=Providers(embedder=emb))
    assert "needs an LLM" not in caplog.text  # the offline defaults are not a surprise
