"""Load benchmark of `sketchpad serve` (not a test): many clients on loopback, every answer
checked, bounded in requests and time.

    python benchmarks/bench_server.py [--clients 50] [--requests 4] [--long 3]
                                      [--out benchmarks/results/server.md]

Three phases, each against a fresh `sketchpad serve` subprocess on 127.0.0.1 (the shipped
model on ONNX Runtime, certified at start-up):

1. mixed load: --clients clients, each sending --requests requests one after another (short
   sums, differences, products, divisions, square roots and gcds), and --long of the clients
   start with a long division (--long-digits 120: 120 / 60 digits, ~700 batches).  Every answer is checked
   against Python.  Reported: latency p50/p95/max over all requests, the short requests' own
   p50/p95/max (are they starved by the long ones?), the long ones', throughput, and the
   batcher's figures (how many requests shared a model call).  Server defaults.
2. overload: a server with --workers 2 --queue 2 gets --burst requests at once.  Those over
   capacity must be answered 503 with Retry-After at once (their latency is reported), and
   the rest correctly.
3. budget: on the same small server, a problem too big for the per-request time budget
   (--timeout 10 there) gets a clear 503 while short requests sent meanwhile are answered.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import random
import socket
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout

import httpx  # noqa: E402

from sketchpad.expr import evaluate_python, parse  # noqa: E402
from sketchpad.model.environment import machine  # noqa: E402

CLIENT_TIMEOUT = 600
REGISTRY = "<!-- registry: begin"  # where benchmarks/bench_registry.py's section of the results starts


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return f"load average {os.getloadavg()}"


def cpu_name() -> str:
    return machine()


class Server:
    """`python -m sketchpad serve` in a subprocess, ready when /api/health says so."""

    def __init__(self, *flags: str, db_dir: str):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = open(Path(db_dir) / f"serve-{self.port}.log", "w")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "sketchpad",
                "serve",
                "--port",
                str(self.port),
                "--db",
                str(Path(db_dir) / f"{self.port}.sqlite"),
                *flags,
            ],
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        t = time.monotonic()
        while True:
            try:
                r = httpx.get(f"{self.url}/api/health", timeout=30)
                if r.status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if self.proc.poll() is not None or time.monotonic() - t > 600:
                raise RuntimeError(f"the server did not start; see {self.log.name}")
            time.sleep(0.3)
        self.start_seconds = time.monotonic() - t

    def health(self) -> dict:
        return httpx.get(f"{self.url}/api/health", timeout=60).json()

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()


def short_problem(rnd: random.Random) -> str:
    def d(lo, hi):  # a number of lo..hi digits
        n = rnd.randint(lo, hi)
        return str(rnd.randrange(10 ** (n - 1), 10**n))

    kind = rnd.randrange(7)
    if kind == 0:
        return f"{d(1, 40)} + {d(1, 40)}"
    if kind == 1:
        return f"{d(1, 40)} - -{d(1, 40)}"
    if kind == 2:
        return f"{d(1, 20)} * -{d(1, 12)}"
    if kind == 3:
        return f"-{d(6, 20)} // {d(1, 8)}"
    if kind == 4:
        return f"{d(6, 20)} % -{d(1, 8)}"
    if kind == 5:
        return f"sqrt({d(2, 16)})"
    return f"gcd({d(2, 10)}, {d(2, 10)}) + {d(1, 5)}"


def long_problem(rnd: random.Random, digits: int) -> str:
    """A long division: `digits` digits by half as many (120 / 60: ~700 batches, ~43,000 forward passes)."""
    half = digits // 2
    return f"{rnd.randrange(10 ** (digits - 1), 10**digits)} // {rnd.randrange(10 ** (half - 1), 10**half)}"


def send(client: httpx.Client, expr: str, kind: str) -> dict:
    want = evaluate_python(parse(expr))
    t = time.monotonic()
    try:
        r = client.post("/api/solve", json={"expr": expr})
        status, body, retry = r.status_code, r.json(), r.headers.get("retry-after")
    except httpx.HTTPError as e:
        status, body, retry = None, {"error": repr(e)}, None
    return {
        "kind": kind,
        "seconds": time.monotonic() - t,
        "status": status,
        "retry_after": retry,
        "correct": status == 200 and body.get("result") == str(want),
        "error": body.get("error"),
        "batches": body.get("batches"),
        "forward_passes": body.get("forward_passes"),
    }


def pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round(q / 100 * len(xs) + 0.5) - 1))]


def fmt(xs: list[float]) -> str:
    return f"{pct(xs, 50):.2f} | {pct(xs, 95):.2f} | {max(xs):.2f}" if xs else "– | – | –"


def mixed(
    server: Server, clients: int, requests: int, n_long: int, long_digits: int, seed: int
) -> tuple[list[dict], float]:
    rnd = random.Random(seed)
    plans = []
    for c in range(clients):
        plan = [(long_problem(rnd, long_digits), "long")] if c < n_long else []
        plan += [(short_problem(rnd), "short") for _ in range(requests - len(plan))]
        plans.append(plan)

    def client(plan):
        with httpx.Client(base_url=server.url, timeout=CLIENT_TIMEOUT) as c:
            return [send(c, expr, kind) for expr, kind in plan]

    t = time.monotonic()
    with ThreadPoolExecutor(clients) as pool:
        results = [r for part in pool.map(client, plans, timeout=3 * CLIENT_TIMEOUT) for r in part]
    return results, time.monotonic() - t


def overload(server: Server, burst: int, seed: int) -> tuple[list[dict], float]:
    rnd = random.Random(seed)
    exprs = [f"{rnd.randrange(10**29, 10**30)} * {rnd.randrange(10**29, 10**30)}" for _ in range(burst)]

    def one(expr):
        with httpx.Client(base_url=server.url, timeout=CLIENT_TIMEOUT) as c:
            return send(c, expr, "burst")

    t = time.monotonic()
    with ThreadPoolExecutor(burst) as pool:
        results = list(pool.map(one, exprs, timeout=2 * CLIENT_TIMEOUT))
    return results, time.monotonic() - t


def budget(server: Server, seed: int) -> tuple[dict, list[dict]]:
    rnd = random.Random(seed)
    huge = f"{rnd.randrange(10**1999, 10**2000)} // {rnd.randrange(10**999, 10**1000)}"
    with (
        ThreadPoolExecutor(1) as pool,
        httpx.Client(base_url=server.url, timeout=CLIENT_TIMEOUT) as c,
        httpx.Client(base_url=server.url, timeout=CLIENT_TIMEOUT) as other,
    ):
        big = pool.submit(send, other, huge, "huge")
        time.sleep(1.0)  # let it start, then send short ones meanwhile
        shorts = [send(c, short_problem(rnd), "short") for _ in range(5)]
        return big.result(2 * CLIENT_TIMEOUT), shorts


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--requests", type=int, default=4, help="requests per client, one after another")
    ap.add_argument("--long", type=int, default=3, help="clients whose first request is a long division")
    ap.add_argument(
        "--long-digits",
        type=int,
        default=120,
        help="digits of the long divisions' dividend (the divisor has half as many)",
    )
    ap.add_argument("--burst", type=int, default=40, help="simultaneous requests in the overload phase")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "server.md")
    ap.add_argument("--skip-overload", action="store_true")
    args = ap.parse_args(argv)

    work = tempfile.mkdtemp(prefix="sketchpad-bench-server-")
    os.environ.setdefault("SKETCHPAD_CACHE_DIR", str(Path(work) / "cache"))
    load_before = uptime()
    lines = [
        "# Server load benchmark",
        "",
        f"- date: {dt.datetime.now(dt.UTC).isoformat(timespec='seconds')}",
        f"- machine: {cpu_name()}, {os.cpu_count()} CPUs, {platform.platform()}, Python {platform.python_version()}",
        f"- `uptime` before: `{load_before}`",
        "- server: `sketchpad serve` (shipped model, ONNX Runtime backend, certified at start-up) in its own "
        "process; clients: threads with one httpx connection each, in this process; all on 127.0.0.1",
        f"- command: `python benchmarks/bench_server.py {' '.join(argv if argv is not None else sys.argv[1:])}`",
        "",
    ]

    # 1. mixed load, server defaults
    srv = Server(db_dir=work)
    try:
        before = srv.health()["solves"]["batcher"]
        results, wall = mixed(srv, args.clients, args.requests, args.long, args.long_digits, args.seed)
        h = srv.health()["solves"]
    finally:
        srv.stop()
    b = h["batcher"]
    calls = b["model_calls"] - before["model_calls"]
    rows = b["forward_passes"] - before["forward_passes"]
    ok = [r for r in results if r["correct"]]
    short = [r["seconds"] for r in results if r["kind"] == "short"]
    long_ = [r["seconds"] for r in results if r["kind"] == "long"]
    every = [r["seconds"] for r in results]
    lines += [
        f"## 1. Mixed load: {args.clients} clients × {args.requests} requests, {args.long} long divisions",
        "",
        f"Server defaults (--workers {h['workers']}, --queue {h['queue']}, --timeout "
        f"{h['budget']['seconds']:g} s, --max-forward-passes {h['budget']['forward_passes']:,}); "
        f"start-up (load + certify) {srv.start_seconds:.1f} s.",
        "",
        "| requests | correct | not 200 | wall (s) | throughput (req/s) |",
        "|---:|---:|---:|---:|---:|",
        f"| {len(results)} | {len(ok)}/{len(results)} | {sum(r['status'] != 200 for r in results)} | "
        f"{wall:.1f} | {len(results) / wall:.2f} |",
        "",
        "| latency (s) | n | p50 | p95 | max |",
        "|---|---:|---:|---:|---:|",
        f"| all requests | {len(every)} | {fmt(every)} |",
        f"| short requests | {len(short)} | {fmt(short)} |",
        f"| long divisions ({args.long_digits} / {args.long_digits // 2} digits) | {len(long_)} | {fmt(long_)} |",
        "",
        f"Batcher: {calls:,} model calls for {rows:,} forward passes ({rows / max(1, calls):.0f} rows per "
        f"call on average); {b['merged_calls']:,} calls served more than one request, up to "
        f"{b['most_requests_in_one_call']} requests in one call; model busy {b['busy_seconds']:.1f} s of "
        f"{wall:.1f} s.",
        "",
    ]
    bad = [r for r in results if not r["correct"]]
    if bad:
        lines += ["Failures:", ""] + [f"- {r['kind']} status {r['status']}: {r['error']}" for r in bad[:10]] + [""]

    if not args.skip_overload:
        # 2. overload, 3. budget: a deliberately small server
        srv = Server("--workers", "2", "--queue", "2", "--timeout", "10", db_dir=work)
        try:
            burst, bwall = overload(srv, args.burst, args.seed + 1)
            big, shorts = budget(srv, args.seed + 2)
            h2 = srv.health()["solves"]
        finally:
            srv.stop()
        refused = [r for r in burst if r["status"] == 503]
        served = [r for r in burst if r["status"] == 200]
        lines += [
            f"## 2. Overload: {args.burst} requests at once (30 × 30-digit products) on "
            "`--workers 2 --queue 2 --timeout 10`",
            "",
            "| answered 200 (all correct?) | answered 503 | with Retry-After | other | wall (s) |",
            "|---:|---:|---:|---:|---:|",
            f"| {len(served)} ({'yes' if all(r['correct'] for r in served) else 'NO'}) | {len(refused)} | "
            f"{sum(bool(r['retry_after']) for r in refused)} | {len(burst) - len(served) - len(refused)} | "
            f"{bwall:.1f} |",
            "",
            "| latency (s) | n | p50 | p95 | max |",
            "|---|---:|---:|---:|---:|",
            f"| 503 answers | {len(refused)} | {fmt([r['seconds'] for r in refused])} |",
            f"| 200 answers | {len(served)} | {fmt([r['seconds'] for r in served])} |",
            "",
            "## 3. Budget: a 2,000 / 1,000-digit division on the same server (--timeout 10)",
            "",
            f"- the division: HTTP {big['status']} after {big['seconds']:.1f} s: {big['error']}",
            f"- 5 short requests sent while it ran: statuses {[r['status'] for r in shorts]}, all correct: "
            f"{all(r['correct'] for r in shorts)}, latency max {max(r['seconds'] for r in shorts):.2f} s",
            f"- server counters: served {h2['served']}, refused busy {h2['refused_busy']}, over budget "
            f"{h2['over_budget']}",
            "",
        ]
    lines += [f"- `uptime` after: `{uptime()}`", ""]
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        old = args.out.read_text() if args.out.exists() else ""
        keep = old[old.index(REGISTRY) :] if REGISTRY in old else ""  # bench_registry.py's section
        args.out.write_text(text + ("\n" + keep if keep else ""))
    return 0 if not bad else 1


if __name__ == "__main__":
    sys.exit(main())
