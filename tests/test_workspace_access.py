"""autofill/workspace_access.py: a read-only workspace is one line and exit 2 in every command that writes
it, before any model call, naming the folder and what to do. What the hostile-use battery did, through
the real CLI in fresh processes against the loopback model: an ingested workspace made read-only (tests
run as root, whom permission bits do not stop: every file and folder made immutable with `chattr +i`),
then each command. Before, `run` and `ask` failed row by row with database internals and advised a
re-run."""

from __future__ import annotations

import contextlib
import json
import subprocess
from pathlib import Path

import pytest

from autofill.errors import InputError
from autofill.workspace_access import ensure_workspace_writable
from tests.race_helpers import cli, ingested_workspace


@contextlib.contextmanager
def read_only(folder: Path):
    """Every file and folder under `folder` immutable (root respects it), undone afterwards."""
    if subprocess.run(["chattr", "-R", "+i", str(folder)], capture_output=True).returncode != 0:
        subprocess.run(["chattr", "-R", "-i", str(folder)], capture_output=True)
        pytest.skip("chattr +i is not available here: cannot make a workspace read-only for root")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-R", "-i", str(folder)], capture_output=True)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    from tests.answer_helpers import make_questionnaire
    from tests.portfolio_helpers import entries, write_manifest

    root = tmp_path_factory.mktemp("readonly")
    ws = ingested_workspace(root)
    q = make_questionnaire(root / "q.xlsx")
    manifest = write_manifest(root, entries(root, ("Northwind Metals",)))
    from tests.answer_helpers import COMPANY, FACTS, SAMPLE

    gold = root / "gold.json"
    gold.write_text(json.dumps([{"no": i, "question": f.question, "gold_answer": f.answer, "answer_type": "text",
                                 "gold": [{"file": SAMPLE, "page": f.page}]} for i, f in enumerate(FACTS, start=1)]))
    # A filled workbook to review (evidence-only drafts: no model), made while the workspace is writable.
    done = cli([*ws, "run", "--company", COMPANY, "--questionnaire", str(q), "--out", str(root / "filled")])
    assert done.returncode == 0, done.stderr[-3000:]
    return root, ws, q, manifest, gold


def commands(root: Path, q: Path, manifest: Path, gold: Path) -> dict[str, list[str]]:
    from tests.answer_helpers import COMPANY, SAMPLE

    return {
        "run": ["run", "--company", COMPANY, "--questionnaire", str(q), "--out", str(root / "out-run"), "--yes"],
        "ask": ["ask", "--company", COMPANY, "What were the Scope 1 emissions in 2024?"],
        "batch": ["batch", str(manifest), "--out", str(root / "out-batch"), "--yes"],
        "review": ["review", str(next((root / "filled").glob("*_filled.xlsx"))), "--apply"],
        "eval": ["eval", "--company", COMPANY, "--questionnaire", str(q), "--gold", str(gold), "--out",
                 str(root / "out-eval")],
        "library": ["library", "list", "--company", COMPANY],
        "ingest": ["ingest", "--company", COMPANY, str(root / SAMPLE), "--force"],
        "forget": ["forget", "--company", COMPANY, "--yes"],
        "companies": ["companies"],
    }


def test_every_command_on_a_read_only_workspace_says_so_in_one_line_before_any_model_call(workspace, llm_server):
    from tests.answer_helpers import MARKERS
    from tests.llm_server import by_marker

    root, ws, q, manifest, gold = workspace
    llm_server.responder = by_marker(MARKERS)
    env = {"OPENAI_BASE_URL": llm_server.base_url, "OPENAI_API_KEY": "sk-readonly",
           "AUTOFILL_LLM__MODEL": "gpt-4o-mini"}
    vectordb = root / "ws" / "vectordb"
    said = {}
    with read_only(root / "ws"):
        for name, args in commands(root, q, manifest, gold).items():
            done = cli([*ws, *args], env, timeout=300)
            said[name] = (done.returncode, [ln for ln in done.stderr.splitlines() if ln.strip()], done.stdout)
    assert llm_server.chat_requests() == []
    for name, (code, lines, _) in said.items():
        assert code == 2 and len(lines) == 1, (name, code, lines[-8:])
        assert f"the workspace {root / 'ws'} is read-only: autofill cannot write in {vectordb}" in lines[0], (name, lines)
        assert "--workspace" in lines[0]
    # Writable again, the same workspace works: nothing was half-written.
    done = cli([*ws, "companies", "--json"])
    assert done.returncode == 0 and '"Northwind Metals"' in done.stdout, done.stderr[-2000:]


def test_only_existing_folders_are_probed_and_the_probe_leaves_nothing(tmp_path):
    from types import SimpleNamespace

    settings = SimpleNamespace(workspace=tmp_path, vectordb_dir=tmp_path / "vectordb",
                               reports_dir=tmp_path / "reports_out")
    ensure_workspace_writable(settings)  # nothing made yet: nothing to probe, nothing made
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "vectordb" / ".llm-cache").mkdir(parents=True)
    (tmp_path / "vectordb" / "chroma.sqlite3").write_bytes(b"")
    ensure_workspace_writable(settings)
    assert sorted(p.name for p in tmp_path.rglob("*")) == [".llm-cache", "chroma.sqlite3", "vectordb"]
    with read_only(tmp_path / "vectordb" / ".llm-cache"):
        with pytest.raises(InputError, match=rf"cannot write in {tmp_path / 'vectordb' / '.llm-cache'} "):
            ensure_workspace_writable(settings)
    with read_only(tmp_path / "vectordb" / "chroma.sqlite3"):
        with pytest.raises(InputError, match=r"cannot write in .*chroma\.sqlite3 "):
            ensure_workspace_writable(settings)
