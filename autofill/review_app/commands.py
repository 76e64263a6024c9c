"""`autofill review OUTPUT`: the click wiring of the review web application (registered by cli.py).
Serves one filled workbook, or every filled workbook of a portfolio's output folder, on 127.0.0.1 with a
random session token in the URL it prints; `--apply` instead writes the decisions that wait in the
sidecar (the workbook was open in Excel) and exits. One server per workbook: a second `autofill review`
of a workbook under review stops with one line naming the first (serverlock.py)."""

from __future__ import annotations

import json
import logging
import socket
import sys
from pathlib import Path

import click

from autofill import choices
from autofill.cli_common import build_settings, emit_json, handle_errors as _handled
from autofill.errors import InputError

log = logging.getLogger(__name__)


def _workbooks(target: Path) -> list[Path]:
    """The filled workbooks to review: the file itself, or the autofill outputs in a folder."""
    from autofill.fileio import missing
    from autofill.review.reader import read_filled_workbook

    if target.is_file():
        return [target]
    if not target.is_dir():
        raise missing("output workbook", target)
    found = []
    for p in sorted([*target.glob("*.xlsx"), *target.glob("*.xlsm")]):
        if p.name.startswith((".", "~$")):
            continue
        try:
            book = read_filled_workbook(p)
        except Exception:  # noqa: BLE001 - damaged: one of ours when it has history copies (recovered below)
            from autofill.workbook.history import versions

            if versions(p):
                found.append(p)
            continue  # the portfolio workbook, an eval report: not a filled questionnaire
        if book.questions:
            found.append(p)
    if not found:
        raise InputError(f"no filled autofill workbook in {target} (looked for .xlsx files with Question and "
                         "Sources columns)")
    return found


@click.command()
@click.argument("output", type=click.Path(path_type=Path))
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on. Another than 127.0.0.1 lets other machines in: the token is the only lock.")
@click.option("--port", type=int, default=0, help="Port (default: a free one).")
@click.option("--no-browser", is_flag=True, help="Print the URL without opening a browser.")
@click.option("--json", "as_json", is_flag=True, help='First stdout line: {"url": ..., "workbook": ...}.')
@click.option("--apply", "apply_only", is_flag=True,
              help="Write the decisions waiting next to the workbook (it was open in Excel) into it, and exit.")
@click.option("--llm", "llm_provider", type=click.Choice([choices.AUTO, *choices.chat_providers(), choices.NONE]),
              default=None, help="Re-answer with this provider instead of the one the run used (as `run --llm`).")
@click.option("--model", default=None,
              help="Re-answer with this chat model instead of the one the run used (as `run --model`).")
@click.pass_context
@_handled
def review(ctx, output, host, port, no_browser, as_json, apply_only, llm_provider, model):
    """Review a filled OUTPUT workbook (or a portfolio's output folder) in the browser: approve, edit,
    comment, send back and re-answer rows; every decision is written into the workbook. Re-answers use
    the model, endpoint, retrieval, reranker and price the workbook's run recorded, unless --llm or
    --model say otherwise."""
    from autofill.review_app.forms import open_session

    import importlib.util


    if not apply_only and importlib.util.find_spec("starlette") is None:
        raise InputError("autofill review needs starlette, which this install lacks: pip install 'starlette>=0.40'")
    settings = build_settings(ctx, llm={"provider": llm_provider, "model": model},
                              flags={"llm.provider": "--llm", "llm.model": "--model"})
    paths = _workbooks(Path(output))
    for path in paths:
        _recover(path)
    if apply_only:
        written = []
        for path in paths:
            session = open_session(settings, path)
            try:
                n = session.flush()
            finally:
                session.store.close()
            written.append({"workbook": str(path), "decisions_written": n})
        if as_json:
            emit_json({"applied": written})
        else:
            for w in written:
                click.echo(f"{Path(w['workbook']).name}: {w['decisions_written']} decisions written")
        return
    from autofill.review_app.serverlock import hold_all, release_all

    locks = hold_all(paths)  # before anything is loaded: a second server stops here, exit 2
    try:
        _serve(settings, [open_session(settings, p) for p in paths], host, port, no_browser, as_json, locks)
    finally:
        release_all(locks)


def _recover(path: Path) -> None:
    """A workbook that cannot be opened (workbook/recovery.py): kept aside, its newest history copy that
    opens put in its place and said in one line, the decisions that copy lacks written again from the
    sidecar; with no such copy, one line and exit 2, the file left as it is."""
    from autofill.outputlock import OutputLock
    from autofill.review.sidecar import reopen_unlogged
    from autofill.workbook.recovery import recover

    with OutputLock(path):  # not while a run writes it
        recovery = recover(path, without_copy=False)
        if recovery is None:
            return
        if recovery.restored is None:
            raise InputError(recovery.message(without="nothing was changed; `autofill run` with its questionnaire "
                                                      "starts it again and keeps this file aside"))
        reopened = reopen_unlogged(path)
    log.warning("%s%s", recovery.message(), f"; {len(reopened)} later decisions are written again from the "
                f"review sidecar" if reopened else "")


def _serve(settings, sessions, host: str, port: int, no_browser: bool, as_json: bool, locks=()) -> None:
    import contextlib

    import uvicorn

    from autofill.review_app.app import AppState, build_app
    from autofill.review_app.security import new_token

    state = AppState(settings=settings, sessions=sessions, token=new_token(), host=host)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)  # connections made as soon as the URL is printed wait for the server to start
    except OSError as exc:
        for s in sessions:
            s.store.close()
        raise InputError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    # Ctrl-C / SIGTERM: uvicorn shuts down gracefully (pending decisions written), then raises the signal
    # again for the handler it found: this one, which only notes it, so the command ends with exit 0. It
    # is in place before the URL is printed, so a signal that comes before uvicorn runs is not lost.
    import signal

    stopped: list[int] = []
    servers: list = []  # the uvicorn server once made: a signal before it installs its own handlers stops it

    def note(signum: int, _frame) -> None:
        stopped.append(signum)
        for server in servers:
            server.should_exit = True

    previous = {sig: signal.signal(sig, note) for sig in (signal.SIGINT, signal.SIGTERM)}
    state.port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{state.port}/?token={state.token}"
    for lock in locks:
        lock.announce(url.split("?", 1)[0])
    if host not in ("127.0.0.1", "localhost", "::1"):
        log.warning("listening on %s: anyone who can reach this machine and has the URL can change the workbook; "
                    "the token in it is the only lock", host)
    if as_json:
        click.echo(json.dumps({"url": url, "workbook": str(sessions[0].path),
                               "workbooks": [str(s.path) for s in sessions]}))
    else:
        click.echo(f"Reviewing {', '.join(s.path.name for s in sessions)} at {url}")
        click.echo("Decisions are saved as you make them. Press Ctrl-C to stop.")
    sys.stdout.flush()
    for s in sessions:
        s.start()

    @contextlib.asynccontextmanager
    async def lifespan(app):
        if not no_browser:
            import threading
            import webbrowser

            threading.Timer(0.3, webbrowser.open, args=(url,)).start()
        yield
        state.close()

    app = build_app(state, lifespan=lifespan)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
    server = uvicorn.Server(config)
    servers.append(server)
    try:
        if not stopped:  # a signal from here on sets should_exit, which uvicorn reads before serving
            server.run(sockets=[sock])
    finally:
        state.close()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if not as_json:
        left = sum(s.left for s in sessions)
        click.echo(f"Review stopped; {left} decisions wait next to the workbook (see the warning above)" if left
                   else "Review stopped; every decision is in the workbook")
