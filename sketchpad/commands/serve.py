"""`sketchpad serve`: the web page and the JSON API on a local address (127.0.0.1 by default)."""

from __future__ import annotations

from ..errors import InputError

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
"""


def register(sub):
    import argparse

    from ..server.service import Capacity

    d = Capacity()
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
    p.add_argument(
        "--workers",
        type=int,
        default=d.workers,
        metavar="N",
        help=f"solves in progress at once, their batches merged into shared model calls (default {d.workers})",
    )
    p.add_argument(
        "--queue",
        type=int,
        default=d.queue,
        metavar="N",
        help=f"requests that may wait for a free slot; more are refused with 503 (default {d.queue})",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=d.seconds,
        metavar="SECONDS",
        help=f"time budget of one request, queue wait included (default {d.seconds:g})",
    )
    p.add_argument(
        "--max-forward-passes",
        type=int,
        default=d.forward_passes,
        metavar="N",
        help=f"forward-pass budget of one request (default {d.forward_passes:,})",
    )
    p.add_argument(
        "--max-request-memory",
        type=int,
        default=d.memory_mb,
        metavar="MB",
        help=f"memory budget of one request: a problem whose estimate is over it is refused with 422 before it "
        f"runs (default {d.memory_mb:,})",
    )
    p.add_argument(
        "--max-batch-rows",
        type=int,
        default=d.max_rows,
        metavar="N",
        help=f"most views in one model call (default {d.max_rows:,})",
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
    import os

    import uvicorn

    from ..server import Settings, create_app
    from ..server.service import Capacity

    if not 0 < args.port < 65536:
        raise InputError(f"--port must be between 1 and 65535, got {args.port}")
    capacity = Capacity(
        workers=args.workers,
        queue=args.queue,
        seconds=args.timeout,
        forward_passes=args.max_forward_passes,
        max_rows=args.max_batch_rows,
        memory_mb=args.max_request_memory,
    ).check()
    s = Settings(
        stepper=args.stepper,
        backend=args.backend,
        allow_uncertified=args.allow_uncertified,
        max_digits=args.max_digits,
        capacity=capacity,
        allowed_hosts=(*args.allowed_host, args.host),
    )
    from ..server.database import ENV, database_url

    db = args.db or os.environ.get(ENV)
    if db:
        database_url(db)  # a clear error now for a URL the registry cannot use
        s.db_path = db
    if args.model:
        from pathlib import Path

        s.model_dir = Path(args.model)
    s.extra["ready_message"] = (
        f"Sketchpad ready on http://{args.host}:{args.port}/  (API docs at /docs; "
        f"{capacity.workers} solves at once, {capacity.queue} queued; Ctrl-C stops)"
    )
    app = create_app(s)
    store = app.state.store
    print(f"Sketchpad: certificates in {store.where} ({store.engine_name})", flush=True)
    print("Sketchpad: loading and certifying the model ...", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
