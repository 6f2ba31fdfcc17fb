"""A real server in a background thread on 127.0.0.1 (an ephemeral port by default), for the
browser tests, the browser certification backend and the browser benchmark."""

from __future__ import annotations

import contextlib
import socket
import tempfile
import threading
import time
from pathlib import Path

import uvicorn

from .app import Settings, create_app


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running(settings=None, port: int | None = None, timeout: float = 30):
    """Yield the base URL of a started server; stop it on exit."""

    port = port or free_port()
    server = uvicorn.Server(
        uvicorn.Config(create_app(settings), host="127.0.0.1", port=port, log_level="warning", access_log=False)
    )
    thread = threading.Thread(target=server.run, name="sketchpad-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError(f"the server did not start on 127.0.0.1:{port}")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout)


@contextlib.contextmanager
def page_server(model_dir, **settings):
    """A throw-away server for the page of `model_dir`: a temporary certificate database, and
    the reference stepper behind /api/solve (the page runs the model itself).  Yields its URL."""

    with tempfile.TemporaryDirectory(prefix="sketchpad-page-") as tmp:
        s = Settings(
            db_path=str(Path(tmp) / "certificates.sqlite"), model_dir=Path(model_dir), stepper="reference", **settings
        )
        with running(s) as url:
            yield url
