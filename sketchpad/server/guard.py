"""What every request body goes through before a route sees it (a plain ASGI middleware).

- Who may change state: a POST (PUT, PATCH, DELETE) must name this server in its Host header
  - an IP address, `localhost`, or a name given with `serve --allowed-host` - so that a web page
  whose DNS name is rebound to this machine cannot use it (403); if it carries an Origin
  header, that must be this server too (403); and its body must be `application/json`, which a
  cross-site form or a "simple" cross-site fetch cannot send without the browser asking this
  server first, and this server never says yes (415).
- Size: at most `max_body` bytes, counted while the body streams in, so a chunked body
  without Content-Length is held to the same limit as one that declares its length (413).
- Time: the whole body must arrive within `read_seconds` (408), so a client that trickles a
  body cannot hold a connection and a buffer for ever.
- Strict JSON: a JSON body (application/json, */*+json, or no content type) that is not JSON
  (malformed, not UTF-8) or holds NaN, Infinity, -Infinity or a number that overflows to them
  is refused with 400 and the project's error shape {"error": ...}: one rule for every body
  that is not JSON (Python's json module would read NaN, and FastAPI's own 422 could not even
  write it back).  JSON of the wrong shape is the routes' 422.

The body is read once here and replayed to the application; later receive() calls (e.g. a
route waiting for the client to disconnect) go to the server as usual.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import time
from urllib.parse import urlsplit

from .. import strictjson

MAX_BODY = 8_000_000
READ_SECONDS = 60.0
BODY_METHODS = {"POST", "PUT", "PATCH", "DELETE"}


def error_body(message: str, **extra) -> bytes:
    return strictjson.dumps({"error": message, **extra}).encode()


async def send_error(send, status: int, message: str, headers: dict | None = None) -> None:
    body = error_body(message)
    hs = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
    ]
    hs += [(k.lower().encode(), str(v).encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": hs})
    await send({"type": "http.response.body", "body": body})


def _is_json(content_type: str | None) -> bool:
    return (content_type or "").split(";")[0].strip().lower() == "application/json"


def host_name(host: str) -> str:
    """The name part of a Host header value ("[::1]:8000" -> "::1", "a.b:80" -> "a.b")."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def host_allowed(host: str, allowed=()) -> bool:
    """An IP address (no DNS name can be rebound to it), localhost, or a name the operator allowed."""
    name = host_name(host)
    if not name:
        return False
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        return name == "localhost" or name in {a.lower() for a in allowed}


def _refusal(headers: dict, allowed) -> tuple[int, str] | None:
    """Why a state-changing request is refused before its body is read (None: it is not)."""
    host = headers.get("host", "")
    if not host_allowed(host, allowed):
        return 403, (
            f"this server does not answer state-changing requests for host {host[:80]!r} (an IP address, localhost "
            "or a name given with `sketchpad serve --allowed-host NAME`)"
        )
    origin = headers.get("origin")
    if origin is not None:
        o = urlsplit(origin)
        if origin == "null" or (o.netloc or "").lower() != host.strip().lower():
            return 403, f"cross-origin request refused: its Origin {origin[:80]!r} is not this server ({host[:80]})"
    if not _is_json(headers.get("content-type")):
        got = headers.get("content-type") or "none"
        return 415, f"state-changing requests must have Content-Type application/json, not {got[:60]!r}"
    return None


class RequestGuard:
    def __init__(self, app, max_body: int = MAX_BODY, read_seconds: float = READ_SECONDS, allowed_hosts=()):
        self.app = app
        self.max_body = max_body
        self.read_seconds = read_seconds
        self.allowed_hosts = tuple(allowed_hosts)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] not in BODY_METHODS:
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", ())}
        refusal = _refusal(headers, self.allowed_hosts)
        if refusal:
            return await send_error(send, *refusal)
        declared = headers.get("content-length")
        if declared is not None:
            if not declared.strip().isdigit():
                return await send_error(send, 400, f"bad Content-Length header {declared[:40]!r}")
            if int(declared) > self.max_body:
                return await send_error(
                    send, 413, f"request body of {int(declared):,} bytes is over the {self.max_body:,}-byte limit"
                )
        chunks, size = [], 0
        deadline = time.monotonic() + self.read_seconds
        while True:
            try:
                message = await asyncio.wait_for(receive(), max(0.001, deadline - time.monotonic()))
            except TimeoutError:
                return await send_error(send, 408, f"the request body did not arrive within {self.read_seconds:g} s")
            if message["type"] == "http.disconnect":
                return  # nobody to answer
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                return await send_error(
                    send,
                    413,
                    f"request body of more than {self.max_body:,} bytes is over "
                    f"the {self.max_body:,}-byte limit (counted as it arrived)",
                )
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        if body:
            # A big body (a certificate) is parsed off the event loop.
            problem = _non_finite(body) if len(body) < 65536 else await asyncio.to_thread(_non_finite, body)
            if problem:
                return await send_error(send, 400, f"invalid JSON in the request body: {problem}")
        replayed = False

        async def replay():
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        return await self.app(scope, replay, send)


def _non_finite(body: bytes) -> str | None:
    """Why the body is not strict JSON (a message), else None.  One rule: a body that is not
    JSON (malformed, not UTF-8, or NaN/Infinity) is 400 here; JSON of the wrong shape is the
    routes' 422."""
    try:
        strictjson.loads(body)
        return None
    except RecursionError:
        return "nested too deeply"
    except UnicodeDecodeError:
        return "not UTF-8"
    except json.JSONDecodeError as e:
        return f"{e.msg} at line {e.lineno} column {e.colno}"
    except ValueError as e:
        return str(e)
