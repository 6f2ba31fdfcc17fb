"""The FastAPI application.

Routes (the OpenAPI schema is FastAPI's own, at /openapi.json; /docs shows it offline):
  GET  /api/health          {"status": "ready", ...} once the model is loaded and certified (start-up),
                            with the solve queue's figures
  POST /api/solve           {"expr": "..."} -> result and counters; bad input -> 400 {"error": ...};
                            server full -> 503 + Retry-After; over the request's budget -> 503 / 422
  POST /api/solve/stream    the same, answered as server-sent events: progress while it runs
                            (batches, forward passes, distinct views, an estimated percentage, time and
                            budget used), then the result or the error
  GET  /api/views           the view set V with each view's expected step
  GET  /api/model           the served model: file hashes, committed and recorded certificates
  POST /api/certificates    record a certificate a browser produced: re-checked with the one rule,
                            kept as the sender's claim (its device as reported, time, client address);
                            201, or 200 with the first row when it was recorded before
  GET  /api/certificates    the recorded certificates, newest first, a page of summaries at a time
                            (`before`: next_before of the previous page); unreadable rows are skipped
                            and listed under "skipped"
  GET  /api/certificates/N  one whole record, with its certificate
                            (the registry, store.py: SQLite or PostgreSQL; 503 + Retry-After while
                            its database cannot be used, solves unaffected)
  /docs                     Swagger UI from this server (web/vendor/swagger-ui), or a plain page
  /vendor/ort/*             ONNX Runtime Web's JS and wasm, copied from node_modules (npm ci)
  /model/*                  the served model's ONNX export (model.json, model.onnx[, model.onnx.data])
  /model-<variant>/*        its smaller variants (onnx-float16/, onnx-int8/ beside onnx/), listed in /api/model
  /*                        the static page in web/
Everything is local: no page loads an asset from another origin, so all of it works offline.

Bodies (guard.py): state-changing requests only as application/json, naming this server in
their Host (and Origin, if any); at most 8 MB, counted as they stream in (chunked included),
strict JSON (no NaN or Infinity).  Every response carries a Content-Security-Policy (static.py).
Solves (service.py, batcher.py): `workers` at once, their batches merged into shared model
calls; `queue` more wait; each request has a time and forward-pass budget.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from dataclasses import dataclass, field
from pathlib import Path

from fastapi import Body, FastAPI, Query, Request
from fastapi import Path as InPath
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response, StreamingResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from .. import strictjson, views
from ..errors import InputError, StepperFault
from ..estimate import expected_batches, expected_bytes, expected_views
from ..expr import Limits, parse
from ..reference import ReferenceStepper
from ..steppers import certificate_of, get
from ..version import __version__
from ..web import ROOT as WEB_ROOT
from . import models
from .batcher import Refused
from .docs import add_docs
from .guard import MAX_BODY, READ_SECONDS, RequestGuard
from .service import Capacity, SolveService
from .static import add_isolation_headers
from .store import CertificateStore, StoreUnavailable, Unreadable

log = logging.getLogger("sketchpad.server")


@dataclass
class Settings:
    db_path: str = str(Path.home() / ".sketchpad" / "certificates.sqlite")  # or a URL (database.py)
    web_dir: Path = WEB_ROOT
    ort_dir: Path = WEB_ROOT / "vendor" / "ort"  # copied from node_modules by `npm ci` (package.json)
    swagger_dir: Path = WEB_ROOT / "vendor" / "swagger-ui"  # likewise (web/tools/vendor-swagger-ui.mjs)
    model_dir: Path | None = None  # None: the shipped default model, when present
    stepper: object = "auto"  # who answers /api/solve: "model", "reference", "auto", or a stepper
    backend: str | None = None  # how a "model" stepper runs (None: ONNX Runtime when exported)
    allow_uncertified: bool = False
    max_digits: int | None = None  # None: the CLI's default limits
    capacity: Capacity = field(default_factory=Capacity)
    max_body: int = MAX_BODY
    body_seconds: float = READ_SECONDS  # the whole request body must arrive within this
    allowed_hosts: tuple = ()  # DNS names (besides IP addresses and localhost) a state-changing request may name
    extra: dict = field(default_factory=dict)


class SolveRequest(BaseModel):
    expr: str = Field(..., description='an expression in the CLI language, e.g. "123 * -45 + gcd(84, 36)"')
    max_digits: int | None = Field(None, ge=1, strict=True, description="a lower size limit than the server's")
    parallel: bool = Field(
        True, strict=True, description="carry-select batches (default); false: one view per forward pass"
    )


def _error(code: int, message: str, retry_after: int | None = None, **extra) -> JSONResponse:
    headers = {"Retry-After": str(retry_after)} if retry_after else None
    return JSONResponse(_finite({"error": message, **extra}), status_code=code, headers=headers)


def _finite(x):
    """Replace non-finite floats by their names (an error answer must always be writable)."""
    if isinstance(x, float) and not math.isfinite(x):
        return repr(x)
    if isinstance(x, dict):
        return {str(k): _finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_finite(v) for v in x]
    return x


def _refused(e: Refused) -> JSONResponse:
    return _error(e.status, str(e), retry_after=e.retry_after)


def _sse(event: str, data: dict) -> str:
    return f"event: {event}\ndata: {strictjson.dumps(data, separators=(',', ':'))}\n\n"


def create_app(settings: Settings | None = None) -> FastAPI:
    s = settings or Settings()
    s.capacity.check()

    @contextlib.asynccontextmanager
    async def lifespan(app):
        # Load (and if needed certify) before the first request: ready means ready.
        st = load_stepper()
        s.extra["stepper"] = st
        service = SolveService(st, s.capacity)
        service.start()
        app.state.service = service
        app.state.ready = True
        if s.extra.get("ready_message"):
            print(s.extra["ready_message"], flush=True)
        try:
            yield
        finally:
            app.state.ready = False
            service.close()
            app.state.store.close()

    app = FastAPI(
        title="Sketchpad",
        version=__version__,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        description="Long arithmetic by a model that sees three cells at a time, certified on every view.",
    )
    app.state.settings = s
    app.state.store = CertificateStore(s.db_path)
    served = models.ServedModel.find(s.model_dir)
    if served is not None and served.onnx_dir is not None:
        served.expectation()  # an export that cannot be read stops the server now, with the reason
    app.state.model = served
    app.state.ready = False
    app.state.service = None
    add_isolation_headers(app)
    app.add_middleware(RequestGuard, max_body=s.max_body, read_seconds=s.body_seconds, allowed_hosts=s.allowed_hosts)

    def load_stepper():
        """At start-up: the reference stepper, or the served model under a certificate that holds
        here (certified now if needed, sketchpad.certify.certified).  A model that fails stops
        the server from starting, with the reason."""

        if callable(s.stepper):  # a stepper object (tests, embedding)
            return s.stepper
        if s.stepper == "reference" or (s.stepper == "auto" and served is None):
            return ReferenceStepper()
        if served is None:
            raise InputError("this server has no model to solve with")

        return get("model", model=served.model_dir, backend=s.backend, allow_uncertified=s.allow_uncertified)

    def service() -> SolveService:
        if not app.state.ready or app.state.service is None:
            raise Refused("the server is starting: the model is loading", retry_after=2)
        return app.state.service

    # -- errors: always the project's shape {"error": ...}, always writable JSON ------------

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        parts = [
            "/".join(str(p) for p in e.get("loc", ()) if p != "body") + ": " + e.get("msg", "") for e in exc.errors()
        ]
        return _error(422, "invalid request: " + "; ".join(parts), detail=_finite(jsonable(exc.errors())))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException):
        return _error(exc.status_code, str(exc.detail))

    @app.exception_handler(Exception)
    async def _crash(request: Request, exc: Exception):
        log.exception("sketchpad: internal error on %s %s", request.method, request.url.path)
        return _error(500, f"internal server error ({type(exc).__name__}); the server log has the details")

    # -- routes -----------------------------------------------------------------------------

    @app.get("/api/health")
    def api_health():
        """Ready only once the stepper is loaded and certified (clients wait for this)."""
        if not app.state.ready:
            return _error(503, "starting: the model is loading", retry_after=2, status="starting")
        st = s.extra["stepper"]
        return {
            "status": "ready",
            "version": __version__,
            "stepper": getattr(st, "name", "reference"),
            "backend": getattr(st, "backend", None),
            "certificate": certificate_of(st),
            "solves": app.state.service.stats(),
            "registry": {"engine": app.state.store.engine_name, "usable": app.state.store.problem is None},
        }

    def limits_for(req: SolveRequest):
        limits = Limits() if s.max_digits is None else Limits(max_digits=s.max_digits)
        if req.max_digits is not None:
            limits = Limits(
                max_digits=min(req.max_digits, limits.max_digits),
                max_quadratic_digits=min(req.max_digits, limits.max_quadratic_digits),
            )
        return limits

    def answer(req: SolveRequest, sol) -> dict:
        d = sol.as_dict()
        return {"expr": req.expr, **d, "digits": len(d["result"].lstrip("-"))}

    async def admit(req: SolveRequest):
        """(limits, ticket) for a request, or an error response: bad input 400 before it
        takes a place in the queue, a full server 503."""

        limits = limits_for(req)
        try:
            tree = await run_in_threadpool(parse, req.expr.strip(), limits)
        except InputError as e:
            return None, _error(400, str(e))
        budget = s.capacity.memory_mb
        need = expected_bytes(tree, req.parallel)
        if need > budget << 20:  # over the memory budget by the estimate: refused before it runs
            views = expected_views(tree, req.parallel)
            return None, _error(
                422,
                f"the problem would present about {views:,} views and hold about {need / 2**20:,.0f} MB by the "
                f"estimate, over the server's budget of {budget:,} MB per request; solve it in the page or with "
                f"`sketchpad solve`, or start the server with a larger --max-request-memory",
                estimated_views=views,
                estimated_mb=round(need / 2**20, 1),
                budget_mb=budget,
            )
        try:
            ticket = service().admit()
        except Refused as e:
            return None, _refused(e)
        ticket.expected_batches = expected_batches(tree, req.parallel)  # for progress's percent
        return (limits, ticket), None

    @app.post(
        "/api/solve",
        responses={
            400: {"description": "bad input"},
            422: {
                "description": "malformed request, or the problem is over the per-request forward-pass budget or "
                "(by the estimate, before it runs) the memory budget"
            },
            503: {"description": "busy (Retry-After), or over the per-request time budget"},
        },
    )
    async def api_solve(req: SolveRequest, request: Request):
        """Solve an expression with the server's stepper; the answer and its counters."""
        admitted, refusal = await admit(req)
        if refusal is not None:
            return refusal
        limits, ticket = admitted
        work = asyncio.ensure_future(app.state.service.run(ticket, req.expr.strip(), limits, req.parallel))
        gone = asyncio.ensure_future(_disconnected(request))
        try:
            await asyncio.wait({work, gone}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            gone.cancel()
        if not work.done():  # the client went away: stop its solve
            ticket.cancel()
            work.cancel()
            return Response(status_code=499)
        try:
            return answer(req, work.result())
        except InputError as e:
            return _error(400, str(e))
        except Refused as e:
            return _refused(e)
        except StepperFault as e:  # the model's fault, not the user's: say so, never guess
            return _error(500, f"stepper fault: {e}")

    @app.post(
        "/api/solve/stream",
        response_class=StreamingResponse,
        responses={
            200: {
                "content": {"text/event-stream": {}},
                "description": "server-sent events: `accepted`, `progress` (repeated), then `result` or `error`",
            }
        },
    )
    async def api_solve_stream(req: SolveRequest):
        """Solve with progress, as server-sent events.  Bad input (400) and a full server (503)
        are answered before the stream starts; an error during the solve is an `error` event
        with the status /api/solve would have given."""
        admitted, refusal = await admit(req)
        if refusal is not None:
            return refusal
        limits, ticket = admitted
        svc = app.state.service

        async def events():
            work = asyncio.ensure_future(svc.run(ticket, req.expr.strip(), limits, req.parallel))
            try:
                yield _sse("accepted", {"budget": ticket.progress()["budget"], "stepper": svc.name})
                last = None
                while True:
                    done, _ = await asyncio.wait({work}, timeout=0.25)
                    p = ticket.progress()
                    key = (p["batches"], p["queued"])
                    if key != last or not done:
                        yield _sse("progress", p)
                        last = key
                    if done:
                        break
                try:
                    yield _sse("result", answer(req, work.result()))
                except InputError as e:
                    yield _sse("error", {"error": str(e), "status": 400})
                except Refused as e:
                    yield _sse("error", {"error": str(e), "status": e.status, "retry_after": e.retry_after})
                except StepperFault as e:
                    yield _sse("error", {"error": f"stepper fault: {e}", "status": 500})
            finally:
                if not work.done():  # the client went away: stop its solve
                    ticket.cancel()
                    work.cancel()

        return StreamingResponse(
            events(), media_type="text/event-stream", headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
        )

    @app.get("/api/views")
    def api_views():
        """Every view of V with its reference step and witness (the page certifies against it)."""

        rows = views.load()
        return {
            "count": len(rows),
            "sha256": views.file_sha256(),
            "by_operation": views.counts_by_op([r["view"] for r in rows]),
            "views": [{"view": list(r["view"]), "step": list(r["step"]), "witness": r["witness"]} for r in rows],
        }

    @app.get("/api/model")
    def api_model():
        """The served model: the files the page loads, its committed and recorded certificates."""
        if served is None:
            return _error(404, "this server has no model (stepper: reference)")
        return served.describe(app.state.store)

    def _unavailable(e: StoreUnavailable) -> JSONResponse:
        return _error(503, str(e), retry_after=e.retry_after)

    @app.post(
        "/api/certificates",
        status_code=201,
        responses={
            200: {"description": "recorded before (by any replica): the first row, duplicate true"},
            400: {"description": "the rule does not hold for it"},
            422: {"description": "not about the served model, or malformed"},
            503: {"description": "the registry's database cannot be used now (Retry-After)"},
        },
    )
    def api_add_certificate(
        request: Request,
        response: Response,
        cert: dict = Body(..., description="a certificate JSON as the certifier writes it"),
    ):
        """Record a certificate as its sender's claim, after re-checking it with the one rule."""
        try:
            checked = models.check_uploaded(cert, served)
        except InputError as e:
            return _error(422 if isinstance(e, models.UnknownModel) else 400, str(e))
        client = request.client.host if request.client else None
        try:
            stored = app.state.store.add(
                cert,
                checked["model_sha256"],
                checked["backend"],
                checked["passed"],
                client=client,
                user_agent=request.headers.get("user-agent"),
                device=checked["environment"],
            )
        except ValueError as e:  # strict JSON: nothing non-finite is ever stored
            return _error(400, f"the certificate cannot be stored: {e}")
        except StoreUnavailable as e:
            return _unavailable(e)
        if stored["duplicate"]:
            response.status_code = 200
        return {**stored, **checked, "device": checked["environment"]}

    @app.get("/api/certificates", responses={503: {"description": "the registry's database cannot be used now"}})
    def api_certificates(
        limit: int = Query(100, ge=1, le=1000),
        before: int | None = Query(
            None, ge=1, le=2**63 - 1, description="only ids below this: the previous page's next_before"
        ),
        model_sha256: str | None = Query(
            None, max_length=64, description="only this model (its onnx/model.onnx sha256)"
        ),
        backend: str | None = Query(None, max_length=40),
    ):
        """The recorded certificates (claims), newest first, as summaries (GET
        /api/certificates/{id} has the whole certificate); rows that cannot be read are skipped
        and listed under "skipped" with the reason.  `next_before` pages on (null: the last page)."""
        try:
            return app.state.store.list(limit, before=before, model_sha256=model_sha256, backend=backend)
        except StoreUnavailable as e:
            return _unavailable(e)

    @app.get(
        "/api/certificates/{id}",
        responses={
            404: {"description": "no such record, or it cannot be read"},
            503: {"description": "the registry's database cannot be used now"},
        },
    )
    def api_certificate(id: int = InPath(..., ge=1, le=2**63 - 1)):
        """One recorded certificate, whole: the summary record and the certificate itself."""
        try:
            rec = app.state.store.get(id)
        except StoreUnavailable as e:
            return _unavailable(e)
        except Unreadable as e:
            return _error(404, str(e))
        return rec if rec is not None else _error(404, f"no certificate #{id} is recorded here")

    @app.get("/favicon.ico", include_in_schema=False)
    def _favicon():  # browsers ask for it; an empty answer keeps logs clean
        return Response(status_code=204)

    add_docs(app, s.swagger_dir)
    if s.ort_dir.is_dir():
        app.mount("/vendor/ort", StaticFiles(directory=s.ort_dir), name="ort")
    else:

        @app.get("/vendor/ort/{path:path}", include_in_schema=False)
        def _no_ort(path: str):
            return _error(404, f"ONNX Runtime Web is not installed at {s.ort_dir}: run `npm ci` in the repository")

    if served is not None and served.onnx_dir is not None:
        for v in served.variants()[1:]:  # /model-float16/, /model-int8/: the export's variants
            app.mount(f"/model-{v['name']}", StaticFiles(directory=v["dir"]), name=f"model-{v['name']}")
        app.mount("/model", StaticFiles(directory=served.onnx_dir), name="model")
    if s.web_dir.is_dir():
        app.mount("/", StaticFiles(directory=s.web_dir, html=True), name="web")
    return app


async def _disconnected(request: Request) -> None:
    """Returns when the client has gone away (the body was read already)."""
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            return


def jsonable(x):
    return jsonable_encoder(x, custom_encoder={Exception: str})
