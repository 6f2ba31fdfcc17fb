"""The FastAPI application.

Routes (the OpenAPI schema is FastAPI's own, at /openapi.json and /docs):
  GET  /api/health         {"status": "ready", ...} once the model is loaded and certified (start-up)
  POST /api/solve          {"expr": "..."} -> result and counters; bad input -> 400 {"error": ...}
  GET  /api/views          the view set V with each view's expected step
  GET  /api/model          the served model: file hashes, committed certificates
  POST /api/certificates   record a certificate a browser produced (checked before it is kept)
  GET  /api/certificates   the recorded certificates, newest first
  /vendor/ort/*            ONNX Runtime Web's JS and wasm, served from node_modules (npm ci)
  /model/*                 the served model's ONNX export (model.onnx, model.json)
  /*                       the static page in web/
Everything is local: the page loads no asset from another origin, so it works offline.
"""
from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass, field
from pathlib import Path

from fastapi import Body, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field

from .. import __version__
from ..web import ROOT as WEB_ROOT
from ..errors import InputError, StepperFault
from .static import add_isolation_headers
from .store import CertificateStore

MAX_BODY = 8_000_000


@dataclass
class Settings:
    db_path: str = str(Path.home() / ".sketchpad" / "certificates.sqlite")
    web_dir: Path = WEB_ROOT
    ort_dir: Path = WEB_ROOT / "vendor" / "ort"      # copied from node_modules by `npm ci` (package.json)
    model_dir: Path | None = None          # None: the shipped default model, when present
    stepper: str = "auto"                  # who answers /api/solve: "model", "reference", or "auto"
    backend: str | None = None             # how a "model" stepper runs (None: ONNX Runtime when exported)
    allow_uncertified: bool = False
    max_digits: int | None = None          # None: the CLI's default limits
    extra: dict = field(default_factory=dict)


class SolveRequest(BaseModel):
    expr: str = Field(..., description='an expression in the CLI language, e.g. "123 * -45 + gcd(84, 36)"')
    max_digits: int | None = Field(None, ge=1, description="a lower size limit than the server's")


class _Locked:
    """Model steppers hold one session and one gate; answer one batch at a time."""

    def __init__(self, stepper):
        self._stepper, self._lock = stepper, threading.Lock()
        self.name = getattr(stepper, "name", type(stepper).__name__)

    def __call__(self, views):
        with self._lock:
            return self._stepper(views)


def _error(status: int, message: str, **extra) -> JSONResponse:
    return JSONResponse({"error": message, **extra}, status_code=status)


def create_app(settings: Settings | None = None) -> FastAPI:
    from . import models
    s = settings or Settings()
    @contextlib.asynccontextmanager
    async def lifespan(app):
        # Load (and if needed certify) before the first request: ready means ready.
        s.extra["stepper"] = load_stepper()
        app.state.ready = True
        if s.extra.get("ready_message"):
            print(s.extra["ready_message"], flush=True)
        yield

    app = FastAPI(title="Sketchpad", version=__version__, lifespan=lifespan,
                  description="Long arithmetic by a model that sees three cells at a time, certified on every view.")
    app.state.settings = s
    app.state.store = CertificateStore(s.db_path)
    served = models.ServedModel.find(s.model_dir)
    app.state.model = served
    app.state.ready = False
    add_isolation_headers(app)

    @app.middleware("http")
    async def _body_limit(request: Request, call_next):
        # A certificate is ~0.3 MB and an expression at most 200,000 characters: refuse floods early.
        size = request.headers.get("content-length")
        if request.method == "POST" and size and size.isdigit() and int(size) > MAX_BODY:
            return _error(413, f"request body of {int(size):,} bytes is over the {MAX_BODY:,}-byte limit")
        return await call_next(request)

    def load_stepper():
        """At start-up: the reference stepper, or the served model under a certificate that holds
        here (certified now if needed, sketchpad.certify.certified).  A model that fails stops
        the server from starting, with the reason."""
        if s.stepper == "reference" or (s.stepper == "auto" and served is None):
            return "reference"
        if served is None:
            raise InputError("this server has no model to solve with")
        from ..steppers import get
        return _Locked(get("model", model=served.model_dir, backend=s.backend,
                           allow_uncertified=s.allow_uncertified))

    def stepper():
        return s.extra["stepper"]

    @app.get("/api/health")
    def api_health():
        """Ready only once the stepper is loaded and certified (clients wait for this)."""
        if not app.state.ready:
            return _error(503, "starting: the model is loading", status="starting")
        st = stepper()
        inner = getattr(st, "_stepper", st)
        return {"status": "ready", "version": __version__, "stepper": "reference" if st == "reference" else st.name,
                "backend": getattr(inner, "backend", None), "certificate": getattr(inner, "certificate", None)}

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        parts = ["/".join(str(p) for p in e.get("loc", ()) if p != "body") + ": " + e.get("msg", "") for e in exc.errors()]
        return _error(422, "invalid request: " + "; ".join(parts), detail=jsonable(exc.errors()))

    @app.post("/api/solve")
    def api_solve(req: SolveRequest):
        from ..expr import Limits
        from ..solve import solve
        limits = Limits() if s.max_digits is None else Limits(max_digits=s.max_digits)
        if req.max_digits is not None:
            limits = Limits(max_digits=min(req.max_digits, limits.max_digits),
                            max_quadratic_digits=min(req.max_digits, limits.max_quadratic_digits))
        try:
            sol = solve(req.expr.strip(), stepper(), limits=limits)
        except InputError as e:
            return _error(400, str(e))
        except StepperFault as e:        # the model's fault, not the user's: say so, never guess
            return _error(500, f"stepper fault: {e}")
        return {"expr": req.expr, **sol.as_dict()}

    @app.get("/api/views")
    def api_views():
        from .. import views
        rows = views.load()
        return {"count": len(rows), "sha256": views.file_sha256(),
                "by_operation": views.counts_by_op([r["view"] for r in rows]),
                "views": [{"view": list(r["view"]), "step": list(r["step"]), "witness": r["witness"]} for r in rows]}

    @app.get("/api/model")
    def api_model():
        if served is None:
            return _error(404, "this server has no model (stepper: reference)")
        return served.describe(app.state.store)

    @app.post("/api/certificates", status_code=201)
    def api_add_certificate(cert: dict = Body(..., description="a certificate JSON as the certifier writes it")):
        try:
            checked = models.check_uploaded(cert, served)
        except InputError as e:
            return _error(422 if isinstance(e, models.UnknownModel) else 400, str(e))
        stored = app.state.store.add(cert, checked["model_sha256"], checked["backend"], checked["passed"])
        return {**stored, **checked}

    @app.get("/api/certificates")
    def api_certificates(limit: int = 100):
        return {"certificates": app.state.store.list(max(1, min(limit, 1000)))}

    @app.get("/favicon.ico", include_in_schema=False)
    def _favicon():                      # browsers ask for it; an empty answer keeps logs clean
        from fastapi.responses import Response
        return Response(status_code=204)

    if s.ort_dir.is_dir():
        app.mount("/vendor/ort", StaticFiles(directory=s.ort_dir), name="ort")
    else:
        @app.get("/vendor/ort/{path:path}")
        def _no_ort(path: str):
            return _error(404, f"ONNX Runtime Web is not installed at {s.ort_dir}: run `npm ci` in the repository")
    if served is not None and served.onnx_dir is not None:
        app.mount("/model", StaticFiles(directory=served.onnx_dir), name="model")
    if s.web_dir.is_dir():
        app.mount("/", StaticFiles(directory=s.web_dir, html=True), name="web")
    return app


def jsonable(x):
    from fastapi.encoders import jsonable_encoder
    return jsonable_encoder(x, custom_encoder={Exception: str})
