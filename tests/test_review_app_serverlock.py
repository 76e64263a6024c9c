"""Two reviews of one workbook (issue 32): a second `autofill review` of a workbook under review stops
with one line naming the first (two real server processes), the lock dies with its process (kill -9),
and two app instances that still meet on one sidecar never overwrite each other unseen: a save on a
stale row version is a 409 with both versions, as two reviewers on one server get."""

from __future__ import annotations

import json
import signal
import subprocess

from autofill.review_app.apply import read_log
from autofill.review_app.serverlock import server_lock_path
from autofill.settings import Settings
from tests import cli_process
from tests.review_app_helpers import ReviewServer, server_env
from tests.review_fixtures import make_output_workbook
from tests.test_review_app import Server, _cells, filled  # noqa: F401 - `filled` is the module's fixture


def _second(workspace, path):
    cmd = ["--workspace", str(workspace), "review", str(path), "--no-browser", "--json", "--port", "0"]
    return cli_process.run(cmd, timeout=120, env=server_env())


def test_a_second_review_server_on_the_same_workbook_stops_with_one_line(tmp_path, workspace):
    path = make_output_workbook(tmp_path / "filled.xlsx")
    other = make_output_workbook(tmp_path / "other.xlsx")
    first = ReviewServer(workspace, path)
    try:
        second = _second(workspace, path)
        assert second.returncode == 2 and second.stdout == ""
        assert second.stderr.count("\n") == 1, second.stderr
        assert "filled.xlsx is already being reviewed at " + first.base in second.stderr
        assert f"PID {first.proc.pid}" in second.stderr and "token" not in server_lock_path(path).read_text()
        with ReviewServer(workspace, other) as beside:  # another workbook of the folder is free
            assert beside.base != first.base
    finally:
        assert first.stop(signal.SIGKILL) == -signal.SIGKILL  # no clean-up ran: the kernel lets go of the lock
    again = ReviewServer(workspace, path)
    assert again.stop() == 0


def test_a_save_on_a_stale_version_from_another_server_is_a_conflict(filled, tmp_path):
    root, data, name = filled
    path = tmp_path / name
    path.write_bytes(data)
    a, b = Server(Settings(workspace=root), path), Server(Settings(workspace=root), path)  # one sidecar
    try:
        key = next(iter(a.session.questions))
        loaded = b.version(key)
        assert a.version(key) == loaded
        assert a.decide(key, "Edit", reviewer="Ana", base=loaded, answer="Ana's answer").status_code == 200
        r = b.decide(key, "Edit", reviewer="Ben", base=loaded, answer="Ben's answer")
        assert r.status_code == 409, r.text
        data = r.json()
        assert data["conflict"] and data["theirs"]["answer"] == "Ana's answer"
        assert b.session.state(key)["answer"] == "Ana's answer" and b.version(key) == data["version"]
        # Ben keeps his version after seeing both: saved over the version he was shown.
        assert b.decide(key, "Edit", reviewer="Ben", base=data["version"], answer="Ben's answer").status_code == 200
        # And Ana's server, whose page still holds her own version, is told in turn; its page shows Ben's.
        assert a.decide(key, "Approve", reviewer="Ana", base=a.version(key)).status_code == 409
        assert "Ben&#39;s answer" in a.client.get("/").text
        a.session.flush()
        b.session.flush()
        q, _, _ = _cells(path, key)
        assert q.existing_answer == "Ben's answer"
        assert [(x["Reviewer"], x["After"]) for x in read_log(path) if x["Field"] == "Answer"] == [
            ("Ana", "Ana's answer"), ("Ben", "Ben's answer")]
    finally:
        a.close()
        b.close()


def test_a_stale_save_is_a_conflict_across_processes(tmp_path, workspace):
    """The real server in its own process and an app instance here meet on one sidecar (as a server
    on another machine over a shared folder would): SQLite's write lock is what orders them."""
    import http.client
    import json
    from urllib.parse import quote

    from autofill.review_app.security import csrf_token
    from tests.review_fixtures import QUESTION_2

    path = make_output_workbook(tmp_path / "filled.xlsx")
    with ReviewServer(workspace, path) as served:
        host, port = served.base.split("//", 1)[1].rsplit(":", 1)
        token = served.url.split("token=", 1)[1]
        headers = {"X-Review-Token": token, "X-CSRF-Token": csrf_token(token), "Content-Type": "application/json"}

        def call(method, url, body=None):
            conn = http.client.HTTPConnection(host, int(port), timeout=60)
            conn.request(method, url, body=json.dumps(body) if body is not None else None, headers=headers)
            r = conn.getresponse()
            return r.status, json.loads(r.read())

        here = Server(Settings(workspace=workspace), path)
        try:
            key = next(k for k, q in here.session.questions.items() if q.question == QUESTION_2)
            _, row = call("GET", f"/api/row?key={quote(key)}")
            assert row["version"] == here.version(key)
            assert here.decide(key, "Edit", reviewer="Ana", answer="Ana's answer").status_code == 200
            status, data = call("POST", "/api/decide", {"key": key, "base": row["version"], "reviewer": "Ben",
                                                        "action": "Edit", "values": {"answer": "Ben's answer"}})
            assert status == 409 and data["theirs"]["answer"] == "Ana's answer", data
        finally:
            here.close()
        assert served.stop() == 0  # the served one writes what waits in the sidecar as it stops
    q, _, _ = _cells(path, key)
    assert q.existing_answer == "Ana's answer"


def test_a_server_stopped_as_soon_as_it_prints_its_url_ends(tmp_path, workspace):
    """A SIGTERM that came after the URL was printed but before uvicorn put in its own handlers was only
    noted, and the server then ran until killed (seen with servers that start fast, as forked ones do)."""
    path = make_output_workbook(tmp_path / "filled.xlsx")
    args = ["--workspace", str(workspace), "review", str(path), "--no-browser", "--json", "--port", "0"]
    for _ in range(6):
        server = cli_process.popen(args, env=server_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert json.loads(server.stdout.readline())["url"]
        server.terminate()
        try:
            out, err = server.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
            server.communicate()
            raise AssertionError("the server went on serving after SIGTERM")
        assert server.returncode == 0, err
