"""Load benchmark of the certificate registry as stateless replicas (not a test): N `sketchpad
serve` processes on one PostgreSQL, many clients uploading and listing, a replica killed and
restarted and the database restarted during the run.  Loopback only; bounded in requests and
time (every request gives up after 40 attempts).

    python benchmarks/bench_registry.py [--replicas 3] [--clients 50] [--uploads 1000]
                                        [--duplicates 0.2] [--out benchmarks/results/server.md]

PostgreSQL is Debian's (tests/pg_cluster.py: a throw-away cluster, fsync on); the replicas
run the reference stepper and serve the shipped model's page; uploads are honest browser
certificates of that model (~137 kB each, every one re-checked by the rule), a fifth of them
sent again.  Two phases on fresh databases: steady (no faults), then faults (replica 1
killed with SIGKILL at 30% of the uploads and started again; PostgreSQL restarted, fast
shutdown, at 60%).  Checked after each: every acknowledged upload present exactly once (the
same id for every acknowledgement, at most one 201, the listing paged through the replicas
shows each once), no 500.  Reported: throughput, p50/p95 latency of uploads and listings,
every answer by code.  The section is written into --out between registry markers; the rest
of the file (benchmarks/bench_server.py's solve figures) is left as it is.
"""

from __future__ import annotations

import argparse
import datetime as dt
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout
sys.path.insert(0, str(ROOT / "tests"))  # pg_cluster, policy_matrix

from benchmarks.registry_load import check_registry, percentile, run_load, start_replicas, upload_bodies  # noqa: E402
from sketchpad.model import DEFAULT_MODEL_DIR  # noqa: E402
from sketchpad.model.environment import machine  # noqa: E402

from pg_cluster import Cluster, missing_reason  # noqa: E402
from policy_matrix import honest_certificate  # noqa: E402

BEGIN, END = "<!-- registry: begin (benchmarks/bench_registry.py) -->", "<!-- registry: end -->"


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True, timeout=10).stdout.strip()


def cpu_name() -> str:
    return machine()


def phase(cluster, honest, args, name: str, faults: bool, logs: Path) -> dict:
    db = cluster.create_database(name)
    replicas = start_replicas(db, args.replicas, logs)

    def kill_and_restart():
        replicas[1].kill()
        time.sleep(1.0)
        replicas[1].start()
        replicas[1].wait_ready()
        return "replica 1 killed (SIGKILL) and started again"

    def restart_database():
        cluster.restart()
        return "PostgreSQL restarted (fast shutdown, start)"

    duplicates = round(args.uploads * args.duplicates)
    bodies = upload_bodies(honest, args.uploads - duplicates, duplicates, seed=args.seed)
    load_before = uptime()
    try:
        tally, wall, fired = run_load(
            replicas,
            bodies,
            clients=args.clients,
            list_every=args.list_every,
            faults=[(0.3, kill_and_restart), (0.6, restart_database)] if faults else [],
        )
        check = check_registry(tally, replicas, args.uploads - duplicates)
    finally:
        for r in replicas:
            r.stop()
        if cluster.proc is None:
            cluster.start()
    return {"name": name, "tally": tally, "wall": wall, "fired": fired, "check": check, "uptime": load_before}


def section(args, results: list[dict], started: str) -> str:
    out = [
        BEGIN,
        "",
        "## Registry: replicas on one PostgreSQL (`benchmarks/bench_registry.py`)",
        "",
        f"- date: {started}",
        f"- machine: {cpu_name()}, 2 CPUs shared with the other engineers' test runs (see `uptime`), "
        f"{platform.platform()}, Python {platform.python_version()}",
        f"- load: {args.replicas} `sketchpad serve` replicas (reference stepper, the shipped model's page) on one "
        f"PostgreSQL 15 (Debian, fsync on); {args.clients} client threads, each sending to the replicas in turn "
        f"and moving to the next one on a failure or a 503 (after its Retry-After); {args.uploads:,} uploads of "
        f"honest browser certificates (~137 kB, each re-checked by the rule), {args.duplicates:.0%} of them "
        f"repeats; a page of 50 summaries listed after every {args.list_every} uploads of each client; all on 127.0.0.1",
        f"- command: `{' '.join(['python benchmarks/bench_registry.py', *sys.argv[1:]])}`",
        "",
        "| phase | faults | wall (s) | uploads acknowledged / s | present exactly once | 500s | 503 without Retry-After |",
        "|---|---|---:|---:|---|---:|---:|",
    ]
    for r in results:
        t, c = r["tally"], r["check"]
        n500 = sum(v for (_, code), v in t.codes.items() if code == 500)
        ok = "yes" if not c["problems"] else "NO: " + "; ".join(c["problems"][:3])
        faults = "; ".join(r["fired"]) or "none"
        out.append(
            f"| {r['name']} | {faults} | {r['wall']:.1f} | {args.uploads / r['wall']:.1f} | "
            f"{ok} ({c['listed']:,} rows for {c['acknowledged']:,} certificates) | {n500} | {t.missing_retry_after} |"
        )
    out += [
        "",
        "Latency of the answered attempts (upload, list) and of each upload from its first attempt to its "
        "acknowledgement:",
        "",
        "| phase | request | n | p50 (ms) | p95 (ms) | max (ms) |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for r in results:
        for kind in ("upload", "upload, retries included", "list"):
            xs = r["tally"].latency[kind]
            out.append(
                f"| {r['name']} | {kind} | {len(xs):,} | {percentile(xs, 0.5) * 1000:.0f} | "
                f"{percentile(xs, 0.95) * 1000:.0f} | {max(xs, default=float('nan')) * 1000:.0f} |"
            )
    out += ["", "Every answer (attempts included), by request and code:", ""]
    out += ["| phase | request | answers |", "|---|---|---|"]
    for r in results:
        for kind in ("upload", "list"):
            codes = {k[1]: v for k, v in r["tally"].codes.items() if k[0] == kind}
            text = ", ".join(f"{code}: {v:,}" for code, v in sorted(codes.items(), key=lambda kv: str(kv[0])))
            out.append(f"| {r['name']} | {kind} | {text} |")
    out += [""] + [f"`uptime` before the {r['name']} phase: `{r['uptime']}`" for r in results]
    out += [
        "",
        "201: stored; 200: recorded before (a repeat, or a retry of an upload whose answer was lost); "
        "503: the database was unavailable (its restart), answered with Retry-After; ReadError / "
        "RemoteProtocolError / ConnectError: the killed replica's connections, and connections to it until it "
        "was back.  Every such attempt was retried on the next replica.",
        "",
        END,
    ]
    return "\n".join(out) + "\n"


def write(out: Path, text: str) -> None:
    old = out.read_text() if out.exists() else ""
    if BEGIN in old and END in old:
        new = old[: old.index(BEGIN)] + text + old[old.index(END) + len(END) :].lstrip("\n")
    else:
        new = old.rstrip("\n") + ("\n\n" if old else "") + text
    out.write_text(new)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--replicas", type=int, default=3)
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--uploads", type=int, default=1000)
    ap.add_argument("--duplicates", type=float, default=0.2)
    ap.add_argument("--list-every", type=int, default=5)
    ap.add_argument("--seed", type=int, default=26)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "server.md")
    args = ap.parse_args()

    if missing_reason():
        print(f"bench_registry: {missing_reason()}", file=sys.stderr)
        return 2
    started = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    honest, _ = honest_certificate(DEFAULT_MODEL_DIR)
    results = []
    with tempfile.TemporaryDirectory(prefix="bench-registry-") as logs, Cluster(fsync=True) as cluster:
        for name, faults in (("steady", False), ("faults", True)):
            print(f"bench_registry: {name} phase ...", flush=True)
            r = phase(cluster, honest, args, name, faults, Path(logs))
            print(f"  {r['wall']:.1f} s, {r['check']}, {r['fired']}", flush=True)
            results.append(r)
    text = section(args, results, started)
    write(args.out, text)
    print(text)
    bad = [r for r in results if r["check"]["problems"] or any(code == 500 for _, code in r["tally"].codes)]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
