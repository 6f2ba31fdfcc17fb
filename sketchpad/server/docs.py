"""/docs without a CDN.

FastAPI's own /docs loads Swagger UI from a CDN, which fails offline.  Here Swagger UI's files
come from this server (web/vendor/swagger-ui/, copied from the pinned npm package
swagger-ui-dist by `npm ci`, web/tools/vendor-swagger-ui.mjs).  Without them (no `npm ci`),
/docs is a plain HTML page written from the OpenAPI schema: every route, its summary, its
parameters and answers.  Either way the page names no other origin, and the validator badge
(which would call validator.swagger.io) is off.  ReDoc (another CDN) is not offered.

/docs carries its own Content-Security-Policy: the server-wide one (static.py) allows no inline
script, and Swagger UI's page starts it with one, which this policy allows by its sha256 alone.
"""

from __future__ import annotations

import base64
import hashlib
import html
import re
from pathlib import Path

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

SWAGGER_FILES = ("swagger-ui-bundle.js", "swagger-ui.css")


ERROR_SCHEMA = {
    "title": "Error",
    "type": "object",
    "description": "Every error answer of this server: one line in `error`; some add fields (retry_after, "
    "estimated_views, detail, ...).",
    "properties": {"error": {"type": "string", "description": "what went wrong, in one line"}},
    "required": ["error"],
    "additionalProperties": True,
}


def error_shape(schema: dict) -> dict:
    """The OpenAPI schema with every 4xx/5xx answer as {"error": ...}, the shape the server
    really answers with (app.py's handlers, guard.py), instead of FastAPI's `detail`; the
    422 every route can give is listed with it, as 400 (a body that is not JSON) is."""
    comps = schema.setdefault("components", {}).setdefault("schemas", {})
    for name in ("HTTPValidationError", "ValidationError"):
        comps.pop(name, None)
    comps["Error"] = ERROR_SCHEMA
    ref = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
    for ops in schema.get("paths", {}).values():
        for op in ops.values():
            responses = op.setdefault("responses", {})
            if "requestBody" in op:
                responses.setdefault("400", {"description": "the body is not JSON (malformed, or NaN/Infinity)"})
            for code, answer in responses.items():
                if code[0] in "45":
                    answer["content"] = ref
                    if code == "422" and answer.get("description") == "Validation Error":
                        answer["description"] = "the request does not have the fields and types this route takes"
    return schema


def add_docs(app: FastAPI, swagger_dir: Path) -> None:
    original = app.openapi

    def openapi() -> dict:
        if app.openapi_schema is None:
            app.openapi_schema = error_shape(original())
        return app.openapi_schema

    app.openapi = openapi

    have_swagger = all((swagger_dir / f).is_file() for f in SWAGGER_FILES)
    if have_swagger:
        app.mount("/vendor/swagger-ui", StaticFiles(directory=swagger_dir), name="swagger-ui")

    @app.get("/docs", include_in_schema=False)
    def _docs():
        if have_swagger:
            return with_csp(
                get_swagger_ui_html(
                    openapi_url=app.openapi_url,
                    title=f"{app.title} API",
                    swagger_js_url="/vendor/swagger-ui/swagger-ui-bundle.js",
                    swagger_css_url="/vendor/swagger-ui/swagger-ui.css",
                    swagger_favicon_url="/vendor/swagger-ui/favicon-32x32.png",
                    swagger_ui_parameters={"validatorUrl": None, "tryItOutEnabled": False},
                )
            )
        return with_csp(HTMLResponse(plain_docs(app.openapi())))


def with_csp(response: HTMLResponse) -> HTMLResponse:
    """The page's own policy: its inline scripts by their sha256, inline styles, nothing else outside."""
    text = response.body.decode()
    hashes = " ".join(
        "'sha256-" + base64.b64encode(hashlib.sha256(m.encode()).digest()).decode() + "'"
        for m in re.findall(r"<script>(.*?)</script>", text, re.S)
    )
    response.headers["Content-Security-Policy"] = (
        f"default-src 'self'; script-src 'self' {hashes}; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
        "object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
    )
    return response


def plain_docs(spec: dict) -> str:
    """The OpenAPI schema as one self-contained HTML page (no script, no other origin)."""
    e = html.escape
    info = spec.get("info", {})
    parts = [
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{e(info.get('title', 'API'))} "
        "API</title><style>body{font:15px/1.45 system-ui,sans-serif;max-width:960px;margin:20px auto;"
        "padding:0 16px}code,pre{font:13px ui-monospace,monospace}h2{margin-top:1.6em}"
        ".m{font-weight:700;text-transform:uppercase;margin-right:.5em}</style></head><body>",
        f"<h1>{e(info.get('title', 'API'))} {e(str(info.get('version', '')))}</h1>",
        f"<p>{e(info.get('description', ''))}</p>",
        "<p>The machine-readable schema: <a href='/openapi.json'>/openapi.json</a>. (Swagger UI is not "
        "installed here: run <code>npm ci</code> in the repository for the interactive page.)</p>",
    ]
    for path, ops in sorted(spec.get("paths", {}).items()):
        for method, op in ops.items():
            parts.append(f"<h2><span class='m'>{e(method)}</span><code>{e(path)}</code></h2>")
            if op.get("summary"):
                parts.append(f"<p><b>{e(op['summary'])}</b></p>")
            if op.get("description"):
                parts.append(f"<pre>{e(op['description'])}</pre>")
            params = op.get("parameters") or []
            if params:
                parts.append(
                    "<p>Parameters: "
                    + ", ".join(f"<code>{e(p.get('name', ''))}</code> ({e(p.get('in', ''))})" for p in params)
                    + "</p>"
                )
            codes = ", ".join(f"{e(str(k))} {e(v.get('description', ''))}" for k, v in op.get("responses", {}).items())
            if codes:
                parts.append(f"<p>Answers: {codes}</p>")
    parts.append("</body></html>")
    return "".join(parts)
