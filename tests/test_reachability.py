"""Fail fast when the model cannot be used at all (providers/reachability.py): a server that is down, a
refused key and an unknown model stop `autofill run` on the first call, with one line naming the base
URL and model and what to check, exit code 2, and the existing output byte-identical. Transient errors
keep their retries (tests/test_retry.py). Real openai and cohere SDKs against loopback servers; the dead
endpoint is a closed loopback port."""

from __future__ import annotations

import json
import socket

import pytest
from click.testing import CliRunner

from autofill.answer.pipeline import run_questionnaire
from autofill.cli import cli
from autofill.errors import EndpointError, InputError
from autofill.providers.base import Providers
from autofill.providers.factory import make_chat
from autofill.providers.reachability import connect_failure
from autofill.settings import Settings
from tests.answer_helpers import COMPANY, FACTS, SAMPLE, make_questionnaire, copied_workspace
from tests.llm_server import LLMServer
from tests.pdf_factory import make_sample_company_pdf


def closed_port_url() -> str:
    """A loopback URL where nothing listens: connecting is refused at once."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


@pytest.fixture(scope="module")
def ingested(tmp_path_factory):
    root = tmp_path_factory.mktemp("ws")
    _, emb = copied_workspace(root, filler=False)
    return root, emb, make_questionnaire(root / "questionnaire.xlsx")


def settings_for(root, base_url, key="sk-test", **llm) -> Settings:
    s = Settings(workspace=root)
    s.llm.provider, s.llm.base_url, s.llm.api_key, s.llm.model = "openai", base_url, key, "gpt-4o-mini"
    # Retries that would take minutes: a run-level failure must not go through them.
    s.llm.retry_base_delay_s, s.llm.max_retries, s.llm.concurrency, s.llm.cache = 20.0, 4, 4, False
    for k, v in llm.items():
        setattr(s.llm, k, v)
    return s


def good_output(root, emb, questionnaire, out_dir):
    """The issue's starting point: a good evidence-only workbook, whose every row a model run answers."""
    report = run_questionnaire(Settings(workspace=root), COMPANY, questionnaire, out_dir=out_dir,
                               providers=Providers(embedder=emb))
    assert report.drafted == len(FACTS)
    return report.output


@pytest.mark.parametrize("case", ["dead endpoint", "wrong key", "unknown model"])
def test_an_unusable_endpoint_stops_the_run_and_leaves_the_output_alone(ingested, tmp_path, case):
    root, emb, questionnaire = ingested
    output = good_output(root, emb, questionnaire, tmp_path)
    before = output.read_bytes()
    server = LLMServer(require_key="sk-right").start()
    try:
        if case == "dead endpoint":
            url, key, expected = closed_port_url(), "sk-right", "connection refused; check OPENAI_BASE_URL"
        elif case == "wrong key":
            url, key, expected = server.base_url, "sk-wrong", "HTTP 401"
        else:
            server.fail_next(50, status=404, message="The model `gpt-4o-mini` does not exist")
            url, key, expected = server.base_url, "sk-right", "check the model name"
        s = settings_for(root, url, key)
        with pytest.raises(EndpointError) as err:
            run_questionnaire(s, COMPANY, questionnaire, out_dir=tmp_path,
                              providers=Providers(embedder=emb, chat=make_chat(s)))
        message = str(err.value)
        assert isinstance(err.value, InputError)  # one line, exit code 2
        assert f"cannot use openai model 'gpt-4o-mini' at {url}: " in message and expected in message
        assert "\n" not in message and "sk-wrong" not in message and "sk-right" not in message
        # Stopped on the first call(s): no retries (they would wait 20 s and more), at most one request
        # per row (the rows already in flight when the first one failed), no HyDE -> rerank -> answer.
        assert server.count("chat") <= len(FACTS)
    finally:
        server.stop()
    assert output.read_bytes() == before  # the good output is untouched
    assert not (tmp_path / "history").exists()  # nothing was replaced, so nothing to keep


def test_cli_exits_2_with_one_line_when_the_chat_server_is_down(tmp_path, cohere_server, monkeypatch):
    """The issue's case through the CLI: the store is fine (Cohere embedder), OPENAI_BASE_URL points at a
    server that is down. One line on stderr, exit 2, the previous output byte-identical."""
    ws = tmp_path / "ws"
    monkeypatch.setenv("COHERE_BASE_URL", cohere_server.base_url)
    monkeypatch.setenv("COHERE_API_KEY", "co-test")
    pdf = make_sample_company_pdf(tmp_path / SAMPLE)
    questionnaire = make_questionnaire(tmp_path / "q.xlsx")
    runner = CliRunner()

    def invoke(*args):
        return runner.invoke(cli, ["--workspace", str(ws), *map(str, args)])

    assert invoke("ingest", "--company", COMPANY, pdf, "--embedder", "cohere", "--json").exit_code == 0
    good = invoke("run", "--company", COMPANY, "--questionnaire", questionnaire, "--llm", "none", "--json")
    assert good.exit_code == 0, good.stderr
    data = json.loads(good.stdout.strip().splitlines()[-1])
    assert data["drafted"] == len(FACTS) and data["answered"] == data["unparsed"] == data["failed"] == 0
    output = tmp_path / "ws" / "reports_out" / "q_Northwind_Metals_filled.xlsx"
    assert data["output"] == str(output)
    before = output.read_bytes()

    dead = closed_port_url()
    monkeypatch.setenv("OPENAI_BASE_URL", dead)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    result = invoke("run", "--company", COMPANY, "--questionnaire", questionnaire, "--llm", "openai", "--json")
    assert result.exit_code == 2
    assert result.stdout == "" and result.stderr.count("\n") == 1
    assert result.stderr.startswith(f"autofill: cannot use openai model 'gpt-4o-mini' at {dead}: connection refused")
    assert output.read_bytes() == before


def test_connect_failure_reads_the_cause_chain():
    try:
        try:
            raise ConnectionRefusedError(111, "Connection refused")
        except OSError as exc:
            raise RuntimeError("Connection error.") from exc
    except RuntimeError as outer:
        assert connect_failure(outer) == "connection refused"
    try:
        raise socket.gaierror(-2, "Name or service not known")
    except OSError as exc:
        assert connect_failure(exc) == "host name not found"
    assert connect_failure(TimeoutError("read timed out")) is None  # a timeout is transient, not fatal
