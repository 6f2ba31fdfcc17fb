"""The HTTP API: solve, limits, errors, certificates, and a bounded concurrent load test.

The load test runs a real uvicorn server on 127.0.0.1 (an ephemeral port) and sends a fixed
number of requests from a fixed number of clients, each answer checked against Python.
"""

from __future__ import annotations

import json
import random
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from fastapi.testclient import TestClient

from sketchpad.server import Settings, create_app


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    db = tmp_path_factory.mktemp("db") / "certs.sqlite"
    with TestClient(create_app(Settings(db_path=str(db), stepper="reference")), base_url="http://127.0.0.1") as c:
        yield c


def test_solve_returns_value_and_counters(client):
    r = client.post("/api/solve", json={"expr": "12345 * -678 + gcd(84, 36)"})
    assert r.status_code == 200, r.text
    d = r.json()
    assert d["result"] == str(12345 * -678 + 12)
    assert d["forward_passes"] > 0 and d["batches"] > 0


def test_solve_long_sum_matches_python(client):
    rnd = random.Random(7)
    a, b = rnd.randrange(10**999, 10**1000), rnd.randrange(10**999, 10**1000)
    r = client.post("/api/solve", json={"expr": f"{a} + {b}"})
    assert r.status_code == 200 and r.json()["result"] == str(a + b)


@pytest.mark.parametrize(
    "expr, words",
    [
        ("1 +", "syntax error"),
        ("7 // 0", "zero"),
        ("sqrt(-4)", "negative"),
        ("1.5 + 2", "not an integer"),
        ("foo(3)", "unknown function"),
        ("", "empty"),
    ],
)
def test_bad_input_is_a_clear_400(client, expr, words):
    r = client.post("/api/solve", json={"expr": expr})
    assert r.status_code == 400, r.text
    assert words in r.json()["error"].lower()


def test_size_limits_are_the_clis(client):
    r = client.post("/api/solve", json={"expr": "9" * 20_001 + " + 1"})
    assert r.status_code == 400 and "limit" in r.json()["error"]
    r = client.post("/api/solve", json={"expr": "9" * 8_001 + " * 3"})
    assert r.status_code == 400 and "limit" in r.json()["error"]
    r = client.post("/api/solve", json={"expr": "123456 + 1", "max_digits": 5})
    assert r.status_code == 400 and "limit is 5" in r.json()["error"]


def test_malformed_requests_are_json_4xx(client):
    r = client.post("/api/solve", json={"expression": "1 + 1"})
    assert r.status_code == 422 and "expr" in r.json()["error"]
    r = client.post("/api/solve", content=b"not json", headers={"content-type": "application/json"})
    assert r.status_code == 400 and "invalid JSON" in r.json()["error"]  # not JSON: 400, as NaN
    r = client.post("/api/solve", json={"expr": 12})
    assert r.status_code == 422


def test_views_endpoint_is_the_committed_view_set(client):
    from sketchpad import views

    d = client.get("/api/views").json()
    assert d["count"] == len(views.load()) == len(d["views"])
    assert d["sha256"] == views.file_sha256()
    from sketchpad.reference import reference_step
    from sketchpad.symbols import View

    for row in d["views"][:50]:
        assert list(reference_step(View(*row["view"]))) == row["step"]


def test_headers_for_cross_origin_isolation(client):
    r = client.get("/api/views")
    assert r.headers["cross-origin-opener-policy"] == "same-origin"
    assert r.headers["cross-origin-embedder-policy"] == "require-corp"


def test_static_mime_types(client):
    from sketchpad.server.app import Settings as S

    ort = S().ort_dir
    if not ort.is_dir():
        pytest.skip("node_modules/onnxruntime-web is not installed (run npm ci)")
    r = client.get("/vendor/ort/ort.wasm.min.mjs")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/javascript")
    wasm = sorted(p.name for p in ort.glob("*.wasm"))[0]
    r = client.get(f"/vendor/ort/{wasm}")
    assert r.status_code == 200 and r.headers["content-type"] == "application/wasm"
    r = client.get("/onnx_stepper.js")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/javascript")


def test_openapi_is_fastapis(client):
    d = client.get("/openapi.json").json()
    assert {"/api/solve", "/api/views", "/api/model", "/api/certificates"} <= set(d["paths"])


# --- a real server on loopback, bounded load --------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def live_server(tmp_path_factory):
    import uvicorn

    port = _free_port()
    # The shipped model on ONNX Runtime answers (certified; every client's batches merged).
    app = create_app(
        Settings(db_path=str(tmp_path_factory.mktemp("live") / "c.sqlite"), stepper="model", backend="onnx")
    )
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    t = threading.Thread(target=server.run, daemon=True)
    t.start()
    deadline = time.monotonic() + 300  # start-up loads and certifies the model
    while not server.started:
        assert time.monotonic() < deadline, "server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    t.join(10)


def _problems(n: int):
    rnd = random.Random(2026)
    out = []
    for k in range(n):
        a, b = rnd.randrange(10 ** rnd.randint(1, 30)), rnd.randrange(1, 10 ** rnd.randint(1, 8))
        op = ["+", "-", "*", "//", "%"][k % 5]
        out.append((f"{a} {op} -{b}", {"+": a - b, "-": a + b, "*": -a * b, "//": a // -b, "%": a % -b}[op]))
    return out


def test_concurrent_load_every_answer_correct(live_server):
    """200 requests from 20 clients, two of them long divisions, answered by the certified
    model: every answer right, none refused (20 clients fit the default queue), and the
    clients' batches were merged into shared model calls.  No assertion on time."""
    problems = _problems(200)  # 200 requests ...
    rnd = random.Random(99)
    for k in (3, 111):  # ... two of them long divisions (~600 batches each)
        a, b = rnd.randrange(10**119, 10**120), rnd.randrange(10**59, 10**60)
        problems[k] = (f"{a} // {b}", a // b)

    def worker(chunk):
        with httpx.Client(base_url=live_server, timeout=600) as c:
            return [(expr, want, c.post("/api/solve", json={"expr": expr})) for expr, want in chunk]

    chunks = [problems[i::20] for i in range(20)]  # ... from 20 clients
    with ThreadPoolExecutor(20) as pool:
        answers = [a for part in pool.map(worker, chunks) for a in part]
    assert len(answers) == 200
    for expr, want, r in answers:
        assert r.status_code == 200, (expr, r.text)
        assert r.json()["result"] == str(want), expr
        assert r.json()["stepper"] == "onnx"  # the model answered, not the reference
    solves = httpx.get(f"{live_server}/api/health", timeout=60).json()["solves"]
    assert solves["refused_busy"] == 0 and solves["running"] == 0
    assert solves["batcher"]["merged_calls"] > 0


def test_bad_requests_under_load_stay_4xx(live_server):
    with httpx.Client(base_url=live_server, timeout=30) as c:
        codes = [c.post("/api/solve", json={"expr": e}).status_code for e in ["1/2", "x", "1 +"] * 10]
    assert set(codes) == {400}


# --- certificates: upload, validation, persistence ---------------------------------------------


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A server for the shipped model, and an honest certificate from a browser for it."""
    from sketchpad.model import DEFAULT_MODEL_DIR

    from policy_matrix import honest_certificate

    db = tmp_path_factory.mktemp("served") / "certs.sqlite"
    app = create_app(Settings(db_path=str(db), model_dir=DEFAULT_MODEL_DIR, stepper="reference"))
    cert, _ = honest_certificate(DEFAULT_MODEL_DIR)
    with TestClient(app, base_url="http://127.0.0.1") as c:
        yield c, cert, db


def _mutated(cert, fn):
    c = json.loads(json.dumps(cert))
    fn(c)
    return c


def test_model_endpoint_names_what_the_page_loads(served):
    from sketchpad.model import DEFAULT_MODEL_DIR
    from sketchpad.model.manifest import sha256_file

    c, cert, _ = served
    d = c.get("/api/model").json()
    assert d["key_digests"]["onnx/model.onnx"] == sha256_file(DEFAULT_MODEL_DIR / "onnx" / "model.onnx")
    assert set(d["files"]) == {"onnx/model.json", "onnx/model.onnx", "sketchpad/web/onnx_stepper.js"}
    assert c.get("/model/model.json").status_code == 200


@pytest.mark.parametrize(
    "break_it, words",
    [
        (lambda c: c.pop("predicate"), "not a sketchpad certificate"),
        (lambda c: c.update(_type="https://example.invalid/x"), "not a sketchpad certificate"),
        (lambda c: c["predicate"]["per_view"].pop(), "not exactly the 1436 views"),
        (lambda c: c["predicate"]["per_view"][3].update(got="1_ HALT"), "do not pass"),
        (lambda c: c["predicate"]["drift"].update(max_abs_logit_diff=5.0), "smallest margin"),
        (lambda c: c["predicate"]["tool"].update(version="0.0.1"), "made by sketchpad 0.0.1"),
    ],
)
def test_certificates_that_do_not_hold_are_refused(served, break_it, words):
    c, cert, _ = served
    r = c.post("/api/certificates", json=_mutated(cert, break_it))
    assert r.status_code == 400, r.text
    assert words in r.json()["error"]


def test_non_object_certificates_are_4xx(served):
    c, _, _ = served
    assert c.post("/api/certificates", json=[1, 2]).status_code == 422
    r = c.post("/api/certificates", content=b"{oops", headers={"content-type": "application/json"})
    assert r.status_code == 400


def test_certificate_for_an_unknown_model_is_refused(served):
    c, cert, _ = served

    def other_graph(x):
        for s in x["subject"]:
            if s["name"] == "onnx/model.onnx":
                s["digest"]["sha256"] = "0" * 64

    r = c.post("/api/certificates", json=_mutated(cert, other_graph))
    assert r.status_code == 422 and "onnx/model.onnx" in r.json()["error"]


def test_certificate_for_another_view_set_is_refused(served):
    c, cert, _ = served

    def other_views(x):
        x["predicate"]["view_set"]["sha256"] = "1" * 64
        for s in x["subject"]:
            if s["name"] == "sketchpad/data/views.jsonl":
                s["digest"]["sha256"] = "1" * 64

    r = c.post("/api/certificates", json=_mutated(cert, other_views))
    assert r.status_code == 400 and "view set" in r.json()["error"]


def test_oversized_bodies_are_refused(served):
    c, _, _ = served
    r = c.post("/api/certificates", content=b"x" * 8_000_001, headers={"content-type": "application/json"})
    assert r.status_code == 413


def test_serve_command_serves_the_page_on_loopback(tmp_path):
    import subprocess
    import sys

    port = _free_port()
    db = tmp_path / "served.sqlite"
    proc = subprocess.Popen(
        [sys.executable, "-m", "sketchpad", "serve", "--port", str(port), "--db", str(db)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 300  # loads and certifies first: generous on a busy machine
        while True:
            try:
                health = httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=30)
                if health.status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, "sketchpad serve did not become ready"
            time.sleep(0.2)
        assert health.json()["status"] == "ready" and health.json()["backend"] == "onnx"
        assert health.json()["certificate"]["views"] == 1436
        r = httpx.get(f"http://127.0.0.1:{port}/", timeout=30)
        assert r.status_code == 200 and "Sketchpad" in r.text
        assert r.headers["cross-origin-embedder-policy"] == "require-corp"
        ok = httpx.post(f"http://127.0.0.1:{port}/api/solve", json={"expr": "2 + 2"}, timeout=60).json()
        assert ok["result"] == "4"
        assert db.exists()  # --db is where certificates go
    finally:
        proc.terminate()
        proc.wait(10)


def test_serve_rejects_a_bad_port(capsys):
    from sketchpad.cli import main

    assert main(["serve", "--port", "70000"]) == 2
    assert "--port" in capsys.readouterr().err
