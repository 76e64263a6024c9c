"""The review web application (Starlette, served by uvicorn): one page of rows rendered on the server
(Jinja2, autoescaped: PDF text and answers are untrusted), page images rendered on first request, and
a small JSON API the page's inline script calls. No asset comes from the network.

Routes (all behind security.Guard): `GET /` the rows (filters `tier`, `review`, `section`, `page`;
`wb` picks a workbook of a portfolio folder), `GET /img` a cited page with its highlight, `GET /api/row`,
`GET /api/status`, `GET /api/estimate`, and the state-changing `POST /api/decide`, `/api/undo`,
`/api/reanswer`, `/api/library`."""

from __future__ import annotations

import logging
import shutil
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from autofill.errors import InputError
from autofill.review.highlights import select_highlights
from autofill.review.page_images import PageRenderer
from autofill.review.pdf_sources import locate_pdfs
from autofill.review_app import views
from autofill.review_app.limits import BadRequest, read_body
from autofill.review_app.checking import Unconfirmed
from autofill.review_app.reanswer import add_to_library, estimate_row, reanswer_row, reanswer_with
from autofill.review_app.security import Guard, csrf_token
from autofill.review_app.session import Conflict, Refused, ReviewSession, version_of
from autofill.review.sidecar import Stale
from autofill.tempdirs import make_temp_dir, sweep

log = logging.getLogger(__name__)

TEMPLATE = "review.html.j2"


@dataclass
class AppState:
    settings: object
    sessions: list[ReviewSession]
    token: str
    host: str = "127.0.0.1"
    port: int = 0
    pages_dir: Path = field(default_factory=lambda: _pages_dir())
    _renderers: dict = field(default_factory=dict)
    _render_lock: threading.Lock = field(default_factory=threading.Lock)
    _sources: dict = field(default_factory=dict)
    _closed: bool = False

    def session(self, wb: str | None) -> ReviewSession:
        try:
            index = int(wb or 0)
            if index < 0:
                raise IndexError(index)
            return self.sessions[index]
        except (ValueError, IndexError):
            raise Refused(f"no workbook {wb!r} in this review") from None

    def close(self) -> None:
        """Write what is pending and let go of files; safe to call twice."""
        if self._closed:
            return
        self._closed = True
        for s in self.sessions:
            s.close()
        for r in self._renderers.values():
            r.close()
        shutil.rmtree(self.pages_dir, ignore_errors=True)


def _pages_dir() -> Path:
    """Page images of this server, in a folder tagged with its process (tempdirs): a killed server's
    folder is removed by the next one."""
    parent = Path(tempfile.gettempdir()) / "autofill-review"
    sweep(parent)
    return make_temp_dir(parent, "pages")


def _templates():
    import jinja2

    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(Path(__file__).parent / "templates")),
                              autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True,
                              lstrip_blocks=True)


def _int(value, default: int = 1) -> int:
    try:
        return max(1, int(value))
    except (TypeError, ValueError):
        return default


def build_app(state: AppState, lifespan=None) -> Starlette:
    env = _templates()

    async def page(request: Request):
        p = request.query_params
        wb = p.get("wb", "0")
        session = state.session(wb)
        await run_in_threadpool(session.refresh)
        tier, review, section = p.get("tier", ""), p.get("review", ""), p.get("section", "")
        datapoint = p.get("datapoint", "")
        keys = views.select(session, tier, review, section, datapoint)
        pages = max(1, -(-len(keys) // views.PER_PAGE))
        current = min(_int(p.get("page")), pages)
        rows = views.page_rows(session, keys, current)
        done, total = session.counts()

        model, using = reanswer_with(state.settings, session)  # the run's recorded plan, or --model/--llm
        html = env.get_template(TEMPLATE).render(
            rows=rows, wb=wb, workbooks=[s.path.name for s in state.sessions], workbook=session.path.name,
            company=session.company, reviewed=done, total=total, shown=len(keys), page=current, pages=pages,
            filters={"tier": tier, "review": review, "section": section, "datapoint": datapoint},
            sections=views.sections(session), datapoints=views.datapoints(session),
            csrf=csrf_token(state.token), model=model, reanswer_with=using, status=session.status())
        return HTMLResponse(html, headers={"Cache-Control": "no-store"})

    async def image(request: Request):
        p = request.query_params
        session = state.session(p.get("wb"))
        png = await run_in_threadpool(_render, state, session, p.get("key", ""), _int(p.get("rank"), 0),
                                      _int(p.get("page"), 0))
        return Response(png, media_type="image/png", headers={"Cache-Control": "private, max-age=3600"})

    async def row(request: Request):
        session = state.session(request.query_params.get("wb"))
        key = request.query_params.get("key", "")
        current = session.state(key)

        return JSONResponse({"state": current, "version": version_of(current)})

    async def status(request: Request):
        return JSONResponse(state.session(request.query_params.get("wb")).status())

    async def decide(request: Request):
        body = await read_body(request, "decide")
        session = state.session(body.get("wb"))
        confirm = list(body.get("confirm") or [])  # a list of texts (limits.check_confirm)
        saved = await run_in_threadpool(session.decide, body.get("key", ""), body.get("base", ""),
                                        body.get("reviewer", ""), body.get("action", ""), body.get("values") or {},
                                        "", confirm)
        return _saved(session, saved)

    async def undo(request: Request):
        body = await read_body(request, "undo")
        session = state.session(body.get("wb"))
        saved = await run_in_threadpool(session.undo, body.get("key", ""), body.get("base", ""),
                                        body.get("reviewer", ""))
        return _saved(session, saved)

    async def estimate(request: Request):
        session = state.session(request.query_params.get("wb"))
        return JSONResponse(await run_in_threadpool(estimate_row, state.settings, session,
                                                    request.query_params.get("key", "")))

    async def reanswer(request: Request):
        body = await read_body(request, "reanswer")
        session = state.session(body.get("wb"))
        done = await run_in_threadpool(reanswer_row, state.settings, session, body.get("key", ""),
                                       body.get("base", ""), body.get("reviewer", ""))
        return JSONResponse(done)

    async def library(request: Request):
        body = await read_body(request, "library")
        session = state.session(body.get("wb"))
        return JSONResponse(await run_in_threadpool(add_to_library, state.settings, session, body.get("key", "")))

    routes = [Route("/", page), Route("/img", image), Route("/api/row", row), Route("/api/status", status),
              Route("/api/estimate", estimate), Route("/api/decide", decide, methods=["POST"]),
              Route("/api/undo", undo, methods=["POST"]), Route("/api/reanswer", reanswer, methods=["POST"]),
              Route("/api/library", library, methods=["POST"])]
    handlers = {Conflict: _conflict, Stale: _conflict, Refused: _refused, InputError: _refused, ValueError: _refused,
                BadRequest: _bad_request, Unconfirmed: _unconfirmed}
    app = Starlette(routes=routes, exception_handlers=handlers, lifespan=lifespan)
    return Guard(app, state.token, state.host, lambda: state.port)


def _saved(session: ReviewSession, saved) -> JSONResponse:
    st = session.status()
    message = "Saved" + (f"; {saved.replaced}" if saved.replaced else "")
    if st["blocked"]:
        message = f"Saved; not yet in the workbook: {st['blocked']}"
    key = saved.decision.row_key if saved.decision else ""
    return JSONResponse({"ok": True, "message": message, "state": saved.state, "version": saved.version,
                         "decision": saved.decision.id if saved.decision else None, **views.trust_json(saved.trust),
                         **st, **({"status": session.statuses[key]} if key in session.statuses else {})})


async def _bad_request(request: Request, exc: BadRequest) -> JSONResponse:
    return JSONResponse({"ok": False, "message": str(exc)}, status_code=exc.status)


async def _conflict(request: Request, exc: Conflict | Stale) -> JSONResponse:
    return JSONResponse({"ok": False, "conflict": True, "message": str(exc), "theirs": exc.theirs,
                         "version": exc.version}, status_code=409)


async def _unconfirmed(request: Request, exc: Unconfirmed) -> JSONResponse:
    """428: the decision waits for the reviewer to confirm the failed checks it names."""
    return JSONResponse({"ok": False, "confirm": exc.reasons, "approve": exc.approve, "message": str(exc)},
                        status_code=428)


async def _refused(request: Request, exc: Exception) -> JSONResponse:
    return JSONResponse({"ok": False, "message": str(exc).strip("'\"")}, status_code=400)


def _render(state: AppState, session: ReviewSession, key: str, rank: int, page: int) -> bytes:
    """A cited page of row `key`'s passage `rank`, its answer-carrying sentences highlighted."""
    q = session.questions.get(key)
    e = next((e for e in (q.evidence if q else []) if e.rank == rank), None)
    if e is None or page not in e.pages:
        raise Refused("no such passage page")
    current = session.state(key)
    with state._render_lock:
        sources = state._sources.get(session.path)
        if sources is None:
            names = sorted({x.file_name for qq in session.questions.values() for x in qq.evidence})
            roots = [session.path.parent, Path(getattr(state.settings, "workspace", session.path.parent))]
            sources, _notes = locate_pdfs(state.settings, names, company=session.company,
                                          run_info_docs=session.book.info("documents"), search_roots=roots)
            state._sources[session.path] = sources
        src = sources.get(e.file_name)
        if src is None or src.path is None:
            raise Refused(f"PDF not found: {e.file_name}")
        renderer = state._renderers.setdefault(session.path, PageRenderer(state.pages_dir / str(id(session))))
        marks = select_highlights(e.text, current["answer"], current["reasoning"]) or [e.text]
        done = renderer.render(src.path, e.file_name, page, marks)
        return done.image.read_bytes()
