"""Replicas of `sketchpad serve` on one PostgreSQL under upload and listing load, with faults:
the machinery of benchmarks/bench_registry.py and of its bounded test
(tests/test_registry_replicas.py).  Loopback only; every loop is bounded in count and time.

The clients play the load balancer: each attempt goes to the next replica in turn, and an
attempt that fails (connection refused or cut, 503) is sent again, to the next replica, after
the Retry-After it was given (uploads are idempotent, so a retry can never store a
certificate twice).  An upload is acknowledged by a 201 or a 200 (recorded before).
"""

from __future__ import annotations

import copy
import itertools
import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
MAX_ATTEMPTS = 40  # per request: a request that still fails after this many is reported, not retried
REQUEST_TIMEOUT = 60


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Replica:
    """One `sketchpad serve` process (reference stepper, the shipped model's page) on 127.0.0.1."""

    def __init__(self, db_url: str, log_dir: Path, name: str, via: str = "env"):
        self.db_url, self.name, self.via = db_url, name, via  # via: SKETCHPAD_DB_URL ("env") or --db ("flag")
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = Path(log_dir) / f"{name}.log"
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        env = {k: v for k, v in os.environ.items() if k != "SKETCHPAD_DB_URL"}
        cmd = [sys.executable, "-m", "sketchpad", "serve", "--stepper", "reference", "--port", str(self.port)]
        if self.via == "flag":
            cmd += ["--db", self.db_url]
        else:
            env["SKETCHPAD_DB_URL"] = self.db_url
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)

    def wait_ready(self, timeout: float = 300) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"replica {self.name} exited: {self.log.read_text()[-2000:]}")
            try:
                if httpx.get(f"{self.url}/api/health", timeout=10).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"replica {self.name} was not ready within {timeout:g} s")

    def kill(self) -> None:
        """SIGKILL, by pid: no shutdown, requests in flight are cut."""
        if self.proc is not None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(60)
            self.proc = None

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(30)
            self.proc = None


def start_replicas(db_url: str, n: int, log_dir: Path, flag: int = 0) -> list[Replica]:
    """`n` replicas on `db_url`, ready; the first `flag` of them are given --db, the others SKETCHPAD_DB_URL."""
    replicas = [Replica(db_url, log_dir, f"replica-{i}", "flag" if i < flag else "env") for i in range(n)]
    for r in replicas:
        r.start()
    try:
        for r in replicas:
            r.wait_ready()
    except BaseException:
        for r in replicas:
            r.stop()
        raise
    return replicas


def upload_bodies(honest: dict, distinct: int, duplicates: int, seed: int) -> list[tuple[int, bytes]]:
    """[(certificate number, JSON body)] in sending order: `distinct` honest certificates (the
    same run as reported by `distinct` browsers), and `duplicates` more sends of some of them,
    shuffled (a duplicate may race its first send)."""

    bodies = []
    for n in range(distinct):
        c = copy.deepcopy(honest)
        c["predicate"]["environment"]["library"]["browser"] += f" load/{seed}/{n}"
        bodies.append(json.dumps(c).encode())
    rnd = random.Random(seed)
    order = list(range(distinct)) + [rnd.randrange(distinct) for _ in range(duplicates)]
    rnd.shuffle(order)
    return [(n, bodies[n]) for n in order]


@dataclass
class Tally:
    """Every attempt's answer, and every acknowledged upload."""

    codes: dict = field(default_factory=dict)  # (kind, status or error name) -> count
    latency: dict = field(default_factory=lambda: {"upload": [], "list": [], "upload, retries included": []})
    acks: list = field(default_factory=list)  # (certificate number, id, sha256, status)
    failed: list = field(default_factory=list)  # requests that never succeeded
    missing_retry_after: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def count(self, kind: str, what) -> None:
        with self.lock:
            self.codes[(kind, what)] = self.codes.get((kind, what), 0) + 1


def _attempts(tally: Tally, kind: str, urls: list[str], start: int, send):
    """Send until answered 2xx (or a 4xx, which is final), at most MAX_ATTEMPTS times."""
    for attempt in range(MAX_ATTEMPTS):
        base = urls[(start + attempt) % len(urls)]
        t = time.monotonic()
        try:
            r = send(base)
        except httpx.TransportError as e:
            tally.count(kind, type(e).__name__)
            time.sleep(0.05)
            continue
        tally.count(kind, r.status_code)
        if r.status_code < 300:
            with tally.lock:
                tally.latency[kind].append(time.monotonic() - t)
            return r
        if r.status_code == 503:
            wait = r.headers.get("retry-after")
            if wait is None:
                with tally.lock:
                    tally.missing_retry_after += 1
            time.sleep(min(float(wait or 1), 5.0))
            continue
        return r  # 4xx/500: final, counted
    return None


def run_load(
    replicas: list[Replica],
    bodies: list[tuple[int, bytes]],
    *,
    clients: int,
    list_every: int = 5,
    faults: list[tuple[float, callable]] = (),
) -> tuple[Tally, float, list[str]]:
    """Send `bodies` from `clients` threads, each listing a page every `list_every` uploads;
    run each fault (fraction of uploads done, function) once that many are done.  Returns the
    tally, the wall time and what the faults did (with times)."""
    tally = Tally()
    urls = [r.url for r in replicas]
    jobs = iter(enumerate(bodies))
    jobs_lock = threading.Lock()
    done = itertools.count(1)
    pending = sorted(faults, key=lambda f: f[0])
    fired: list[str] = []
    fault_threads: list[threading.Thread] = []
    t0 = time.monotonic()

    def fire(fn):
        t = time.monotonic()
        what = fn()
        fired.append(f"{what} at {t - t0:.1f} s, back after {time.monotonic() - t:.1f} s")

    def client(k: int):
        with httpx.Client(timeout=REQUEST_TIMEOUT) as http:
            sent = 0
            while True:
                with jobs_lock:
                    job = next(jobs, None)
                if job is None:
                    return
                i, (n, body) = job
                headers = {"content-type": "application/json"}
                t = time.monotonic()
                r = _attempts(
                    tally,
                    "upload",
                    urls,
                    k + i,
                    lambda b: http.post(f"{b}/api/certificates", content=body, headers=headers),
                )
                if r is not None and r.status_code in (200, 201):
                    a = r.json()
                    with tally.lock:
                        tally.acks.append((n, a["id"], a["sha256"], r.status_code))
                        tally.latency["upload, retries included"].append(time.monotonic() - t)
                else:
                    with tally.lock:
                        tally.failed.append((n, None if r is None else r.status_code))
                finished = next(done)
                with jobs_lock:
                    while pending and finished >= pending[0][0] * len(bodies):
                        _, fn = pending.pop(0)
                        th = threading.Thread(target=fire, args=(fn,))
                        th.start()
                        fault_threads.append(th)
                sent += 1
                if sent % list_every == 0:
                    _attempts(tally, "list", urls, k + sent, lambda b: http.get(f"{b}/api/certificates?limit=50"))

    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(client, range(clients)))
    for th in fault_threads:
        th.join(600)
    return tally, time.monotonic() - t0, fired


def check_registry(tally: Tally, replicas: list[Replica], distinct: int) -> dict:
    """Every acknowledged upload present exactly once: the same id for every ack of one
    certificate, at most one 201 each, and paging the listing (through every replica in
    turn) shows each acknowledged id exactly once, with its digest, and nothing else."""
    by_cert: dict = {}
    created: dict = {}
    for n, id_, sha, status in tally.acks:
        by_cert.setdefault(n, set()).add((id_, sha))
        created[n] = created.get(n, 0) + (status == 201)
    problems = [f"certificate {n} acknowledged as {sorted(v)}" for n, v in by_cert.items() if len(v) != 1]
    problems += [f"certificate {n} created {c} times" for n, c in created.items() if c > 1]
    if len(by_cert) != distinct:
        problems.append(f"{distinct - len(by_cert)} certificates were never acknowledged")
    listed, before, page = [], None, 0
    while True:
        url = (
            replicas[page % len(replicas)].url + "/api/certificates?limit=200" + (f"&before={before}" if before else "")
        )
        body = httpx.get(url, timeout=REQUEST_TIMEOUT).json()
        listed += [(r["id"], r["sha256"]) for r in body["certificates"]]
        problems += [f"row {s['id']} skipped: {s['reason']}" for s in body["skipped"]]
        before, page = body["next_before"], page + 1
        if before is None:
            break
    expected = sorted((next(iter(v)) for v in by_cert.values()), reverse=True)
    if sorted(listed, reverse=True) != expected or len(listed) != len(set(listed)):
        problems.append(f"the listing has {len(listed)} rows ({len(set(listed))} distinct), expected {len(expected)}")
    return {"acknowledged": len(by_cert), "listed": len(listed), "problems": problems}


def percentile(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]
