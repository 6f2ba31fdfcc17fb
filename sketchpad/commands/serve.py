"""`sketchpad serve`: the web page and the JSON API on a local address (127.0.0.1 by default)."""

from __future__ import annotations

import argparse
import os
import socket
from dataclasses import fields
from pathlib import Path

from ..errors import InputError, SketchpadError
from ..server.service import Capacity


class CannotListen(SketchpadError):
    """The address is taken or not ours to listen on: said before anything loads (exit 5)."""

    exit_code = 5


CAPACITY_HELP = """\
how the server shares its model between clients:
  Up to --workers solves run at once; every model call merges the waiting batches of all of
  them (up to --max-batch-rows rows, a fair share each), so a long division's ~1,000 batches
  interleave with other clients' instead of holding the model.  Up to --queue more requests
  wait for a slot; beyond that a request is answered at once with 503 and Retry-After.  Each
  request has a budget: --timeout seconds (queue wait included; over it: 503) and
  --max-forward-passes forward passes (over it: 422), and --max-request-memory megabytes by
  the estimate of sketchpad/estimate.py (over it: 422 before it runs).  Request bodies are limited to 8 MB,
  counted as they arrive.  GET /api/health shows the queue's figures.

exit codes: 0 stopped (Ctrl-C), 1 the model has no certificate that holds here, 2 bad options,
  4 the [train] extra is missing (--backend torch), 5 the address cannot be listened on (the
  port is taken, or not this user's to open): checked before the model loads, one line.
"""


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to host:port now, so that a busy port is one line and exit 5 before the
    model loads and before "ready" is printed (uvicorn serves on this very socket)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        family = infos[0][0]
        return socket.create_server((host, port), family=family)
    except OSError as e:
        why = e.strerror or str(e)
        raise CannotListen(
            f"cannot listen on {host}:{port}: {why} (is another server there? --port picks another)"
        ) from None


def register(sub):
    p = sub.add_parser(
        "serve",
        help="serve the web page and the JSON API",
        epilog=CAPACITY_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument(
        "--db",
        metavar="URL",
        help="where uploaded certificates are kept: a SQLite file (a path or sqlite:///PATH; default "
        "~/.sketchpad/certificates.sqlite, no database server) or postgresql://USER:PASSWORD@HOST:PORT/DB "
        "(any number of replicas on one database; docs/server.md); default: $SKETCHPAD_DB_URL when set",
    )
    p.add_argument("--model", metavar="DIR", help="model directory to serve (default: the shipped model)")
    p.add_argument(
        "--stepper",
        choices=("auto", "reference", "model"),
        default="auto",
        help="who answers POST /api/solve: the served model when there is one (auto), "
        "or the reference stepper; the page itself runs the model in the browser unless "
        "'solve on the server' is ticked",
    )
    p.add_argument(
        "--backend",
        choices=("onnx", "torch"),
        default=None,
        help="how the server's model runs (default: onnx, ONNX Runtime, when the model has an export)",
    )
    p.add_argument("--allow-uncertified", action="store_true")
    p.add_argument("--max-digits", type=int, default=None, help="size limit for any number")
    for f in fields(Capacity):  # one flag per Capacity field, with its default (server/service.py)
        p.add_argument(
            f.metadata["flag"],
            dest=f.name,
            type=float if f.type in ("float", float) else int,
            default=f.default,
            metavar=f.metadata["metavar"],
            help=f"{f.metadata['help']} (default {f.default:,g})",
        )
    p.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a DNS name clients may reach this server by for requests that change state (IP addresses and "
        "localhost always may; repeatable)",
    )
    p.set_defaults(func=run)


def run(args) -> int:
    import uvicorn  # the server's own parts (uvicorn, FastAPI, SQLAlchemy) load only for `serve`

    from ..server import Settings, create_app  # lazy: FastAPI loads only for serve
    from ..server.database import ENV, database_url  # lazy: SQLAlchemy loads only for serve

    if not 0 < args.port < 65536:
        raise InputError(f"--port must be between 1 and 65535, got {args.port}")
    capacity = Capacity(**{f.name: getattr(args, f.name) for f in fields(Capacity)}).check()
    s = Settings(
        stepper=args.stepper,
        backend=args.backend,
        allow_uncertified=args.allow_uncertified,
        max_digits=args.max_digits,
        capacity=capacity,
        allowed_hosts=(*args.allowed_host, args.host),
    )
    db = args.db or os.environ.get(ENV)
    if db:
        database_url(db)  # a clear error now for a URL the registry cannot use
        s.db_path = db
    if args.model:
        s.model_dir = Path(args.model)
    s.extra["ready_message"] = (
        f"Sketchpad ready on http://{args.host}:{args.port}/  (API docs at /docs; "
        f"{capacity.workers} solves at once, {capacity.queue} queued; Ctrl-C stops)"
    )
    sock = listen(args.host, args.port)
    with sock:
        app = create_app(s)
        store = app.state.store
        print(f"Sketchpad: certificates in {store.where} ({store.engine_name})", flush=True)
        print("Sketchpad: loading and certifying the model ...", flush=True)
        uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])
    return 0
