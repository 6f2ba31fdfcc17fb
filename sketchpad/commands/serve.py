"""`sketchpad serve`: the web page and the JSON API on a local address (127.0.0.1 by default)."""
from __future__ import annotations

from ..errors import InputError


def register(sub):
    p = sub.add_parser("serve", help="serve the web page and the JSON API")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--db", metavar="PATH", help="SQLite file for uploaded certificates "
                   "(default ~/.sketchpad/certificates.sqlite)")
    p.add_argument("--model", metavar="DIR", help="model directory to serve (default: the shipped model)")
    p.add_argument("--stepper", choices=("auto", "reference", "model"), default="auto",
                   help="who answers POST /api/solve: the served model when there is one (auto), "
                        "or the reference stepper; the page itself always runs the model in the browser")
    p.add_argument("--backend", choices=("onnx", "torch"), default=None,
                   help="how the server's model runs (default: onnx, ONNX Runtime, when the model has an export)")
    p.add_argument("--allow-uncertified", action="store_true")
    p.add_argument("--max-digits", type=int, default=None, help="size limit for any number")
    p.set_defaults(func=run)


def run(args) -> int:
    import uvicorn

    from ..server import Settings, create_app
    if not 0 < args.port < 65536:
        raise InputError(f"--port must be between 1 and 65535, got {args.port}")
    s = Settings(stepper=args.stepper, backend=args.backend, allow_uncertified=args.allow_uncertified,
                 max_digits=args.max_digits)
    if args.db:
        s.db_path = args.db
    if args.model:
        from pathlib import Path
        s.model_dir = Path(args.model)
    s.extra["ready_message"] = f"Sketchpad ready on http://{args.host}:{args.port}/  (API docs at /docs; Ctrl-C stops)"
    app = create_app(s)
    print("Sketchpad: loading and certifying the model ...", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
