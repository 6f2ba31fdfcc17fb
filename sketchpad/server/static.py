"""Static files with the headers the page needs.

ONNX Runtime Web runs its wasm on several threads only when the page is cross-origin isolated
(SharedArrayBuffer), which needs COOP: same-origin and COEP: require-corp on every response.
Every response also carries a Content-Security-Policy: scripts, styles, workers and wasm only
from this server (ONNX Runtime Web compiles wasm: 'wasm-unsafe-eval'; nothing inline, no eval),
no plugins, no framing, no <base>.  connect-src also allows other http(s) origins only so that
a model on another origin that the user confirmed in the page (?model=, web/app.js) can be
fetched; nothing is fetched from elsewhere unasked.  /docs sets its own policy (docs.py).
Browsers refuse module scripts and streaming wasm compilation with a wrong MIME type, and
Python's mimetypes table does not know .mjs or .onnx everywhere, so they are set here.
"""

from __future__ import annotations

import mimetypes
import re

for ext, mime in (
    (".mjs", "text/javascript"),
    (".js", "text/javascript"),
    (".wasm", "application/wasm"),
    (".onnx", "application/octet-stream"),
    (".json", "application/json"),
    (".jsonl", "application/x-ndjson"),
    (".map", "application/json"),
):
    mimetypes.add_type(mime, ext)

MODEL_PATH = re.compile(r"/model(-[a-z0-9]+)?/")  # the export and its variants (models.py)
CSP = (
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self' blob: http: https:; worker-src 'self' blob:; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'; form-action 'self'"
)
ISOLATION_HEADERS = {
    "Content-Security-Policy": CSP,
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Embedder-Policy": "require-corp",
    "Cross-Origin-Resource-Policy": "same-origin",
    "X-Content-Type-Options": "nosniff",
}


class IsolationHeaders:
    """A plain ASGI middleware (it must not buffer: server-sent events stream through it)."""

    def __init__(self, app):
        self.app = app
        self.extra = [(k.lower().encode(), v.encode()) for k, v in ISOLATION_HEADERS.items()]

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        extra = self.extra
        if MODEL_PATH.match(scope.get("path", "")):  # a republished model is seen at once (ETag: cheap)
            extra = [*extra, (b"cache-control", b"no-cache")]

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                have = {k.lower() for k, _ in message.get("headers", ())}
                message = {
                    **message,
                    "headers": [*message.get("headers", ()), *((k, v) for k, v in extra if k not in have)],
                }
            await send(message)

        return await self.app(scope, receive, send_with_headers)


def add_isolation_headers(app) -> None:
    app.add_middleware(IsolationHeaders)
