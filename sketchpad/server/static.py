"""Static files with the headers the page needs.

ONNX Runtime Web runs its wasm on several threads only when the page is cross-origin isolated
(SharedArrayBuffer), which needs COOP: same-origin and COEP: require-corp on every response.
Browsers refuse module scripts and streaming wasm compilation with a wrong MIME type, and
Python's mimetypes table does not know .mjs or .onnx everywhere, so they are set here.
"""
from __future__ import annotations

import mimetypes

for ext, mime in ((".mjs", "text/javascript"), (".js", "text/javascript"), (".wasm", "application/wasm"),
                  (".onnx", "application/octet-stream"), (".json", "application/json"),
                  (".jsonl", "application/x-ndjson"), (".map", "application/json")):
    mimetypes.add_type(mime, ext)

ISOLATION_HEADERS = {
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Embedder-Policy": "require-corp",
    "Cross-Origin-Resource-Policy": "same-origin",
    "X-Content-Type-Options": "nosniff",
}


def add_isolation_headers(app) -> None:
    @app.middleware("http")
    async def _headers(request, call_next):
        response = await call_next(request)
        for k, v in ISOLATION_HEADERS.items():
            response.headers.setdefault(k, v)
        return response
