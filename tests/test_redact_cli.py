"""No secret of the endpoint reaches a file or the screen (autofill/redact.py and its callers): a
questionnaire run through the real CLI against the loopback OpenAI-compatible server, at a URL that
carries a user, a password and a query key, with --debug (the SDK's and httpx's own lines), --json,
`ask`, an error from the endpoint, `config` and the review pack; then every file of the workspace and
the output folder (zips and workbooks opened, SQLite files byte for byte) and everything printed are
searched for the secrets and the API key: none is found, while the endpoint stays identifiable."""

from __future__ import annotations

import json
from pathlib import Path

import openpyxl

from tests.answer_helpers import COMPANY, MARKERS, SAMPLE, make_questionnaire
from tests.grep_helpers import every_file
from tests.llm_server import by_marker
from tests.pdf_factory import make_sample_company_pdf
from tests.race_helpers import cli

USER, PASSWORD, QUERY_KEY, API_KEY = "alice7user", "s3cr3tPW", "QSECRET77", "sk-APIKEY-0123456789abcdefZZ"
SECRETS = (USER, PASSWORD, QUERY_KEY, API_KEY)


def secrets_found(folders: list[Path], texts: dict[str, str]) -> list[str]:
    found = []
    for folder in folders:
        for name, data in every_file(folder):
            found += [f"{name}: {s}" for s in SECRETS if s.encode() in data]
    for name, text in texts.items():
        found += [f"{name}: {s}" for s in SECRETS if s in text]
    return found


def test_no_secret_of_the_endpoint_reaches_a_file_or_the_screen(tmp_path, llm_server):
    llm_server.responder = by_marker(MARKERS)
    port = llm_server.url.rsplit(":", 1)[1]
    base_url = f"http://{USER}:{PASSWORD}@127.0.0.1:{port}/v1?api-key={QUERY_KEY}"
    env = {"OPENAI_BASE_URL": base_url, "OPENAI_API_KEY": API_KEY, "AUTOFILL_LLM__MODEL": "gpt-4o-mini"}
    ws, out = tmp_path / "ws", tmp_path / "out"
    wsa = ["--workspace", str(ws)]
    (tmp_path / "docs").mkdir()
    pdf = make_sample_company_pdf(tmp_path / "docs" / SAMPLE)
    questionnaire = make_questionnaire(tmp_path / "questionnaire.xlsx")
    printed: dict[str, str] = {}

    def run(name: str, args: list[str], code: int = 0):
        done = cli([*wsa, *args], env)
        printed[name] = done.stdout + done.stderr
        assert done.returncode == code, (name, done.stderr[-6000:])
        return done

    run("ingest", ["ingest", "--company", COMPANY, str(pdf)])
    run_args = ["run", "--company", COMPANY, "--questionnaire", str(questionnaire), "--llm", "openai",
                "--out", str(out), "--yes"]
    run("run --debug", ["--debug", *run_args])
    filled = next(out.glob("*.xlsx"))
    run("run --json (from the cache)", [*run_args, "--json"])
    run("ask --json", ["-v", "ask", "--company", COMPANY, "--json",
                       "What share of electricity was renewable in FY2024?"])
    run("report --pack", ["--debug", "report", str(filled), "--pack"])
    run("config", ["config"])
    run("config --json", ["config", "--json"])
    llm_server.fail_next(5, status=401)  # the server refuses: the error message names the endpoint
    failed = run("ask refused", ["--debug", "ask", "--company", COMPANY,
                                 "Which committee oversees climate risks?"], code=2)

    # The secrets were really used: the server was called at that URL, and the run answered.
    assert all(f"api-key={QUERY_KEY}" in r.query for r in llm_server.chat_requests())
    assert "HTTP Request: POST http://***@127.0.0.1" in printed["run --debug"]  # httpx's own line, masked
    assert "127.0.0.1:" in failed.stderr and "key" in failed.stderr
    info = {r[0].value: r[1].value for r in openpyxl.load_workbook(filled)["Run info"].iter_rows(min_row=2)}
    assert info["llm base url"] == f"http://***@127.0.0.1:{port}/v1?api-key=***"
    assert (out / f"{filled.stem}_review_pack.zip").is_file() and list((ws / "vectordb" / ".llm-cache").rglob("*.json"))
    entry = json.loads(next((ws / "vectordb" / ".llm-cache").rglob("*.json")).read_text())
    assert entry["base_url"] == f"http://***@127.0.0.1:{port}/v1?api-key=***"

    assert secrets_found([ws, out], printed) == []
